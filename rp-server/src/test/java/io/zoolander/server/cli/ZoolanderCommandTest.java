package io.zoolander.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ZoolanderCommandTest {
  @TempDir Path dir;

  private record Run(int exit, String out, String err) {}

  private static Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exit = ZoolanderCommand.execute(args, new PrintWriter(out, true), new PrintWriter(err, true));
    return new Run(exit, out.toString(), err.toString());
  }

  @Test
  void predictExamplePrintsOneRowPerDuplicateCountAndTheTradeOff() throws IOException {
    Path chart = dir.resolve("predict.png");
    Run r = run("predict", "--example", "--duplicates", "1,2,4", "--tradeoff", "--chart", chart.toString());
    assertThat(r.exit()).isZero();
    assertThat(Files.size(chart)).isPositive();
    assertThat(r.out()).contains("chart written to");
    assertThat(r.out()).contains("duplicates", "thesis (MG1)", "distribution", "RP@5%");
    assertThat(r.out().lines().filter(l -> l.matches("\\s+[124]\\s+0\\.050.*"))).hasSize(3);
    assertThat(r.err()).isEmpty();
  }

  @Test
  void predictFromASampleFile() throws IOException {
    Path file = dir.resolve("samples.txt");
    StringBuilder text = new StringBuilder("# setData latencies in ms\n");
    for (int i = 1; i <= 1000; i++) {
      text.append(i % 100 == 0 ? 20.0 : 0.5 + i % 7 * 0.1).append('\n');
    }
    Files.writeString(file, text);
    Run r = run("predict", "--samples", file.toString(), "--tau-ms", "2", "--rate", "100", "--duplicates", "1,2");
    assertThat(r.exit()).isZero();
    // 1% of the samples exceed 2 ms: one idle-ish duplicate predicts about 0.99, two about 0.9999.
    assertThat(r.out()).contains("tau 2.000 ms, 100.0 arrivals/s");
  }

  @Test
  void predictFromAnHdrHistogramLog() throws IOException {
    Path file = dir.resolve("latency.hlog");
    Histogram histogram = new Histogram(3);
    for (int i = 0; i < 1000; i++) {
      histogram.recordValue(800 + i); // microseconds
    }
    HistogramLogWriter writer = new HistogramLogWriter(file.toFile());
    writer.outputLogFormatVersion();
    writer.outputLegend();
    writer.outputIntervalHistogram(histogram);
    writer.close();
    Run r = run("predict", "--samples", file.toString(), "--duplicates", "1");
    assertThat(r.exit()).isZero();
    assertThat(r.out()).contains("mean 1.30");
  }

  @Test
  void planForABudgetAndATarget() {
    Run r = run("plan", "--example", "--rate", "33", "--nodes", "8", "--target-sla", "0.9999");
    assertThat(r.exit()).isZero();
    assertThat(r.out()).contains("best with at most 8 nodes:", "fewest nodes for SLA 0.9999:", "highest arrival rate");
  }

  @Test
  void badFlagsAndFilesGiveOneLineAndNonZeroExit() throws IOException {
    Run unknown = run("predict", "--example", "--bogus");
    assertThat(unknown.exit()).isEqualTo(2);
    assertThat(unknown.err()).startsWith("zoolander: Unknown option: '--bogus'").doesNotContain("Exception");

    Run missing = run("predict", "--samples", dir.resolve("nope.txt").toString());
    assertThat(missing.exit()).isEqualTo(1);
    assertThat(missing.err().strip()).matches("zoolander: sample file .*nope.txt does not exist");

    Path bad = dir.resolve("bad.txt");
    Files.writeString(bad, "1.0\n2.0\nabc\n");
    Run badLine = run("predict", "--samples", bad.toString());
    assertThat(badLine.exit()).isEqualTo(1);
    assertThat(badLine.err().strip()).isEqualTo("zoolander: " + bad + " line 3: not a latency in ms: 'abc'");

    Path negative = dir.resolve("negative.txt");
    Files.writeString(negative, "1.0\n-2\n");
    assertThat(run("predict", "--samples", negative.toString()).err()).contains("line 2", ">= 0");

    Path empty = dir.resolve("empty.txt");
    Files.writeString(empty, "# nothing\n\n");
    assertThat(run("predict", "--samples", empty.toString()).err()).contains("holds no latency values");

    Run tau = run("predict", "--example", "--tau-ms", "-1");
    assertThat(tau.exit()).isEqualTo(1);
    assertThat(tau.err().strip()).isEqualTo("zoolander: --tau-ms must be a finite number >= 0, was -1.0");

    Run noSource = run("predict");
    assertThat(noSource.exit()).isEqualTo(2);
    assertThat(noSource.err()).contains("--samples", "--example").doesNotContain("Exception");

    Run planWithoutGoal = run("plan", "--example", "--rate", "10");
    assertThat(planWithoutGoal.exit()).isEqualTo(1);
    assertThat(planWithoutGoal.err().strip()).isEqualTo("zoolander: give --nodes, --target-sla or both");

    assertThat(run("plan", "--example", "--rate", "10", "--target-sla", "1.5").err())
        .contains("--target-sla must be in (0, 1)");
  }
}
