package io.zoolander.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.commons.math3.random.RandomGenerator;
import org.apache.commons.math3.random.Well19937c;
import org.junit.jupiter.api.Test;

class LatencyDistributionsTest {
  private static final double CLOSE = 1e-12;

  // Tabulated standard normal values used for the truncated normal by hand.
  private static final double PHI_DENSITY_AT_1 = 0.24197072451914337; // phi(1) = phi(-1)
  private static final double PHI_CDF_AT_1 = 0.8413447460685429; // Phi(1) = 1 - Phi(-1)

  @Test
  void constant() {
    LatencyDistribution c = LatencyDistributions.constant(2.5);
    assertThat(c.cdf(2.4999)).isZero();
    assertThat(c.cdf(2.5)).isEqualTo(1);
    assertThat(c.cdf(-1)).isZero();
    assertThat(c.quantile(0)).isEqualTo(2.5);
    assertThat(c.quantile(1)).isEqualTo(2.5);
    assertThat(c.meanMs()).isEqualTo(2.5);
    assertThat(c.varianceMs2()).isZero();
    assertThat(c.scv()).isZero();
    assertThat(c.sample(new Well19937c(1))).isEqualTo(2.5);
    assertThat(LatencyDistributions.constant(0).scv()).as("0/0 is defined as 0").isZero();
  }

  @Test
  void exponentialHasScvOne() {
    LatencyDistribution e = LatencyDistributions.exponential(2);
    assertThat(e.meanMs()).isCloseTo(2, within(CLOSE));
    assertThat(e.varianceMs2()).isCloseTo(4, within(CLOSE));
    assertThat(e.scv()).isCloseTo(1, within(CLOSE));
    assertThat(e.cdf(1)).isCloseTo(1 - Math.exp(-0.5), within(CLOSE));
    assertThat(e.cdf(-1)).isZero();
    assertThat(e.quantile(0.5)).isCloseTo(2 * Math.log(2), within(1e-9));
  }

  @Test
  void gammaHasScvOneOverShape() {
    LatencyDistribution g = LatencyDistributions.gamma(4, 0.25);
    assertThat(g.meanMs()).isCloseTo(1, within(CLOSE)); // k * theta
    assertThat(g.varianceMs2()).isCloseTo(0.25, within(CLOSE)); // k * theta^2
    assertThat(g.scv()).isCloseTo(0.25, within(CLOSE)); // 1/k
    // Shape 1 is the exponential: cdf 1 - exp(-x/theta).
    assertThat(LatencyDistributions.gamma(1, 3).cdf(2))
        .isCloseTo(1 - Math.exp(-2.0 / 3), within(1e-12));
    // Shape 2: cdf 1 - (1 + x/theta) exp(-x/theta).
    assertThat(LatencyDistributions.gamma(2, 1).cdf(1.5))
        .isCloseTo(1 - 2.5 * Math.exp(-1.5), within(1e-12));
  }

  @Test
  void logNormalMomentsAndMedian() {
    double mu = -1;
    double sigma = 0.5;
    LatencyDistribution l = LatencyDistributions.logNormal(mu, sigma);
    assertThat(l.meanMs()).isCloseTo(Math.exp(mu + sigma * sigma / 2), within(CLOSE));
    assertThat(l.scv()).isCloseTo(Math.expm1(sigma * sigma), within(1e-12));
    assertThat(l.quantile(0.5)).isCloseTo(Math.exp(mu), within(1e-9));
    assertThat(l.cdf(Math.exp(mu))).isCloseTo(0.5, within(1e-12));
  }

  @Test
  void logNormalWithMeanRoundTripsMeanAndScv() {
    for (double mean : new double[] {0.05, 0.4, 7}) {
      for (double scv : new double[] {0.01, 0.25, 1, 16}) {
        LatencyDistribution l = LatencyDistributions.logNormalWithMean(mean, scv);
        assertThat(l.meanMs())
            .as("mean for mean=%s scv=%s", mean, scv)
            .isCloseTo(mean, within(1e-12 * mean));
        assertThat(l.scv())
            .as("scv for mean=%s scv=%s", mean, scv)
            .isCloseTo(scv, within(1e-10 * scv));
      }
    }
  }

