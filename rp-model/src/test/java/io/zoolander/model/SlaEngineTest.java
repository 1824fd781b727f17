package io.zoolander.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.apache.commons.math3.random.Well19937c;
import org.junit.jupiter.api.Test;

class SlaEngineTest {

  private static SlaEngine.Builder engine(LatencyDistribution service, double rate) {
    return SlaEngine.builder().serviceTime(service).arrivalRatePerSec(rate);
  }

  @Test
  void mm1IsExact() {
    // Service Exp(mean 1 ms), lambda = rho / ms: the sojourn time is Exp(1 - rho).
    for (double rho : new double[] {0.01, 0.1, 0.3, 0.6, 0.9}) {
      SlaEngine e = engine(LatencyDistributions.exponential(1), rho * 1000).build();
      for (double tau : new double[] {0.1, 0.5, 1, 2, 5, 10, 20}) {
        SlaEstimate p = e.predict(tau);
        assertThat(p.method()).isEqualTo(SlaEstimate.Method.EXACT);
        assertThat(p.sla())
            .as("rho %s tau %s", rho, tau)
            .isCloseTo(1 - Math.exp(-(1 - rho) * tau), within(1e-4));
        assertThat(p.low()).isEqualTo(p.sla());
      }
    }
  }

  @Test
  void md1IsExactForOneDuplicateAndForMany() {
    // Deterministic service: every duplicate waits exactly as long, so N duplicates are one.
    for (double rho : new double[] {0.1, 0.3, 0.6}) {
      for (int n : new int[] {1, 4}) {
        SlaEngine e =
            engine(LatencyDistributions.constant(1), rho * 1000)
                .strategy(Strategy.predictability(n))
                .build();
        for (double tau : new double[] {1.2, 1.7, 2.5, 4, 6}) {
          double exact = md1Wait(rho, tau - 1);
          assertThat(e.predict(tau).sla())
              .as("rho %s N %s tau %s", rho, n, tau)
              .isCloseTo(exact, within(n == 1 ? 1e-4 : 2e-3));
        }
      }
    }
  }

  /** Erlang's M/D/1 waiting-time CDF, service 1. */
  static double md1Wait(double rho, double x) {
    double sum = 0;
    double factorial = 1;
    for (int k = 0; k <= Math.floor(x); k++) {
      if (k > 0) {
        factorial *= k;
      }
      double y = rho * (k - x);
      sum += Math.pow(y, k) / factorial * Math.exp(-y);
    }
    return (1 - rho) * sum;
  }

  @Test
  void mh2OneIsExact() {
    // M/H2/1: service Exp(mu1) with probability p1, Exp(mu2) otherwise (Cv^2 > 1). Its sojourn
    // time's transform (1 - rho) s B(s) / (s - lambda + lambda B(s)) is rational: the sojourn
    // time is a mixture of two exponentials whose rates r1, r2 solve
    // r^2 - (mu1 + mu2 - lambda) r + mu1 mu2 - lambda (p2 mu1 + p1 mu2) = 0.
    double p1 = 0.9;
    double p2 = 1 - p1;
    double mu1 = 1 / 0.4;
    double mu2 = 1 / 6.4;
    LatencyDistribution h2 =
        LatencyDistributions.anomalyMixture(
            LatencyDistributions.exponential(1 / mu1),
            LatencyDistributions.exponential(1 / mu2),
            p2);
    for (double rho : new double[] {0.1, 0.5, 0.8}) {
      double lambda = rho / h2.meanMs();
      double b = mu1 + mu2 - lambda;
      double c = mu1 * mu2 - lambda * (p2 * mu1 + p1 * mu2);
      double r1 = (b - Math.sqrt(b * b - 4 * c)) / 2;
      double r2 = (b + Math.sqrt(b * b - 4 * c)) / 2;
      // Partial fractions of (1 - rho) ((p1 mu1 + p2 mu2) s + mu1 mu2) / ((s + r1)(s + r2)).
      double k = (1 - rho) * (p1 * mu1 + p2 * mu2);
      double m = (1 - rho) * mu1 * mu2;
      double c1 = (m - k * r1) / (r2 - r1);
      double c2 = (m - k * r2) / (r1 - r2);
      SlaEngine e = engine(h2, lambda * 1000).build();
      for (double tau : new double[] {0.2, 0.5, 1, 2, 5, 10, 20, 40}) {
        double exact = 1 - (c1 / r1 * Math.exp(-r1 * tau) + c2 / r2 * Math.exp(-r2 * tau));
        SlaEstimate p = e.predict(tau);
        assertThat(p.method()).isEqualTo(SlaEstimate.Method.EXACT);
        assertThat(p.sla()).as("rho %s tau %s", rho, tau).isCloseTo(exact, within(1e-4));
      }
    }
  }

