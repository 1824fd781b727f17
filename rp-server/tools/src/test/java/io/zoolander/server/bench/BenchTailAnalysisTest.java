package io.zoolander.server.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/**
 * The computations behind the miss-rate curves and the cost/benefit frontier, on histograms built
 * by hand: nothing is timed.
 */
class BenchTailAnalysisTest {

  /** One read at each of the given latencies in microseconds. */
  private static Histogram reads(long... micros) {
    Histogram h = new Histogram(3);
    for (long v : micros) {
      h.recordValue(v);
    }
    return h;
  }

  /** Reads of 1, 2, ..., n us. */
  private static Histogram uniform(int n) {
    Histogram h = new Histogram(3);
    for (int v = 1; v <= n; v++) {
      h.recordValue(v);
    }
    return h;
  }

  /** {@code fast} reads of 100 us and {@code slow} of 5 ms. */
  private static Histogram fastAndSlow(int fast, int slow) {
    Histogram h = new Histogram(3);
    h.recordValueWithCount(100, fast);
    if (slow > 0) {
      h.recordValueWithCount(5_000, slow);
    }
    return h;
  }

  private static BenchResult.SystemResult system(
      String name, boolean anomalies, Histogram reads, long failed, double messagesPerRead) {
    return new BenchResult.SystemResult(
        name,
        name,
        anomalies,
        Double.NaN,
        500,
        500,
        0,
        BenchResult.Latency.of(reads, failed, Double.NaN),
        BenchResult.Latency.of(new Histogram(3), 0, Double.NaN),
        messagesPerRead,
        1,
        Double.NaN);
  }

  /** plain: 1..1000 us, so its p50 is 0.5 ms, p90 0.9, p99 0.99, p99.9 0.999. */
  private static List<BenchResult.SystemResult> results() {
    List<BenchResult.SystemResult> r = new ArrayList<>();
    r.add(system("plain", false, uniform(1000), 0, 1.0));
    r.add(system("balanced", false, uniform(500), 0, 1.0)); // 1..500 us, misses no tau >= 0.5 ms
    r.add(system("hedged", false, fastAndSlow(995, 5), 0, 1.1));
    r.add(system("rp-2", false, fastAndSlow(1000, 0), 0, 2.0));
    r.add(system("rp-4", false, fastAndSlow(1000, 0), 0, 4.0));
    // the same names with the injector on, slower: must not mix with the others
    r.add(system("plain", true, reads(10_000, 20_000, 30_000, 40_000), 0, 1.0));
    r.add(system("rp-2", true, reads(1_000, 1_000, 1_000, 50_000), 0, 2.0));
    return r;
  }

  @Test
  void aMissIsAReadSlowerThanTauOrAFailedOne() {
    Histogram h = uniform(1000);
    assertThat(TailAnalysis.missFraction(h, 0, 0.99)).isCloseTo(0.01, within(1e-12));
    assertThat(TailAnalysis.missFraction(h, 0, 1.0)).isZero();
    assertThat(TailAnalysis.missFraction(h, 0, 0.0)).isEqualTo(1.0);
    // 10 failed reads miss every tau
    assertThat(TailAnalysis.missFraction(h, 10, 10.0)).isCloseTo(10 / 1010.0, within(1e-12));
    assertThat(TailAnalysis.missFraction(h, 10, 0.5)).isCloseTo(510 / 1010.0, within(1e-12));
    assertThat(TailAnalysis.missFraction(new Histogram(3), 0, 1.0)).isNaN();
    assertThat(TailAnalysis.missFraction(h, 0, Double.NaN)).isNaN();
    // the report's latency summary counts misses the same way
    assertThat(BenchResult.Latency.of(h, 10, 0.5).missFraction())
        .isEqualTo(TailAnalysis.missFraction(h, 10, 0.5));
  }

  @Test
  void messagesPerReadDividesWhatWasSentByTheReadsStarted() {
    assertThat(TailAnalysis.messagesPerRead(1030, 1000)).isEqualTo(1.03);
    assertThat(TailAnalysis.messagesPerRead(4000, 1000)).isEqualTo(4.0);
    assertThat(TailAnalysis.messagesPerRead(0, 0)).isNaN();
  }

  @Test
  void tausAreLogSpacedAndIncludeBothEnds() {
    List<Double> taus = TailAnalysis.logSpaced(1, 1000, 4);
    assertThat(taus).hasSize(4);
    assertThat(taus.get(0)).isEqualTo(1.0);
    assertThat(taus.get(1)).isCloseTo(10, within(1e-9));
    assertThat(taus.get(2)).isCloseTo(100, within(1e-9));
    assertThat(taus.get(3)).isEqualTo(1000.0);
    assertThat(TailAnalysis.logSpaced(0, 1, 3).get(0)).isEqualTo(0.001); // 0 raised to 1 us
    assertThat(TailAnalysis.logSpaced(2, 2, 5)).containsOnly(2.0);
    assertThat(TailAnalysis.logSpaced(2, 5, 1)).containsExactly(2.0);
  }

