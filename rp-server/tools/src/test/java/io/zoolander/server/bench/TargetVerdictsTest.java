package io.zoolander.server.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/**
 * The data path's targets judged with their intervals, on histograms built by hand: met, not met,
 * and undecided when a run has too few samples. Nothing is timed.
 */
class TargetVerdictsTest {

  /** {@code count} values spread evenly over {@code [fromMicros, toMicros)}. */
  private static Histogram spread(long fromMicros, long toMicros, int count) {
    Histogram h = new Histogram(3);
    for (int i = 0; i < count; i++) {
      h.recordValue(fromMicros + (toMicros - fromMicros) * i / count);
    }
    return h;
  }

  /** {@code count} reads of which {@code slow} take 5 ms and the rest 200 us. */
  private static Histogram readsWithSlow(int count, int slow) {
    Histogram h = new Histogram(3);
    h.recordValueWithCount(200, count - slow);
    if (slow > 0) {
      h.recordValueWithCount(5_000, slow);
    }
    return h;
  }

  private static BenchResult.SystemResult system(
      String name, double tauMs, Histogram reads, Histogram writes) {
    return new BenchResult.SystemResult(
        name,
        name,
        false,
        tauMs,
        400,
        400,
        0,
        BenchResult.Latency.of(reads, 0, tauMs),
        BenchResult.Latency.of(writes, 0, tauMs),
        name.startsWith("rp-2") ? 2 : 1,
        1,
        Double.NaN);
  }

  private static BenchResult result(List<BenchResult.SystemResult> systems) {
    Histogram hops = new Histogram(3);
    hops.recordValueWithCount(40_000, 1000); // 40 us round trips, in ns
    return new BenchResult(
        new BenchResult.Machine(2, "test", -1, "test", "test", 0, 0),
        BenchSettings.builder().build(),
        Instant.EPOCH,
        1,
        1.0,
        Double.NaN,
        systems,
        Optional.empty(),
        Optional.empty(),
        Optional.of(new LoopbackRoundTrip.Result(1000, 0, 400, 64, 1, 1, hops)),
        Optional.empty(),
        Optional.empty(),
        Path.of("."));
  }

  private static TargetVerdicts.Row row(List<TargetVerdicts.Row> rows, String start) {
    return rows.stream().filter(r -> r.target().startsWith(start)).findFirst().orElseThrow();
  }

  @Test
  void enoughSamplesGiveAVerdictEitherWay() {
    double tau = 1.0;
    List<TargetVerdicts.Row> rows =
        TargetVerdicts.judge(
            result(
                List.of(
                    // plain: reads 300-700 us, 100 of 10,000 beyond tau; writes 400-800 us
                    system("plain", tau, readsWithSlow(10_000, 100), spread(400, 800, 10_000)),
                    system("hedged", tau, readsWithSlow(10_000, 200), spread(400, 800, 100)),
                    system("hedged-p50", tau, readsWithSlow(10_000, 50), spread(400, 800, 100)),
                    // rp-1: reads faster; writes 2 ms, far beyond plain + 1.5 x 40 us
                    system("rp-1", tau, spread(100, 200, 10_000), spread(2_000, 2_100, 10_000)),
                    // rp-2: 10 misses of 10,000; writes within the allowance
                    system("rp-2", tau, readsWithSlow(10_000, 10), spread(400, 500, 10_000)))));

    assertThat(row(rows, "`rp-1` read p50").verdict()).isEqualTo(TargetVerdicts.Verdict.MET);
    assertThat(row(rows, "`rp-1` write p50").verdict()).isEqualTo(TargetVerdicts.Verdict.NOT_MET);
    assertThat(row(rows, "`rp-1` write p99").verdict()).isEqualTo(TargetVerdicts.Verdict.NOT_MET);
    assertThat(row(rows, "`rp-2` write p50").verdict()).isEqualTo(TargetVerdicts.Verdict.MET);
    assertThat(row(rows, "`rp-2` write p99").verdict()).isEqualTo(TargetVerdicts.Verdict.MET);

    // 10 of 10,000 against 100 of 10,000: 0.1x, interval 0.047 to 0.19, within 0.5
    TargetVerdicts.Row vsPlain = row(rows, "`rp-2` misses tau");
    assertThat(vsPlain.target()).contains("`plain`'s (100 of 10000");
    assertThat(vsPlain.measured()).isEqualTo(0.1);
    assertThat(vsPlain.verdict()).isEqualTo(TargetVerdicts.Verdict.MET);
    // against the hedged system that missed least (50, not 200): interval 0.09 to 0.40 <= 1
    TargetVerdicts.Row vsHedged =
        rows.stream().filter(r -> r.target().contains("`hedged-p50`")).findFirst().orElseThrow();
    assertThat(vsHedged.verdict()).isEqualTo(TargetVerdicts.Verdict.MET);
    assertThat(rows).noneMatch(r -> r.target().contains("`hedged`'s"));

    assertThat(TargetVerdicts.markdown(rows))
        .contains("## The data path's targets, with 95% intervals")
        .contains("| **met** |")
        .contains("| **not met** |");
  }

  @Test
  void tooFewSamplesLeaveTheTailTargetsUndecided() {
    double tau = 1.0;
    List<TargetVerdicts.Row> rows =
        TargetVerdicts.judge(
            result(
                List.of(
                    system("plain", tau, readsWithSlow(2_000, 20), spread(400, 800, 300)),
                    system("hedged", tau, readsWithSlow(2_000, 20), spread(400, 800, 300)),
                    system("rp-1", tau, readsWithSlow(2_000, 12), spread(400, 1_000, 300)),
                    system("rp-2", tau, readsWithSlow(2_000, 8), spread(400, 1_000, 300)))));

    // 300 writes cannot bound a p99 from above: neither rp's nor plain's
    TargetVerdicts.Row p99 = row(rows, "`rp-1` write p99");
    assertThat(p99.measuredInterval().high()).isInfinite();
    assertThat(p99.verdict()).isEqualTo(TargetVerdicts.Verdict.UNDECIDED);
    // 8 misses against 20: 0.4x, but the interval reaches beyond 0.5
    TargetVerdicts.Row vsPlain = row(rows, "`rp-2` misses tau");
    assertThat(vsPlain.measured()).isEqualTo(0.4);
    assertThat(vsPlain.measuredInterval().high()).isGreaterThan(0.5);
    assertThat(vsPlain.verdict()).isEqualTo(TargetVerdicts.Verdict.UNDECIDED);
    assertThat(TargetVerdicts.markdown(rows)).contains("unbounded").contains("| undecided |");
  }

  @Test
  void withoutPlainNothingIsJudged() {
    List<TargetVerdicts.Row> rows =
        TargetVerdicts.judge(
            result(List.of(system("rp-1", 1.0, spread(100, 200, 100), spread(100, 200, 100)))));
    assertThat(rows).isEmpty();
    assertThat(TargetVerdicts.markdown(rows)).isEmpty();
  }

  @Test
  void withOneDuplicateTheTailIsNotJudged() {
    double tau = 1.0;
    List<TargetVerdicts.Row> rows =
        TargetVerdicts.judge(
            result(
                List.of(
                    system("plain", tau, readsWithSlow(10_000, 100), spread(400, 800, 10_000)),
                    system("rp-1", tau, readsWithSlow(10_000, 10), spread(400, 500, 10_000)))));
    assertThat(rows).isNotEmpty().noneMatch(r -> r.target().contains("misses tau"));
  }
}