  @Test
  void hyperexponentialOneDuplicateMatchesTheSimulator() {
    // The exact M/G/1 numerics on a law with Cv^2 > 1 (a mixture of two exponentials), against 2
    // million simulated accesses. At 50% load with Cv^2 = 5 the accesses are strongly correlated
    // through long busy periods: the simulation's batch-means standard error is about 1e-3, five
    // times the binomial one.
    double p = 0.1;
    double mu1 = 1 / 0.4;
    double mu2 = 1 / 6.4;
    LatencyDistribution h2 =
        LatencyDistributions.anomalyMixture(
            LatencyDistributions.exponential(1 / mu1),
            LatencyDistributions.exponential(1 / mu2),
            p);
    double mean = h2.meanMs();
    double rho = 0.5;
    double lambda = rho / mean;
    SlaEngine e = engine(h2, lambda * 1000).build();
    double tau = 3;
    double sla = e.predict(tau).sla();
    double reference =
        Simulation.builder()
            .strategy(Strategy.predictability(1))
            .serviceTime(h2)
            .arrivalRatePerSec(lambda * 1000)
            .accesses(2_000_000)
            .warmupAccesses(20_000)
            .seed(3)
            .build()
            .run()
            .sla(tau);
    assertThat(sla).isCloseTo(reference, within(3e-3));
  }

  @Test
  void zeroLoadIsTheIndependenceFormula() {
    LatencyDistribution s = LatencyDistributions.logNormalWithMean(1, 1);
    for (int n : new int[] {1, 2, 4, 8}) {
      SlaEngine e = engine(s, 0).strategy(Strategy.predictability(n)).build();
      double tau = 1.5;
      assertThat(e.predict(tau).missRatio())
          .isCloseTo(
              Math.pow(1 - s.cdf(tau), n), within(1e-9 + 1e-6 * Math.pow(1 - s.cdf(tau), n)));
    }
  }

  @Test
  void sharedArrivalsMakeTheMissRatioLargerThanIndependence() {
    // The case: heavy-tailed sample, 10% utilisation, tau near the body, N = 4.
    LatencyDistribution writes = TradeOff.thesisLikeWrites();
    double[] samples = new double[100_000];
    Well19937c rng = new Well19937c(11);
    for (int i = 0; i < samples.length; i++) {
      samples[i] = writes.sample(rng);
    }
    EmpiricalLatency empirical = EmpiricalLatency.of(samples);
    double rate = 0.1 * 1000 / empirical.meanMs();
    double tau = empirical.quantile(0.9);
    SlaEngine e = engine(empirical, rate).strategy(Strategy.predictability(4)).build();
    SlaEstimate p = e.predict(tau);
    double simulated =
        1
            - Simulation.builder()
                .strategy(Strategy.predictability(4))
                .serviceTime(empirical)
                .arrivalRatePerSec(rate)
                .accesses(1_000_000)
                .warmupAccesses(10_000)
                .seed(77)
                .build()
                .run()
                .sla(tau);
    double independent =
        1
            - DistributionModel.create()
                .predict(Deployment.homogeneous(4, empirical, rate), tau)
                .sla();
    assertThat(p.method()).isEqualTo(SlaEstimate.Method.SIMULATED);
    assertThat(p.missRatio()).isCloseTo(simulated, within(0.1 * simulated));
    assertThat(independent).isLessThan(simulated / 5);
    assertThat(p.missHigh()).isGreaterThan(p.missRatio());
    assertThat(p.missLow()).isLessThan(p.missRatio());
  }

