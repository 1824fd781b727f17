package io.zoolander.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.HashMap;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.apache.commons.math3.random.RandomGenerator;
import org.apache.commons.math3.random.Well19937c;
import org.junit.jupiter.api.Test;

class EmpiricalLatencyTest {
  private static final double EXACT = 1e-12;

  // Sorted: 1, 2, 2, 3, 4 (a tie at 2). Mean 12/5 = 2.4; squared deviations 1.96 + 0.16 + 0.16 +
  // 0.36 + 2.56 = 5.2,
  // population variance 5.2/5 = 1.04 (the variance of the empirical distribution itself); scv
  // 1.04/2.4^2 = 13/72.
  private final EmpiricalLatency withTie = EmpiricalLatency.of(3, 1, 2, 2, 4);

  @Test
  void cdfIsTheStepFunctionOfTheSamplesIncludingTies() {
    assertThat(withTie.cdf(-1)).isZero();
    assertThat(withTie.cdf(0.999)).isZero();
    assertThat(withTie.cdf(1)).isEqualTo(0.2);
    assertThat(withTie.cdf(1.5)).isEqualTo(0.2);
    assertThat(withTie.cdf(2)).as("both tied samples count at 2").isEqualTo(0.6);
    assertThat(withTie.cdf(2.999)).isEqualTo(0.6);
    assertThat(withTie.cdf(3)).isEqualTo(0.8);
    assertThat(withTie.cdf(4)).isEqualTo(1.0);
    assertThat(withTie.cdf(1e9)).isEqualTo(1.0);
  }

  @Test
  void quantileIsTheSmallestSampleWhoseCdfReachesP() {
    assertThat(withTie.quantile(0)).isEqualTo(1);
    assertThat(withTie.quantile(0.2)).isEqualTo(1);
    assertThat(withTie.quantile(0.2000001)).isEqualTo(2);
    assertThat(withTie.quantile(0.6)).isEqualTo(2);
    assertThat(withTie.quantile(0.6000001)).isEqualTo(3);
    assertThat(withTie.quantile(0.8)).isEqualTo(3);
    assertThat(withTie.quantile(0.99)).isEqualTo(4);
    assertThat(withTie.quantile(1)).isEqualTo(4);
  }

  @Test
  void quantileInvertsCdfExactlyAtEverySample() {
    // The cdf reports k/n as a double; p*n can round above k (7.0/25*25 == 7.000000000000001), so a
    // quantile
    // computed as ceil(p*n) would jump to the next sample. Check every k for many n.
    for (int n = 1; n <= 200; n++) {
      double[] samples = new double[n];
      for (int i = 0; i < n; i++) {
        samples[i] = i + 1;
      }
      EmpiricalLatency e = EmpiricalLatency.of(samples);
      for (int k = 1; k <= n; k++) {
        assertThat(e.quantile(e.cdf(k))).as("quantile(cdf(%d)) with n=%d", k, n).isEqualTo(k);
      }
    }
  }

  @Test
  void meanVarianceAndScvAreThoseOfTheSamples() {
    assertThat(withTie.meanMs()).isCloseTo(2.4, within(EXACT));
    assertThat(withTie.varianceMs2()).isCloseTo(1.04, within(EXACT));
    assertThat(withTie.scv()).isCloseTo(13.0 / 72, within(EXACT));
    assertThat(withTie.sampleCount()).isEqualTo(5);
    assertThat(withTie.minMs()).isEqualTo(1);
    assertThat(withTie.maxMs()).isEqualTo(4);
  }

  @Test
  void singleSampleIsAConstant() {
    EmpiricalLatency one = EmpiricalLatency.of(0.7);
    assertThat(one.cdf(0.69)).isZero();
    assertThat(one.cdf(0.7)).isEqualTo(1);
    assertThat(one.quantile(0)).isEqualTo(0.7);
    assertThat(one.quantile(1)).isEqualTo(0.7);
    assertThat(one.meanMs()).isEqualTo(0.7);
    assertThat(one.varianceMs2()).isZero();
    assertThat(one.scv()).isZero();
  }

  @Test
  void allZeroSamplesHaveZeroScvRatherThanNaN() {
    EmpiricalLatency zeros = EmpiricalLatency.of(0, 0, 0);
    assertThat(zeros.meanMs()).isZero();
    assertThat(zeros.scv()).isZero();
    assertThat(zeros.cdf(0)).isEqualTo(1);
  }

