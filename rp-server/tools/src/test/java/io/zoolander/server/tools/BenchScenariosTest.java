package io.zoolander.server.tools;

import static io.zoolander.server.tools.CliRun.run;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bench scenarios {@code --batching} and {@code --planned-slowness}, end to end with tiny
 * counts: every policy or variant gets its row, every write or read completes, and the table is
 * written. No speed is asserted.
 */
class BenchScenariosTest {

  @TempDir Path dir;

  /**
   * One deployment for both checks of the batching scenario (starting it is most of the test's
   * time): every policy's median row, and the run order rotated by one per round.
   */
  @Test
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  void batchingComparesEveryPolicyInRotatedRoundsAndReportsMedians() throws Exception {
    CliRun r =
        run(
            "bench",
            "--batching",
            "--quick",
            "--duplicates",
            "1",
            "--batching-rates",
            "50",
            "--batching-rounds",
            "2",
            "--seconds",
            "1",
            "--out",
            dir.toString());
    assertThat(r.exit()).as(r.err()).isZero();
    String table = Files.readString(dir.resolve("batching.md"), StandardCharsets.UTF_8);
    String medians = table.substring(0, table.indexOf("Every run"));
    String runs = table.substring(table.indexOf("Every run"));
    List<String> policies = List.of("none", "fixed 1000 us", "fixed 5000 us", "adaptive");
    for (String policy : policies) {
      assertThat(medians)
          .containsPattern(
              "\n\\| 50 \\| "
                  + policy
                  + " \\| [0-9]+ \\| [0-9.]+ \\| [0-9.]+ \\| [0-9.]+ \\|"
                  + " 0 \\| 0 \\| [0-9.]+ \\| [0-9.]+ \\|");
    }
    assertThat(medians.lines().filter(l -> l.startsWith("| 50 |"))).hasSize(policies.size());
    // Each run's row starts with its round; the second round starts with the policy that ran
    // second in the first, and ends with the one that ran first.
    assertThat(
            runs.lines()
                .filter(l -> l.matches("\\| [12] \\| 50 \\| .*"))
                .map(l -> l.split(" \\| ", -1)[0] + " " + l.split(" \\| ", -1)[2]))
        .containsExactly(
            "| 1 none",
            "| 1 fixed 1000 us",
            "| 1 fixed 5000 us",
            "| 1 adaptive",
            "| 2 fixed 1000 us",
            "| 2 fixed 5000 us",
            "| 2 adaptive",
            "| 2 none");
  }

  @Test
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  void plannedSlownessRunsWithoutAndWithAnnouncements() throws Exception {
    CliRun r =
        run(
            "bench",
            "--planned-slowness",
            "--quick",
            "--seconds",
            "1",
            "--rate",
            "100",
            "--out",
            dir.toString());
    assertThat(r.exit()).as(r.err()).isZero();
    String table = Files.readString(dir.resolve("planned-slowness.md"), StandardCharsets.UTF_8);
    assertThat(table)
        .containsPattern(
            "\\| no \\| [0-9]+ \\| [0-9.]+ \\| [0-9.]+ \\| [0-9.]+ \\| [0-9.]+ \\| 0 \\|"
                + " 0 \\|");
    assertThat(table)
        .containsPattern(
            "\\| yes \\| [0-9]+ \\| [0-9.]+ \\| [0-9.]+ \\| [0-9.]+ \\| [0-9.]+ \\| 0 \\|"
                + " [0-9]+ \\|");
  }

  @Test
  void aBadRateIsOneLine() {
    assertThat(run("bench", "--batching", "--batching-rates", "0").usageError())
        .contains("rates must be positive");
  }

  @Test
  void aBadPolicyOrRoundCountIsOneLine() {
    assertThat(run("bench", "--batching", "--batching-policies", "none,soon").usageError())
        .contains("batching must be 'adaptive', 'none' or an interval in microseconds, not 'soon'");
    assertThat(run("bench", "--batching", "--batching-rounds", "0").usageError())
        .contains("rounds must be in 1..20, was 0");
  }
}
