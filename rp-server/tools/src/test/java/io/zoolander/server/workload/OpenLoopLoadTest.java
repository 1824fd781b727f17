package io.zoolander.server.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The generator's accounting: classes, failures, and a run ended by its access count. */
class OpenLoopLoadTest {

  @Test
  void accessesAreSplitIntoClassesAndFailuresCountedPerClass() throws Exception {
    OpenLoopLoad.Result r =
        OpenLoopLoad.builder()
            .ratePerSec(2_000)
            .duration(Duration.ofMillis(500))
            .warmup(Duration.ZERO)
            .classes(2, k -> k % 2)
            .build()
            .run(
                k ->
                    k % 10 == 1
                        ? CompletableFuture.failedFuture(new IllegalStateException("x"))
                        : CompletableFuture.completedFuture(k));
    assertThat(r.classes()).hasSize(2);
    OpenLoopLoad.ClassResult even = r.classes().get(0);
    OpenLoopLoad.ClassResult odd = r.classes().get(1);
    assertThat(even.issued() + odd.issued()).isEqualTo(r.issued()).isPositive();
    assertThat(even.failed()).isZero();
    assertThat(odd.failed()).isEqualTo(r.failed()).isPositive();
    assertThat(even.histogram().getTotalCount()).isEqualTo(even.issued());
    assertThat(odd.histogram().getTotalCount() + odd.failed()).isEqualTo(odd.issued());
    assertThat(r.histogram().getTotalCount()).isEqualTo(r.issued() - r.failed());
    assertThat(r.measuredSeconds()).isEqualTo(0.5);
    assertThat(r.achievedRatePerSec()).isPositive();
  }

  @Test
  void aRunEndedByItsAccessCountMeasuresOnlyTheTimeItRan() throws Exception {
    OpenLoopLoad.Result r =
        OpenLoopLoad.builder()
            .ratePerSec(1_000)
            .duration(Duration.ofSeconds(60))
            .warmup(Duration.ZERO)
            .maxAccesses(50)
            .build()
            .run(k -> CompletableFuture.completedFuture(k));
    assertThat(r.issued()).isEqualTo(50);
    assertThat(r.measuredSeconds()).isLessThan(60);
    assertThat(r.achievedRatePerSec()).isEqualTo(50 / r.measuredSeconds());
  }

  @Test
  void aClassOutOfRangeIsRefused() {
    assertThatThrownBy(() -> OpenLoopLoad.builder().classes(0, k -> 0))
        .hasMessageContaining("class count");
    assertThatThrownBy(
            () ->
                OpenLoopLoad.builder()
                    .ratePerSec(1_000)
                    .duration(Duration.ofMillis(100))
                    .warmup(Duration.ZERO)
                    .classes(2, k -> 2)
                    .build()
                    .run(k -> CompletableFuture.completedFuture(k)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("class 2");
  }
}