  @Test
  void fromHdrHistogramInMicroseconds() {
    // Values below 2048 are exact buckets at 3 significant digits: 500 us x3, 1000 us x1, 1500 us
    // x1.
    Histogram h = new Histogram(3);
    h.recordValueWithCount(500, 3);
    h.recordValue(1000);
    h.recordValue(1500);
    EmpiricalLatency e = EmpiricalLatency.of(h, 1000);

    assertThat(e.sampleCount()).isEqualTo(5);
    assertThat(e.cdf(0.4999)).isZero();
    assertThat(e.cdf(0.5)).isEqualTo(0.6);
    assertThat(e.cdf(1.0)).isEqualTo(0.8);
    assertThat(e.cdf(1.5)).isEqualTo(1.0);
    assertThat(e.quantile(0.6)).isEqualTo(0.5);
    assertThat(e.quantile(0.7)).isEqualTo(1.0);
    assertThat(e.quantile(0.81)).isEqualTo(1.5);
    // Mean (1.5 + 1.0 + 1.5)/5 = 0.8; variance (3*0.09 + 0.04 + 0.49)/5 = 0.16; scv 0.16/0.64 =
    // 0.25.
    assertThat(e.meanMs()).isCloseTo(0.8, within(EXACT));
    assertThat(e.varianceMs2()).isCloseTo(0.16, within(EXACT));
    assertThat(e.scv()).isCloseTo(0.25, within(EXACT));
  }

  @Test
  void fromHdrHistogramUsesTheBucketsHighestEquivalentValue() {
    // 10000 us lies where buckets are 8 us wide (8192..16383 at 3 significant digits): bucket
    // [10000, 10007].
    Histogram h = new Histogram(3);
    h.recordValue(10_000);
    assertThat(h.highestEquivalentValue(10_000)).isEqualTo(10_007);
    EmpiricalLatency e = EmpiricalLatency.of(h, 1000);
    assertThat(e.quantile(0.5))
        .as("conservative for an SLA: the top of the bucket")
        .isEqualTo(10.007);
    assertThat(e.cdf(10.006)).isZero();
    assertThat(e.cdf(10.007)).isEqualTo(1);
  }

  @Test
  void fromHdrHistogramInNanoseconds() {
    Histogram h = new Histogram(3);
    h.recordValueWithCount(1000, 2); // 1 us = 0.001 ms
    EmpiricalLatency e = EmpiricalLatency.of(h, 1e6);
    assertThat(e.meanMs()).isCloseTo(0.001, within(EXACT));
    assertThat(e.sampleCount()).isEqualTo(2);
  }

  @Test
  void sampleDrawsOnlyObservedValuesWithTheirFrequencies() {
    // 1.0 x1, 2.0 x2, 5.0 x7: probabilities 0.1, 0.2, 0.7.
    EmpiricalLatency e = EmpiricalLatency.of(5, 1, 5, 2, 5, 5, 2, 5, 5, 5);
    RandomGenerator rng = new Well19937c(20240601L);
    int draws = 100_000;
    Map<Double, Integer> counts = new HashMap<>();
    for (int i = 0; i < draws; i++) {
      counts.merge(e.sample(rng), 1, Integer::sum);
    }
    assertThat(counts).containsOnlyKeys(1.0, 2.0, 5.0);
    Map<Double, Double> expected = Map.of(1.0, 0.1, 2.0, 0.2, 5.0, 0.7);
    expected.forEach(
        (value, p) -> {
          double standardError = Math.sqrt(p * (1 - p) / draws);
          assertThat((double) counts.get(value) / draws)
              .as(
                  "frequency of %s; tolerance 5 binomial standard errors sqrt(p(1-p)/n) = %.5f (a seeded draw, a"
                      + " false failure would need a 5-sigma deviation)",
                  value, 5 * standardError)
              .isCloseTo(p, within(5 * standardError));
        });
  }

  @Test
  void sampleIsDeterministicForASeededGenerator() {
    double[] first = new double[20];
    double[] second = new double[20];
    RandomGenerator a = new Well19937c(7);
    RandomGenerator b = new Well19937c(7);
    for (int i = 0; i < 20; i++) {
      first[i] = withTie.sample(a);
      second[i] = withTie.sample(b);
    }
    assertThat(first).containsExactly(second);
  }

  @Test
  void badSamplesAreRejectedNamingTheParameter() {
    assertThatThrownBy(() -> EmpiricalLatency.of())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("samplesMs");
    assertThatThrownBy(() -> EmpiricalLatency.of(1, Double.NaN))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("samplesMs[1]");
    assertThatThrownBy(() -> EmpiricalLatency.of(1, -0.5))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("samplesMs[1]");
    assertThatThrownBy(() -> EmpiricalLatency.of(Double.POSITIVE_INFINITY))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("samplesMs[0]");
    assertThatThrownBy(() -> EmpiricalLatency.of((double[]) null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("samplesMs");
  }

  @Test
  void badHistogramsAreRejectedNamingTheParameter() {
    Histogram h = new Histogram(3);
    assertThatThrownBy(() -> EmpiricalLatency.of(h, 1000))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("histogram");
    h.recordValue(10);
    assertThatThrownBy(() -> EmpiricalLatency.of(h, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unitsPerMs");
    assertThatThrownBy(() -> EmpiricalLatency.of(h, Double.NaN))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unitsPerMs");
    assertThatThrownBy(() -> EmpiricalLatency.of(null, 1000))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("histogram");
  }

  @Test
  void badProbabilityIsRejectedNamingTheParameter() {
    assertThatThrownBy(() -> withTie.quantile(1.5))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("p ");
    assertThatThrownBy(() -> withTie.quantile(Double.NaN))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("p ");
  }
}