  @Test
  void paretoMomentsAndTail() {
    double scale = 2;
    double shape = 3;
    LatencyDistribution p = LatencyDistributions.pareto(scale, shape);
    assertThat(p.meanMs()).isCloseTo(shape * scale / (shape - 1), within(CLOSE)); // 3
    // Var = scale^2 shape / ((shape-1)^2 (shape-2)) = 4*3/4 = 3; scv = 1/(shape(shape-2)) = 1/3.
    assertThat(p.varianceMs2()).isCloseTo(3, within(CLOSE));
    assertThat(p.scv()).isCloseTo(1.0 / 3, within(CLOSE));
    assertThat(p.cdf(1.999)).isZero();
    assertThat(p.cdf(4)).isCloseTo(1 - Math.pow(0.5, 3), within(CLOSE));
    assertThat(p.quantile(0)).isCloseTo(scale, within(1e-9));
  }

  @Test
  void heavyParetoHasInfiniteVarianceAndScvNotNaN() {
    LatencyDistribution finiteMean = LatencyDistributions.pareto(1, 1.5);
    assertThat(finiteMean.meanMs()).isCloseTo(3, within(CLOSE));
    assertThat(finiteMean.varianceMs2()).isInfinite();
    assertThat(finiteMean.scv()).isEqualTo(Double.POSITIVE_INFINITY);

    LatencyDistribution infiniteMean = LatencyDistributions.pareto(1, 0.8);
    assertThat(infiniteMean.meanMs()).isEqualTo(Double.POSITIVE_INFINITY);
    assertThat(infiniteMean.scv())
        .as("inf/inf must not leak a NaN into P-K queueing formulas")
        .isEqualTo(Double.POSITIVE_INFINITY);
  }

  @Test
  void truncatedNormalByHand() {
    // mu = 1, sd = 1, truncated at 0: alpha = -1, lambda = phi(1) / Phi(1).
    LatencyDistribution t = LatencyDistributions.truncatedNormal(1, 1);
    double lambda = PHI_DENSITY_AT_1 / PHI_CDF_AT_1;
    assertThat(t.meanMs()).isCloseTo(1 + lambda, within(1e-12)); // 1.2876
    assertThat(t.varianceMs2()).isCloseTo(1 - lambda - lambda * lambda, within(1e-12)); // 0.6297
    assertThat(t.scv())
        .isCloseTo((1 - lambda - lambda * lambda) / ((1 + lambda) * (1 + lambda)), within(1e-12));
    // cdf(1) = (Phi(0) - Phi(-1)) / (1 - Phi(-1)).
    assertThat(t.cdf(1)).isCloseTo((0.5 - (1 - PHI_CDF_AT_1)) / PHI_CDF_AT_1, within(1e-12));
    assertThat(t.cdf(0)).isZero();
    assertThat(t.cdf(-3)).isZero();
    assertThat(t.quantile(0)).isZero();
    assertThat(t.quantile(1)).isInfinite();
  }

  @Test
  void truncatedNormalFarFromZeroIsTheNormal() {
    LatencyDistribution t = LatencyDistributions.truncatedNormal(10, 1);
    assertThat(t.meanMs()).isCloseTo(10, within(1e-12));
    assertThat(t.varianceMs2()).isCloseTo(1, within(1e-12));
    assertThat(t.cdf(10)).isCloseTo(0.5, within(1e-12));
  }

  @Test
  void shiftedAddsTheOffsetToMeanAndQuantilesOnly() {
    LatencyDistribution s = LatencyDistributions.shifted(LatencyDistributions.exponential(2), 3);
    assertThat(s.meanMs()).isCloseTo(5, within(CLOSE));
    assertThat(s.varianceMs2()).isCloseTo(4, within(CLOSE));
    assertThat(s.scv()).isCloseTo(4.0 / 25, within(CLOSE));
    assertThat(s.cdf(2.999)).isZero();
    assertThat(s.cdf(5)).isCloseTo(1 - Math.exp(-1), within(CLOSE));
    assertThat(s.quantile(0)).isCloseTo(3, within(1e-12));
    assertThat(s.quantile(0.5)).isCloseTo(3 + 2 * Math.log(2), within(1e-9));
  }

