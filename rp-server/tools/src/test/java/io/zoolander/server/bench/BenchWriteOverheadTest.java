package io.zoolander.server.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/**
 * The write overhead table of {@code bench.md}, on histograms built by hand: each sequenced write's
 * p50 against plain's plus 1.5 loopback round trips, paced at the bench's rate and at its write
 * rate, and its p99 against 1.3x plain's. Nothing is timed.
 */
class BenchWriteOverheadTest {

  /** {@code count} values of {@code micros}. */
  private static Histogram constant(long micros, int count) {
    Histogram h = new Histogram(3);
    h.recordValueWithCount(micros, count);
    return h;
  }

  private static BenchResult.SystemResult system(String name, boolean anomalies, Histogram writes) {
    return new BenchResult.SystemResult(
        name,
        name,
        anomalies,
        Double.NaN,
        400,
        400,
        0,
        BenchResult.Latency.of(constant(100, 10), 0, Double.NaN),
        BenchResult.Latency.of(writes, 0, Double.NaN),
        1,
        1,
        Double.NaN);
  }

  /** A paced loopback whose every round trip took {@code micros} (the histogram is in ns). */
  private static Optional<LoopbackRoundTrip.Result> loopback(double ratePerSec, long micros) {
    return Optional.of(
        new LoopbackRoundTrip.Result(100, 0, ratePerSec, 64, 1, 1, constant(micros * 1_000, 100)));
  }

  private static BenchResult result(
      List<BenchResult.SystemResult> systems, Optional<LoopbackRoundTrip.Result> atWriteRate) {
    return new BenchResult(
        new BenchResult.Machine(2, "test", -1, "test", "test", 0, 0),
        BenchSettings.builder().build(),
        Instant.EPOCH,
        1,
        Double.NaN,
        Double.NaN,
        systems,
        Optional.empty(),
        Optional.empty(),
        loopback(400, 40),
        atWriteRate,
        Optional.empty(),
        Path.of("."));
  }

  @Test
  void eachSequencedWriteIsJudgedAgainstPlainPlusOneAndAHalfRoundTrips() {
    // plain: p50 = p99 = 400 us; round trips 40 us at 400/s, 300 us at 40/s.
    // The allowance: 0.460 ms at the bench's rate, 0.850 ms at the write rate; p99 up to 0.520.
    BenchResult r =
        result(
            List.of(
                system("plain", false, constant(400, 100)),
                system("rp-1", false, constant(450, 100)), // within both, p99 1.125x
                system("rp-2", false, constant(700, 100)), // within the write rate's only
                system("rp-2-hedged", false, constant(5_000, 100)), // not judged
                system("rp-1", true, constant(9_000, 100))), // injector on: not judged
            loopback(40, 300));
    StringBuilder md = new StringBuilder();
    BenchReport.writeOverhead(r, md);

    assertThat(md.toString())
        .contains("## Write overhead against its floor (injector off)")
        .contains("paced at the bench's rate: 0.460 ms; paced at the write rate: 0.850 ms")
        .contains("| rp-1 | 0.450 | 1.13x | yes / yes | 0.450 | 1.13x | yes |")
        .contains("| rp-2 | 0.700 | 1.75x | no / yes | 0.700 | 1.75x | no |")
        .doesNotContain("rp-2-hedged")
        .doesNotContain("9.0");
  }

  @Test
  void withoutTheWriteRatesRoundTripOnlyTheBenchsRateIsUsed() {
    BenchResult r =
        result(
            List.of(
                system("plain", false, constant(400, 100)),
                system("rp-1", false, constant(450, 100))),
            Optional.empty());
    StringBuilder md = new StringBuilder();
    BenchReport.writeOverhead(r, md);

    assertThat(md.toString())
        .contains("paced at the bench's rate: 0.460 ms.")
        .doesNotContain("write rate:")
        .contains("| rp-1 | 0.450 | 1.13x | yes | 0.450 | 1.13x | yes |");
  }
}
