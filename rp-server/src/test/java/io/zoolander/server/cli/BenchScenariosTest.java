package io.zoolander.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bench scenarios {@code --batching} and {@code --planned-slowness}, end to end with tiny counts: every policy or
 * variant gets its row, every write or read completes, and the table is written. No speed is asserted.
 */
class BenchScenariosTest {

  @TempDir Path dir;

  private record Run(int exit, String out, String err) {}

  private static Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exit = ZoolanderCommand.execute(args, new PrintWriter(out, true), new PrintWriter(err, true));
    return new Run(exit, out.toString(), err.toString());
  }

  @Test
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  void batchingComparesEveryPolicyAtEveryRate() throws Exception {
    Run r = run("bench", "--batching", "--quick", "--duplicates", "1", "--batching-rates", "50", "--seconds", "1",
        "--out", dir.toString());
    assertThat(r.exit()).as(r.err()).isZero();
    String table = Files.readString(dir.resolve("batching.md"), StandardCharsets.UTF_8);
    for (String policy : new String[] {"none", "fixed 1000 us", "fixed 5000 us", "adaptive"}) {
      assertThat(table).containsPattern("\\| 50 \\| " + policy + " \\| [0-9]+ \\| [0-9.]+ \\| [0-9.]+ \\| [0-9.]+ \\|"
          + " 0 \\| 0 \\|");
    }
  }

  @Test
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  void plannedSlownessRunsWithoutAndWithAnnouncements() throws Exception {
    Run r = run("bench", "--planned-slowness", "--quick", "--seconds", "1", "--rate", "100", "--out",
        dir.toString());
    assertThat(r.exit()).as(r.err()).isZero();
    String table = Files.readString(dir.resolve("planned-slowness.md"), StandardCharsets.UTF_8);
    assertThat(table).containsPattern("\\| no \\| [0-9]+ \\| [0-9.]+ \\| [0-9.]+ \\| [0-9.]+ \\| [0-9.]+ \\| 0 \\|"
        + " 0 \\|");
    assertThat(table).containsPattern("\\| yes \\| [0-9]+ \\| [0-9.]+ \\| [0-9.]+ \\| [0-9.]+ \\| [0-9.]+ \\| 0 \\|"
        + " [0-9]+ \\|");
  }

  @Test
  void aBadRateIsOneLine() {
    Run r = run("bench", "--batching", "--batching-rates", "0");
    assertThat(r.exit()).isNotZero();
    assertThat(r.err()).contains("rates must be positive");
  }
}