  @Test
  void anomalyMixtureByHand() {
    // Body: constant 1 ms; anomaly: exponential mean 10 ms; p = 0.1.
    AnomalyMixture m =
        LatencyDistributions.anomalyMixture(
            LatencyDistributions.constant(1), LatencyDistributions.exponential(10), 0.1);
    // Mean 0.9*1 + 0.1*10 = 1.9. E[X^2] = 0.9*1 + 0.1*(100 + 100) = 20.9; variance 20.9 - 1.9^2 =
    // 17.29.
    assertThat(m.meanMs()).isCloseTo(1.9, within(CLOSE));
    assertThat(m.varianceMs2()).isCloseTo(17.29, within(1e-12));
    assertThat(m.scv()).isCloseTo(17.29 / (1.9 * 1.9), within(1e-12));
    // cdf(5) = 0.9*1 + 0.1*(1 - e^-0.5) = 0.9393469...
    assertThat(m.cdf(5)).isCloseTo(0.9 + 0.1 * (1 - Math.exp(-0.5)), within(CLOSE));
    // Below the body's atom only the anomaly contributes: cdf(0.5) = 0.1*(1 - e^-0.05).
    assertThat(m.cdf(0.5)).isCloseTo(0.1 * (1 - Math.exp(-0.05)), within(CLOSE));
    // The atom at 1 carries the median; the 95th percentile needs anomaly cdf 0.5, i.e. 10 ln 2.
    assertThat(m.quantile(0.5)).isCloseTo(1, within(1e-9));
    assertThat(m.quantile(0.95)).isCloseTo(10 * Math.log(2), within(1e-9));
    assertThat(m.quantile(1)).isInfinite();
    assertThat(m.anomalyProbability()).isEqualTo(0.1);
  }

  @Test
  void anomalyMixtureWithDegenerateProbabilities() {
    LatencyDistribution body = LatencyDistributions.exponential(1);
    LatencyDistribution anomaly = LatencyDistributions.constant(50);
    assertThat(LatencyDistributions.anomalyMixture(body, anomaly, 0).quantile(0.5))
        .isCloseTo(Math.log(2), within(1e-9));
    assertThat(LatencyDistributions.anomalyMixture(body, anomaly, 1).quantile(0.5)).isEqualTo(50);
    assertThat(LatencyDistributions.anomalyMixture(body, anomaly, 1).meanMs()).isEqualTo(50);
  }

  @Test
  void anomalyMixtureWithAnInfiniteMeanTailHasInfiniteVarianceNotNaN() {
    AnomalyMixture m =
        LatencyDistributions.anomalyMixture(
            LatencyDistributions.exponential(1), LatencyDistributions.pareto(5, 0.9), 0.01);
    assertThat(m.meanMs()).isEqualTo(Double.POSITIVE_INFINITY);
    assertThat(m.varianceMs2()).isEqualTo(Double.POSITIVE_INFINITY);
    assertThat(m.scv()).isEqualTo(Double.POSITIVE_INFINITY);
  }

  @Test
  void quantileInvertsCdf() {
    for (Map.Entry<String, LatencyDistribution> e : continuousFamilies().entrySet()) {
      LatencyDistribution d = e.getValue();
      for (double p : new double[] {0.001, 0.05, 0.25, 0.5, 0.75, 0.95, 0.999}) {
        double x = d.quantile(p);
        assertThat(d.cdf(x)).as("%s: cdf(quantile(%s))", e.getKey(), p).isCloseTo(p, within(1e-7));
        assertThat(d.quantile(d.cdf(x)))
            .as("%s: quantile(cdf(%s))", e.getKey(), x)
            .isCloseTo(x, within(1e-7 * Math.max(1, x)));
      }
    }
  }

  @Test
  void sampleMeanOf200kSeededDrawsMatchesTheMean() {
    int n = 200_000;
    for (Map.Entry<String, LatencyDistribution> e : continuousFamilies().entrySet()) {
      LatencyDistribution d = e.getValue();
      RandomGenerator rng = new Well19937c(42);
      double sum = 0;
      for (int i = 0; i < n; i++) {
        sum += d.sample(rng);
      }
      double standardError = Math.sqrt(d.varianceMs2() / n);
      assertThat(sum / n)
          .as(
              "%s: mean of %d draws; tolerance 5 standard errors sqrt(Var/n) = %.3g ms (finite variance, so the CLT"
                  + " applies; a seeded 5-sigma miss has probability < 1e-6)",
              e.getKey(), n, 5 * standardError)
          .isCloseTo(d.meanMs(), within(5 * standardError));
    }
  }

  @Test
  void samplesFollowTheCdf() {
    // Checks each sampler against its own cdf (they are separate code paths): the KS distance of n
    // seeded draws
    // stays below 1.95/sqrt(n), the asymptotic 0.1% critical value of the Kolmogorov distribution.
    int n = 20_000;
    double critical = 1.95 / Math.sqrt(n);
    for (Map.Entry<String, LatencyDistribution> e : continuousFamilies().entrySet()) {
      LatencyDistribution d = e.getValue();
      RandomGenerator rng = new Well19937c(7);
      double[] draws = new double[n];
      for (int i = 0; i < n; i++) {
        draws[i] = d.sample(rng);
      }
      assertThat(LatencyFit.ksDistance(d, draws))
          .as("%s: KS distance of %d draws, 0.1%% critical value %.4f", e.getKey(), n, critical)
          .isLessThan(critical);
    }
  }