  @Test
  void intervalsShrinkWithTheSampleSize() {
    LatencyDistribution s = LatencyDistributions.logNormalWithMean(1, 1);
    Well19937c rng = new Well19937c(5);
    double[] big = new double[100_000];
    for (int i = 0; i < big.length; i++) {
      big[i] = s.sample(rng);
    }
    double[] small = java.util.Arrays.copyOf(big, 1_000);
    double tau = s.quantile(0.99);
    SlaEstimate fromBig = engine(EmpiricalLatency.of(big), 100).build().predict(tau);
    SlaEstimate fromSmall = engine(EmpiricalLatency.of(small), 100).build().predict(tau);
    assertThat(fromSmall.samplingRelativeError())
        .isGreaterThan(3 * fromBig.samplingRelativeError());
    assertThat(fromBig.samplingRelativeError()).isBetween(0.01, 0.1);
    // A parametric law has no sampling error.
    assertThat(engine(s, 100).build().predict(tau).samplingRelativeError()).isZero();
  }

  @Test
  void aSimulatedReadsOnlyPredictionCarriesTheSamplesSpread() {
    // Regression: where reads do not go to every duplicate (or a dependence is given) the reads
    // and writes are simulated as classes, and the mix's interval summed the write class's
    // undefined miss ratio (no write simulated): every bootstrap replicate was dropped and only
    // the Monte-Carlo error was left.
    LatencyDistribution s = LatencyDistributions.logNormalWithMean(1, 1);
    Well19937c rng = new Well19937c(7);
    double[] samples = new double[2_000];
    for (int i = 0; i < samples.length; i++) {
      samples[i] = s.sample(rng);
    }
    SlaEstimate two =
        engine(EmpiricalLatency.of(samples), 100)
            .strategy(Strategy.predictability(3))
            .readConcurrency(2)
            .build()
            .predict(s.quantile(0.9));
    assertThat(two.method()).isEqualTo(SlaEstimate.Method.SIMULATED);
    assertThat(two.samplingRelativeError()).isBetween(0.02, 0.5);
  }

  @Test
  void writesFromSamplesCarryTheSamplesSpread() {
    // Regression: with one law for reads and writes and only writes in the mix (the repeater's
    // predictor), the law was neither binned nor resampled, and the interval was a point.
    LatencyDistribution s = LatencyDistributions.logNormalWithMean(1, 1);
    Well19937c rng = new Well19937c(9);
    double[] samples = new double[2_000];
    for (int i = 0; i < samples.length; i++) {
      samples[i] = s.sample(rng);
    }
    for (int n : new int[] {1, 2}) {
      SlaEstimate writes =
          engine(EmpiricalLatency.of(samples), 100)
              .strategy(Strategy.predictability(n))
              .writeFraction(1)
              .build()
              .predict(s.quantile(0.9));
      assertThat(writes.samplingRelativeError()).as("N=%d", n).isBetween(0.02, 0.5);
      assertThat(writes.high() - writes.low()).as("N=%d", n).isPositive();
    }
  }

