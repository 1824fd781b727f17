package io.zoolander.server.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/**
 * The bench's confidence intervals against values from the textbooks' tables and from an
 * independent implementation (SciPy's binomial and beta distributions, computed once).
 */
class IntervalsTest {

  @Test
  void theMedianOfOneHundredSamplesLiesBetweenThe40thAnd61st() {
    // The classic table: n = 100, 95%: ranks 40 and 61.
    assertThat(Intervals.quantileRanks(100, 0.5, 0.95)).containsExactly(40, 61);
  }

  @Test
  void aP99NeedsAtLeast368SamplesForAnUpperBound() {
    assertThat(Intervals.quantileRanks(367, 0.99, 0.95)).containsExactly(359, 368);
    assertThat(Intervals.quantileRanks(368, 0.99, 0.95)).containsExactly(360, 368);
    assertThat(Intervals.quantileRanks(320, 0.99, 0.95)).containsExactly(313, 321);
    assertThat(Intervals.quantileRanks(2896, 0.99, 0.95)).containsExactly(2856, 2878);
  }

  @Test
  void withVeryFewSamplesNeitherSideIsBounded() {
    assertThat(Intervals.quantileRanks(3, 0.5, 0.95)).containsExactly(0, 4);
    assertThat(Intervals.quantileRanks(0, 0.5, 0.95)).containsExactly(0, 1);
  }

  @Test
  void aHistogramsQuantileIntervalIsTheValuesAtThoseRanks() {
    Histogram h = new Histogram(3);
    for (int v = 1; v <= 100; v++) {
      h.recordValue(v);
    }
    Intervals.Interval median = Intervals.quantile(h, 0.5, 1e3, 0.95);
    assertThat(median.low()).isEqualTo(0.040);
    assertThat(median.high()).isEqualTo(0.061);

    Intervals.Interval p99 = Intervals.quantile(h, 0.99, 1e3, 0.95);
    assertThat(p99.low()).isEqualTo(0.097); // rank 97 of 100
    assertThat(p99.high()).isInfinite();
  }

  @Test
  void aRatioOfMissRatesHasTheExactConditionalInterval() {
    // SciPy: beta.ppf(0.025, 12, 29) = 0.165627, beta.ppf(0.975, 13, 28) = 0.465316.
    Intervals.Interval even = Intervals.rateRatio(12, 1000, 28, 1000, 0.95);
    assertThat(even.low()).isCloseTo(0.198505, within(1e-5));
    assertThat(even.high()).isCloseTo(0.870265, within(1e-5));
    // Twice the samples behind the same misses: half the rate.
    Intervals.Interval halved = Intervals.rateRatio(12, 2000, 28, 1000, 0.95);
    assertThat(halved.low()).isCloseTo(0.099253, within(1e-5));
    assertThat(halved.high()).isCloseTo(0.435132, within(1e-5));
    Intervals.Interval rare = Intervals.rateRatio(10, 10_000, 100, 10_000, 0.95);
    assertThat(rare.low()).isCloseTo(0.046528, within(1e-5));
    assertThat(rare.high()).isCloseTo(0.191661, within(1e-5));
  }

  @Test
  void noMissesOnOneSideLeavesThatSideOfTheRatioOpen() {
    Intervals.Interval none = Intervals.rateRatio(0, 1000, 5, 1000, 0.95);
    assertThat(none.low()).isZero();
    assertThat(none.high()).isCloseTo(1.091279, within(1e-5));
    Intervals.Interval noneThere = Intervals.rateRatio(5, 1000, 0, 1000, 0.95);
    assertThat(noneThere.low()).isCloseTo(0.916356, within(1e-5));
    assertThat(noneThere.high()).isInfinite();
    Intervals.Interval neither = Intervals.rateRatio(0, 1000, 0, 1000, 0.95);
    assertThat(neither.low()).isZero();
    assertThat(neither.high()).isInfinite();
  }

  @Test
  void badArgumentsAreRefusedNamingWhatIsWrong() {
    assertThatThrownBy(() -> Intervals.quantileRanks(-1, 0.5, 0.95))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("n must be >= 0");
    assertThatThrownBy(() -> Intervals.quantileRanks(10, 1, 0.95))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("q must be in (0, 1)");
    assertThatThrownBy(() -> Intervals.quantileRanks(10, 0.5, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("confidence must be in (0, 1)");
    assertThatThrownBy(() -> Intervals.quantile(new Histogram(3), 0.5, 1, 0.95))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no samples");
    assertThatThrownBy(() -> Intervals.rateRatio(3, 2, 0, 10, 0.95))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("exceed");
    assertThatThrownBy(() -> Intervals.rateRatio(0, 0, 0, 10, 0.95))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("sample sizes must be > 0");
    assertThatThrownBy(() -> new Intervals.Interval(2, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not an interval");
  }
}