  @Test
  void samplingIsDeterministicForASeed() {
    for (LatencyDistribution d : continuousFamilies().values()) {
      RandomGenerator a = new Well19937c(99);
      RandomGenerator b = new Well19937c(99);
      for (int i = 0; i < 100; i++) {
        assertThat(d.sample(a)).isEqualTo(d.sample(b));
      }
    }
  }

  @Test
  void badParametersAreRejectedNamingTheParameter() {
    assertIae(() -> LatencyDistributions.constant(-1), "latencyMs");
    assertIae(() -> LatencyDistributions.constant(Double.NaN), "latencyMs");
    assertIae(() -> LatencyDistributions.exponential(0), "meanMs");
    assertIae(() -> LatencyDistributions.exponential(Double.POSITIVE_INFINITY), "meanMs");
    assertIae(() -> LatencyDistributions.logNormal(Double.NaN, 1), "mu");
    assertIae(() -> LatencyDistributions.logNormal(0, 0), "sigma");
    assertIae(() -> LatencyDistributions.logNormalWithMean(-1, 1), "meanMs");
    assertIae(() -> LatencyDistributions.logNormalWithMean(1, 0), "scv");
    assertIae(() -> LatencyDistributions.gamma(0, 1), "shape");
    assertIae(() -> LatencyDistributions.gamma(1, -1), "scaleMs");
    assertIae(() -> LatencyDistributions.pareto(0, 1), "scaleMs");
    assertIae(() -> LatencyDistributions.pareto(1, Double.NaN), "shape");
    assertIae(() -> LatencyDistributions.truncatedNormal(0, 1), "meanMs");
    assertIae(() -> LatencyDistributions.truncatedNormal(1, 0), "sdMs");
    LatencyDistribution e = LatencyDistributions.exponential(1);
    assertIae(() -> LatencyDistributions.shifted(e, -1), "offsetMs");
    assertIae(() -> LatencyDistributions.anomalyMixture(e, e, 1.5), "anomalyProbability");
    assertIae(() -> LatencyDistributions.anomalyMixture(e, e, Double.NaN), "anomalyProbability");
    assertThatThrownBy(() -> LatencyDistributions.shifted(null, 1))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("base");
    assertThatThrownBy(() -> LatencyDistributions.anomalyMixture(null, e, 0.1))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("body");
    assertThatThrownBy(() -> LatencyDistributions.anomalyMixture(e, null, 0.1))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("anomaly");
  }

  @Test
  void badProbabilityIsRejectedByEveryQuantile() {
    Map<String, LatencyDistribution> all = continuousFamilies();
    all.put("constant", LatencyDistributions.constant(1));
    all.forEach(
        (name, d) -> {
          assertThatThrownBy(() -> d.quantile(-0.1))
              .as(name)
              .isInstanceOf(IllegalArgumentException.class)
              .hasMessageContaining("p ");
          assertThatThrownBy(() -> d.quantile(1.1))
              .as(name)
              .isInstanceOf(IllegalArgumentException.class)
              .hasMessageContaining("p ");
          assertThatThrownBy(() -> d.quantile(Double.NaN))
              .as(name)
              .isInstanceOf(IllegalArgumentException.class)
              .hasMessageContaining("p ");
        });
  }

  private static void assertIae(Runnable call, String parameter) {
    assertThatThrownBy(call::run)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(parameter + " ");
  }

  /** One representative per family, with finite variance so that sample means obey the CLT. */
  private static Map<String, LatencyDistribution> continuousFamilies() {
    Map<String, LatencyDistribution> m = new LinkedHashMap<>();
    m.put("exponential", LatencyDistributions.exponential(0.4));
    m.put("gamma shape 2", LatencyDistributions.gamma(2, 0.2));
    m.put("gamma shape 0.5", LatencyDistributions.gamma(0.5, 0.8)); // exercises the shape < 1 boost
    m.put("logNormal", LatencyDistributions.logNormalWithMean(0.4, 0.25));
    m.put("pareto shape 3.5", LatencyDistributions.pareto(1, 3.5));
    m.put("truncatedNormal", LatencyDistributions.truncatedNormal(1, 1));
    m.put(
        "shifted exponential",
        LatencyDistributions.shifted(LatencyDistributions.exponential(0.5), 0.3));
    m.put(
        "anomalyMixture",
        LatencyDistributions.anomalyMixture(
            LatencyDistributions.logNormalWithMean(0.4, 0.25),
            LatencyDistributions.pareto(5, 3.5),
            0.02));
    return m;
  }
}
