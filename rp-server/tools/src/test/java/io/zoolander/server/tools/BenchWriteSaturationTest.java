package io.zoolander.server.tools;

import static io.zoolander.server.tools.CliRun.run;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code zoolander bench --write-saturation} end to end with tiny counts: a row for plain setData,
 * one for the same write with the plugin's bookkeeping and one for Zoolander at every N, writes
 * completed and none failed, each deployment's JIT warm-up and the loopback round trip beside them.
 * No speed is asserted.
 */
class BenchWriteSaturationTest {

  @TempDir Path dir;

  @Test
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  void sequencedWritesAtEveryNAgainstPlainSetData() throws Exception {
    CliRun r =
        run(
            "bench",
            "--write-saturation",
            "--quick",
            "--rp-counts",
            "1,2",
            "--partitions",
            "1,2",
            "--partition-cores",
            "--outstanding",
            "4",
            "--seconds",
            "1",
            "--max-accesses",
            "2000",
            "--jit-warmup-max-seconds",
            "1",
            "--repeater-setting",
            "clientIoThreads=0",
            "--out",
            dir.toString());
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(Files.readString(dir.resolve("logs-n2").resolve("repeater.properties")))
        .as("the repeater setting reaches the child repeater, which ran with it")
        .contains("\nclientIoThreads=0\n");
    String table = Files.readString(dir.resolve("write-saturation.md"), StandardCharsets.UTF_8);
    assertThat(r.out()).contains("wrote " + dir.resolve("write-saturation.md").toAbsolutePath());
    String number = "[0-9]+(\\.[0-9]+)?";
    for (int n : new int[] {1, 2}) {
      assertThat(table)
          .containsPattern(
              "\\| "
                  + n
                  + " \\| plain setData \\| [1-9][0-9]* \\|  \\| 1\\.00x \\| "
                  + number
                  + " \\| "
                  + number
                  + " \\| [1-9][0-9]* \\| 0 \\|");
      assertThat(table)
          .as("the bookkeeping's price on the same server")
          .containsPattern(
              "\\| "
                  + n
                  + " \\| plain multi \\+bookkeeping \\| [1-9][0-9]* \\|  \\| "
                  + number
                  + "x \\| "
                  + number
                  + " \\| "
                  + number
                  + " \\| [1-9][0-9]* \\| 0 \\|");
      assertThat(table)
          .containsPattern(
              "\\| "
                  + n
                  + " \\| rp-"
                  + n
                  + " \\| [1-9][0-9]* \\| [1-9][0-9]* \\| "
                  + number
                  + "x \\| "
                  + number
                  + " \\| "
                  + number
                  + " \\| [1-9][0-9]* \\| 0 \\|");
    }
    assertThat(table)
        .as("one partition is the base of the partitions' ratios")
        .containsPattern(
            "\\| 1 \\| [1-9][0-9]* \\| 1\\.00x \\| "
                + number
                + " \\| "
                + number
                + " \\| [1-9][0-9]* \\| 0 \\|");
    assertThat(table)
        .as("the CPU the client and the partitions used")
        .containsPattern(
            "\\| 1 \\| [1-9][0-9]* \\| 1\\.00x \\| [^\n]* \\| [0-9]+\\.[0-9]{2} \\| [0-9]+\\.[0-9]{2} \\|\n");
    assertThat(table)
        .containsPattern(
            "\\| 2 \\| [1-9][0-9]* \\| "
                + number
                + "x \\| "
                + number
                + " \\| "
                + number
                + " \\| [1-9][0-9]* \\| 0 \\|");
    assertThat(table)
        .contains("Each partition's JVMs (its server and its repeater) on a CPU of their own")
        .containsPattern("the bench's JVM, the client, on (any of )?CPUs \\[[0-9, ]+\\]");
    assertThat(r.out())
        .as("each partition pinned")
        .containsPattern("P = 2: partition 0's JVMs on CPU [0-9]+")
        .containsPattern("P = 2: partition 1's JVMs on CPU [0-9]+");
    assertThat(dir.resolve("logs-p2-1").resolve("repeater.properties"))
        .as("each partition's repeater")
        .exists();
    for (String deployment : new String[] {"N = 1", "N = 2", "P = 1", "P = 2"}) {
      assertThat(table)
          .as("each deployment was loaded until its compilers were quiet, or for the bound")
          .containsPattern(
              "\n- "
                  + deployment
                  + ": JIT (quiet|still busy at the bound) after [0-9]+ s \\([0-9]+ turns?;"
                  + " compilers at [0-9.]+% of a core over the last\\)\n");
    }
    assertThat(table)
        .contains(
            "## Netty loopback round trip",
            "| closed loop, 1 outstanding, ",
            " round trips of 64 bytes |")
        .containsPattern("\\| " + number + " \\| " + number + " \\| " + number + " \\|");
  }
}
