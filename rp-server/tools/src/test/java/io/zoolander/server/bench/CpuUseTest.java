package io.zoolander.server.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class CpuUseTest {

  @Test
  void countsTheCpuTheProcessesSpent() {
    long self = ProcessHandle.current().pid();
    CpuUse.Meter meter = new CpuUse.Meter(List.of(self));
    long before = CpuUse.cpuNanos(self);
    assertThat(before).as("Linux gives a process's CPU time").isPositive();
    long deadline = System.nanoTime() + 10_000_000_000L; // a bound on the loop, not a timing
    long spin = 0;
    while (CpuUse.cpuNanos(self) - before < 50_000_000L && System.nanoTime() < deadline) {
      spin++; // 50 ms of this JVM's CPU
    }
    CpuUse use = meter.stop();
    assertThat(spin).isPositive();
    assertThat(use.clientCores()).isPositive();
    assertThat(use.partitionCores()).as("the same process counted as a child").isPositive();
  }

  @Test
  void aProcessThatIsGoneMakesItsSideUnknown() {
    long gone = Long.MAX_VALUE / 2;
    assertThat(CpuUse.cpuNanos(gone)).isEqualTo(-1);
    CpuUse use = new CpuUse.Meter(List.of(gone)).stop();
    assertThat(use.partitionCores()).isNaN();
    assertThat(use.clientCores()).isNotNaN();
  }
}