  @Test
  void pairedSamplesGiveTheDependenceAnIntervalThatReflectsTheirCount() {
    // 10% of accesses hit a slowdown that makes each duplicate late (10 ms, tau 5 ms) with
    // probability 0.709, the others are late alone with probability 0.03: P(all 4 late) = 0.1 *
    // 0.709^4 + 0.9 * 0.03^4 exactly. The service law is parametric (no sampling error of its
    // own), so the interval is the paired samples'.
    double late = 0.1 * 0.709 + 0.9 * 0.03;
    Well19937c rng = new Well19937c(23);
    double[][] paired = new double[50_000][4];
    for (double[] row : paired) {
      double p = rng.nextDouble() < 0.1 ? 0.709 : 0.03;
      for (int i = 0; i < row.length; i++) {
        row[i] = rng.nextDouble() < p ? 10 : 1;
      }
    }
    LatencyDistribution service =
        LatencyDistributions.anomalyMixture(
            LatencyDistributions.constant(1), LatencyDistributions.constant(10), late);
    SlaEngine.Builder four = engine(service, 0).strategy(Strategy.predictability(4));
    SlaEstimate fromAll = four.pairedSamplesMs(paired).build().predict(5);
    SlaEstimate fromFew =
        four.pairedSamplesMs(java.util.Arrays.copyOf(paired, 2_000)).build().predict(5);
    double exact = 0.1 * Math.pow(0.709, 4) + 0.9 * Math.pow(0.03, 4);
    assertThat(fromAll.missRatio()).isCloseTo(exact, within(0.002));
    assertThat(fromAll.missLow()).isLessThan(exact);
    assertThat(fromAll.missHigh()).isGreaterThan(exact);
    // 25 times fewer accesses: about 5 times the relative spread.
    assertThat(fromAll.samplingRelativeError()).isBetween(0.01, 0.1);
    assertThat(fromFew.samplingRelativeError()).isGreaterThan(3 * fromAll.samplingRelativeError());
    // Independent duplicates and a parametric law: no sampling error at all.
    assertThat(engine(service, 0).strategy(Strategy.predictability(4)).build().predict(5))
        .extracting(SlaEstimate::samplingRelativeError)
        .isEqualTo(0.0);
  }

  @Test
  void readsAndWritesArePredictedSeparately() {
    LatencyDistribution reads = LatencyDistributions.logNormalWithMean(0.4, 1);
    LatencyDistribution writes = LatencyDistributions.logNormalWithMean(1.0, 2);
    SlaEngine e =
        SlaEngine.builder()
            .strategy(Strategy.predictability(3))
            .readServiceTime(reads)
            .writeServiceTime(writes)
            .writeFraction(0.2)
            .readConcurrency(2)
            .arrivalRatePerSec(200)
            .build();
    MissCurve curve = e.missCurve(1, 4, 4);
    assertThat(curve.reads()).hasSize(4);
    assertThat(curve.writes()).hasSize(4);
    for (int i = 0; i < 4; i++) {
      double mix = 0.8 * curve.reads().get(i).missRatio() + 0.2 * curve.writes().get(i).missRatio();
      assertThat(curve.all().get(i).missRatio()).isCloseTo(mix, within(1e-12));
    }
    assertThat(e.utilisation()).isCloseTo((160.0 * 2 / 3 * 0.4 + 40 * 1.0) / 1000, within(1e-12));
  }

  @Test
  void unstableIsExplicit() {
    SlaEstimate p = engine(LatencyDistributions.exponential(1), 1000).build().predict(5);
    assertThat(p.method()).isEqualTo(SlaEstimate.Method.UNSTABLE);
    assertThat(p.sla()).isZero();
    assertThat(p.meets(0.5)).isFalse();
  }

  @Test
  void isDeterministic() {
    SlaEngine e =
        engine(LatencyDistributions.logNormalWithMean(1, 2), 300)
            .strategy(Strategy.predictability(4))
            .build();
    assertThat(e.predict(2)).isEqualTo(e.predict(2));
  }

  @Test
  void badInputNamesTheParameter() {
    assertThatThrownBy(() -> SlaEngine.builder().arrivalRatePerSec(1).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("serviceTime");
    assertThatThrownBy(
            () -> SlaEngine.builder().serviceTime(LatencyDistributions.constant(1)).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("arrivalRatePerSec");
    assertThatThrownBy(() -> SlaEngine.builder().arrivalRatePerSec(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("arrivalRatePerSec");
    assertThatThrownBy(() -> SlaEngine.builder().writeFraction(1.5))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("writeFraction");
    assertThatThrownBy(() -> SlaEngine.builder().serviceTime(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("serviceTime");
    assertThatThrownBy(() -> SlaEngine.builder().confidence(1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("confidence");
    assertThatThrownBy(
            () ->
                engine(LatencyDistributions.constant(1), 1)
                    .strategy(Strategy.predictability(2))
                    .readConcurrency(3)
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("readConcurrency");
    SlaEngine e = engine(LatencyDistributions.constant(1), 1).build();
    assertThatThrownBy(() -> e.predict(Double.NaN))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("tau");
    assertThatThrownBy(() -> e.missCurve(2, 1, 3))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("toMs");
  }
}
