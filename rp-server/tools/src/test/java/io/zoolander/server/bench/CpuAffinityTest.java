package io.zoolander.server.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.zoolander.server.internal.testing.ThisClassPath;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link CpuAffinity} on a real child JVM: every thread pinned, later ones too. */
class CpuAffinityTest {

  @Test
  void parsesTheKernelsCpuLists() {
    assertThat(CpuAffinity.parseList("0")).containsExactly(0);
    assertThat(CpuAffinity.parseList("0-3,6,8-9")).containsExactly(0, 1, 2, 3, 6, 8, 9);
    for (String bad : new String[] {"", "a", "3-1", "1-2-3", "-1", "1,"}) {
      assertThatThrownBy(() -> CpuAffinity.parseList(bad))
          .as("'%s'", bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("not a CPU list");
    }
  }

  @Test
  void withMoreCpusThanPartitionsTheClientKeepsTheFirstOnesForEveryPartitionCount() {
    CpuAffinity.Plan plan = CpuAffinity.Plan.of(List.of(0, 1, 2, 3), 2);
    assertThat(plan.partitionCpus()).containsExactly(2, 3);
    assertThat(plan.clientCpus()).containsExactly(0, 1);
    assertThat(plan.clientShares()).isFalse();

    CpuAffinity.Plan tight = CpuAffinity.Plan.of(List.of(0, 1), 2);
    assertThat(tight.partitionCpus()).containsExactly(0, 1);
    assertThat(tight.clientCpus()).containsExactly(0, 1);
    assertThat(tight.clientShares()).isTrue();

    assertThat(CpuAffinity.Plan.of(List.of(0, 1), 4).partitionCpus())
        .as("more partitions than CPUs: round robin")
        .containsExactly(0, 1);
    assertThatThrownBy(() -> CpuAffinity.Plan.of(List.of(), 1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> CpuAffinity.Plan.of(List.of(0), 0))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void pinsEveryThreadOfAChildJvmAndTheThreadsItStartsLater() throws Exception {
    List<Integer> cpus = CpuAffinity.allowedCpus();
    assumeTrue(cpus.size() >= 2, "pinning shows only with two CPUs or more; this JVM has " + cpus);
    int last = cpus.get(cpus.size() - 1);
    Process child =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx32m",
                "-cp",
                ThisClassPath.absolute(),
                Sleeper.class.getName())
            .redirectErrorStream(true)
            .start();
    try (BufferedReader out =
            new BufferedReader(
                new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
        OutputStream in = child.getOutputStream()) {
      assertThat(out.readLine()).isEqualTo("ready");
      assertThat(taskCpus(child.pid())).as("before").allMatch(c -> c.equals(cpus));

      CpuAffinity.pin(child.pid(), last);
      List<List<Integer>> pinned = taskCpus(child.pid());
      assertThat(pinned.size()).as("a JVM has many threads").isGreaterThan(5);
      assertThat(pinned).as("every thread").allMatch(c -> c.equals(List.of(last)));

      in.write("thread\n".getBytes(StandardCharsets.UTF_8));
      in.flush();
      assertThat(out.readLine()).isEqualTo("started");
      List<List<Integer>> later = taskCpus(child.pid());
      assertThat(later.size()).as("one thread more").isGreaterThan(pinned.size());
      assertThat(later).as("the later thread too").allMatch(c -> c.equals(List.of(last)));

      CpuAffinity.pin(child.pid(), cpus);
      assertThat(taskCpus(child.pid())).as("back on every CPU").allMatch(c -> c.equals(cpus));
    } finally {
      child.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void aProcessThatIsGoneIsAnErrorNamingIt() {
    long gone = Long.MAX_VALUE / 2;
    assertThatThrownBy(() -> CpuAffinity.pin(gone, 0))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("pin process " + gone + " to CPU 0");
  }

  /** The CPUs each thread of {@code pid} may run on. */
  private static List<List<Integer>> taskCpus(long pid) throws IOException {
    List<List<Integer>> cpus = new ArrayList<>();
    try (Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
      for (Path task : tasks.toList()) {
        cpus.add(CpuAffinity.allowedCpus(task.resolve("status")));
      }
    }
    return cpus;
  }

  /** A child JVM that waits, and starts a thread when told to. */
  public static final class Sleeper {
    private Sleeper() {}

    public static void main(String[] args) throws Exception {
      System.out.println("ready");
      BufferedReader in =
          new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        if (line.equals("thread")) {
          CountDownLatch never = new CountDownLatch(1);
          Thread t =
              new Thread(
                  () -> {
                    try {
                      never.await(); // stays alive until the JVM is killed
                    } catch (InterruptedException e) {
                      // exit
                    }
                  });
          t.setDaemon(true);
          t.start();
          System.out.println("started");
        }
      }
    }
  }
}