  @Test
  void missCurvesRunFromPlainsP50ToItsP999ForEverySystemOfTheCondition() {
    Optional<TailAnalysis.Curves> off =
        TailAnalysis.missCurves(results(), false, TailAnalysis.CURVE_POINTS);
    assertThat(off).isPresent();
    TailAnalysis.Curves c = off.get();
    assertThat(c.anomalies()).isFalse();
    assertThat(c.tausMs()).hasSize(20).isSorted();
    assertThat(c.tausMs().get(0)).isEqualTo(0.5);
    assertThat(c.tausMs().get(19)).isEqualTo(0.999);
    assertThat(c.systems())
        .extracting(TailAnalysis.MissCurve::system)
        .containsExactly("plain", "balanced", "hedged", "rp-2", "rp-4");
    Map<String, TailAnalysis.MissCurve> by =
        c.systems().stream().collect(Collectors.toMap(TailAnalysis.MissCurve::system, x -> x));
    List<Double> plain = by.get("plain").missFractions();
    assertThat(plain).hasSize(20);
    assertThat(plain.get(0)).isCloseTo(0.5, within(1e-12));
    assertThat(plain.get(19)).isCloseTo(0.001, within(1e-12));
    for (int i = 1; i < plain.size(); i++) {
      assertThat(plain.get(i)).isLessThanOrEqualTo(plain.get(i - 1)); // a curve never rises
    }
    assertThat(by.get("balanced").missFractions()).containsOnly(0.0);
    assertThat(by.get("hedged").missFractions())
        .allSatisfy(m -> assertThat(m).isCloseTo(0.005, within(1e-12)));
    assertThat(by.get("rp-4").messagesPerRead()).isEqualTo(4.0);

    TailAnalysis.Curves on = TailAnalysis.missCurves(results(), true, 5).orElseThrow();
    // plain's p50 with the injector, at the histogram's resolution (3 significant digits)
    assertThat(on.tausMs().get(0)).isCloseTo(20.0, within(0.02));
    assertThat(on.systems())
        .extracting(TailAnalysis.MissCurve::system)
        .containsExactly("plain", "rp-2");
    // without plain in a condition there is no tau
    assertThat(TailAnalysis.missCurves(results().subList(1, 5), false, 5)).isEmpty();
  }

  @Test
  void theFrontierKeepsTheSystemsNoOtherBeatsOnBothCostAndMisses() {
    List<TailAnalysis.Frontier> frontiers = TailAnalysis.frontiers(results(), false);
    assertThat(frontiers)
        .extracting(TailAnalysis.Frontier::percentile)
        .containsExactly(90.0, 99.0, 99.9);
    assertThat(frontiers)
        .extracting(TailAnalysis.Frontier::tauMs)
        .containsExactly(0.9, 0.99, 0.999);
    TailAnalysis.Frontier p99 = frontiers.get(1);
    Map<String, TailAnalysis.Point> at99 =
        p99.points().stream().collect(Collectors.toMap(TailAnalysis.Point::system, x -> x));
    assertThat(at99.get("plain").missFraction()).isCloseTo(0.01, within(1e-12));
    assertThat(at99.get("hedged").missFraction()).isCloseTo(0.005, within(1e-12));
    assertThat(at99.get("hedged").messagesPerRead()).isEqualTo(1.1);
    // balanced misses nothing at one message: it beats plain, hedged and the RPs
    assertThat(p99.points().stream().filter(TailAnalysis.Point::onFrontier))
        .extracting(TailAnalysis.Point::system)
        .containsExactly("balanced");

    // without balanced: plain (cheapest), hedged (fewer misses for 10% more), rp-2 (none);
    // rp-4 misses no less than rp-2 for twice the messages
    List<BenchResult.SystemResult> noBalanced = new ArrayList<>(results());
    noBalanced.remove(1);
    List<TailAnalysis.Frontier> f = TailAnalysis.frontiers(noBalanced, false);
    assertThat(onFrontier(f.get(0))).containsExactly("plain", "hedged", "rp-2");
    assertThat(onFrontier(f.get(1))).containsExactly("plain", "hedged", "rp-2");
    // at plain's p99.9, plain misses 0.1% and hedged 0.5% for more messages: hedged is off it
    assertThat(onFrontier(f.get(2))).containsExactly("plain", "rp-2");

    assertThat(TailAnalysis.frontiers(results(), true)).hasSize(3);
    assertThat(TailAnalysis.frontiers(List.of(), false)).isEmpty();
  }

  private static List<String> onFrontier(TailAnalysis.Frontier f) {
    return f.points().stream()
        .filter(TailAnalysis.Point::onFrontier)
        .map(TailAnalysis.Point::system)
        .toList();
  }

  @Test
  void paretoFrontIgnoresNanAndKeepsTies() {
    List<double[]> points =
        List.of(
            new double[] {1, 0.01},
            new double[] {1, 0.01}, // a tie: both stay
            new double[] {2, 0.02}, // dominated
            new double[] {Double.NaN, 0}, // unmeasured: never on it, dominates nothing
            new double[] {4, 0});
    assertThat(TailAnalysis.paretoFront(points)).containsExactly(true, true, false, false, true);
  }
}
