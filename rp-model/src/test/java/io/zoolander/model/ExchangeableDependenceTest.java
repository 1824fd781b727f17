package io.zoolander.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.zoolander.model.ExchangeableDependence.Estimator;
import org.apache.commons.math3.distribution.BetaDistribution;
import org.apache.commons.math3.random.RandomGenerator;
import org.apache.commons.math3.random.Well19937c;
import org.apache.commons.math3.special.Beta;
import org.junit.jupiter.api.Test;

class ExchangeableDependenceTest {
  private static final double LATE_MS = 10;
  private static final double ON_TIME_MS = 1;
  private static final double BOUND_MS = 5;

  /**
   * The SLA of n duplicates each on time with probability onTime, under a dependence, at BOUND_MS.
   */
  private static double sla(AnomalyDependence dependence, int n, double onTime) {
    double[] p = new double[n];
    double[] bounds = new double[n];
    java.util.Arrays.fill(p, onTime);
    java.util.Arrays.fill(bounds, BOUND_MS);
    return dependence.firstReplyOnTime(p, bounds);
  }

  /**
   * Paired samples where, per access, a latent late probability is drawn and each duplicate is late
   * with it.
   */
  private interface LateProbability {
    double draw(RandomGenerator rng);
  }

  private static double[][] paired(int rows, int duplicates, long seed, LateProbability perAccess) {
    RandomGenerator rng = new Well19937c(seed);
    double[][] paired = new double[rows][duplicates];
    for (double[] row : paired) {
      double p = perAccess.draw(rng);
      for (int i = 0; i < duplicates; i++) {
        row[i] = rng.nextDouble() < p ? LATE_MS : ON_TIME_MS;
      }
    }
    return paired;
  }

  private static double[][] firstColumns(double[][] rows, int n) {
    return java.util.Arrays.stream(rows)
        .map(r -> java.util.Arrays.copyOf(r, n))
        .toArray(double[][]::new);
  }

  @Test
  void zeroCorrelationIsExactlyTheThesisFormula() {
    double[] onTime = {0.9, 0.6, 0.5, 0.2};
    double[] bounds = {1, 1, 1, 1};
    assertThat(ExchangeableDependence.withCorrelation(0).firstReplyOnTime(onTime, bounds))
        .isCloseTo(AnomalyDependence.independent().firstReplyOnTime(onTime, bounds), within(1e-15));
    for (int n = 1; n <= 16; n++) {
      assertThat(sla(ExchangeableDependence.withCorrelation(0), n, 0.9))
          .isCloseTo(sla(AnomalyDependence.independent(), n, 0.9), within(1e-15));
    }
  }

  @Test
  void fullCorrelationIsAPureCommonShock() {
    // Every late event a shock: all duplicates late together, so no more duplicates help; with
    // unequal duplicates
    // the best one decides (the common shock capped at the least likely late event).
    for (int n = 1; n <= 16; n++) {
      assertThat(sla(ExchangeableDependence.withCorrelation(1), n, 0.9))
          .isCloseTo(sla(CommonShock.withProbability(0.1), n, 0.9), within(1e-15))
          .isCloseTo(0.9, within(1e-15));
    }
    double[] onTime = {0.8, 0.9, 0.6};
    double[] bounds = {1, 1, 1};
    assertThat(ExchangeableDependence.withCorrelation(1).firstReplyOnTime(onTime, bounds))
        .isCloseTo(CommonShock.withProbability(0.5).firstReplyOnTime(onTime, bounds), within(1e-15))
        .isCloseTo(0.9, within(1e-15));
  }

  @Test
  void estimatedFromAPureCommonShockItIsOne() {
    // 5% of accesses late on every duplicate, none late alone: the counts sit at K = 0 and K = M
    // only.
    double[][] paired = paired(20_000, 4, 3, rng -> rng.nextDouble() < 0.05 ? 1 : 0);
    ExchangeableDependence dependence = ExchangeableDependence.estimate(paired);
    LateCount count = dependence.lateCountAt(BOUND_MS);
    assertThat(count.count(1) + count.count(2) + count.count(3)).isZero();
    assertThat(count.betaBinomial().correlation()).isEqualTo(1);
    assertThat(dependence.correlationAt(BOUND_MS)).isEqualTo(1);
    double onTime = 1 - count.meanLate();
    for (int n : new int[] {2, 4, 8, 16}) { // beyond M = 4 too
      for (AnomalyDependence d :
          new AnomalyDependence[] {
            dependence,
            ExchangeableDependence.builder()
                .pairedServiceMs(paired)
                .estimator(Estimator.BETA_BINOMIAL)
                .build()
          }) {
        assertThat(sla(d, n, onTime))
            .as("%s, N=%d", d, n)
            .isCloseTo(
                sla(CommonShock.withProbability(count.meanLate()), n, onTime), within(1e-12));
      }
    }
  }

  @Test
  void allLateIsTheShareOfLateSetsOverAccesses() {
    // Four accesses of M = 2: one none late, one with both late, two with one late.
    LateCount count = LateCount.ofCounts(1, 2, 1);
    assertThat(count.duplicates()).isEqualTo(2);
    assertThat(count.accesses()).isEqualTo(4);
    assertThat(count.probability(1)).isEqualTo(0.5);
    assertThat(count.allLate(0)).isEqualTo(1);
    assertThat(count.meanLate()).isCloseTo((2 * 0.5 + 1) / 4.0, within(1e-15));
    assertThat(count.allLate(2)).isCloseTo(0.25, within(1e-15));
    // Step 1 is the pairwise (phi) correlation of two lateness indicators.
    double m = count.meanLate();
    assertThat(count.stepCorrelations()[1])
        .isCloseTo((0.25 - m * m) / (m * (1 - m)), within(1e-15));
    // Counted from samples: K per row is the number of replies above the bound; ties at the bound
    // are on time.
    double[][] rows = {{1, 2, 3}, {6, 5, 4}, {5, 1, 7}, {6, 7, 8}};
    assertThat(ExchangeableDependence.estimate(rows).lateCountAt(5))
        .isEqualTo(LateCount.ofCounts(1, 2, 0, 1));
  }

  @Test
  void withTheSamplesMarginalTheEmpiricalEstimatorIsTheCountsOwnAllLate() {
    double[][] paired = paired(50_000, 6, 5, rng -> rng.nextDouble() < 0.1 ? 0.6 : 0.05);
    ExchangeableDependence dependence = ExchangeableDependence.estimate(paired);
    LateCount count = dependence.lateCountAt(BOUND_MS);
    for (int n = 1; n <= 6; n++) {
      assertThat(1 - sla(dependence, n, 1 - count.meanLate()))
          .as("N=%d", n)
          .isCloseTo(count.allLate(n), within(1e-12));
    }
  }

  @Test
  void betaBinomialClosedFormsAgree() {
    LateCount.BetaBinomial fit = new LateCount.BetaBinomial(8, 0.1, 1.0 / 6);
    assertThat(fit.alpha()).isCloseTo(0.5, within(1e-12));
    assertThat(fit.beta()).isCloseTo(4.5, within(1e-12));
    for (int n = 0; n <= 20; n++) {
      // P(all n late) = E[p^n] = B(a + n, b) / B(a, b)
      assertThat(fit.allLate(n))
          .isCloseTo(
              Math.exp(
                  Beta.logBeta(fit.alpha() + n, fit.beta())
                      - Beta.logBeta(fit.alpha(), fit.beta())),
              within(1e-12));
    }
    assertThat(new LateCount.BetaBinomial(8, 0.1, 0).allLate(3)).isCloseTo(0.001, within(1e-15));
    assertThat(new LateCount.BetaBinomial(8, 0.1, 1).allLate(3)).isCloseTo(0.1, within(1e-15));
  }

  @Test
  void recoversAKnownBetaBinomialAndExtrapolatesBeyondTheMeasuredDuplicates() {
    // Per access p ~ Beta(0.5, 4.5): mean lateness 0.1, intra-class correlation 1 / (a + b + 1) =
    // 1/6.
    BetaDistribution latent = new BetaDistribution(new Well19937c(17), 0.5, 4.5);
    double[][] paired = paired(100_000, 8, 19, rng -> latent.sample());
    LateCount.BetaBinomial truth = new LateCount.BetaBinomial(8, 0.1, 1.0 / 6);
    ExchangeableDependence empirical = ExchangeableDependence.estimate(paired);
    LateCount count = empirical.lateCountAt(BOUND_MS);
    // Maximum likelihood on 100k accesses: the correlation's standard error is about 0.002.
    assertThat(count.betaBinomial().correlation()).isCloseTo(1.0 / 6, within(0.01));
    for (int n = 1; n <= 8; n++) {
      // allLate(n) is an average of per-access shares in [0, 1]: standard error below sqrt(E[p^n] /
      // rows).
      assertThat(count.allLate(n))
          .as("N=%d", n)
          .isCloseTo(truth.allLate(n), within(4 * Math.sqrt(truth.allLate(n) / 100_000) + 1e-4));
    }
    // From the first 4 columns only, predict 8 and 16 duplicates, with the true marginal.
    ExchangeableDependence fromFour = ExchangeableDependence.estimate(firstColumns(paired, 4));
    ExchangeableDependence smoothFromFour =
        ExchangeableDependence.builder()
            .pairedServiceMs(firstColumns(paired, 4))
            .estimator(Estimator.BETA_BINOMIAL)
            .build();
    for (int n : new int[] {8, 16}) {
      double expected = 1 - truth.allLate(n);
      assertThat(sla(smoothFromFour, n, 0.9))
          .as("beta-binomial fit, N=%d", n)
          .isCloseTo(expected, within(1e-4));
      assertThat(sla(fromFour, n, 0.9))
          .as("empirical steps, N=%d", n)
          .isCloseTo(expected, within(1e-4));
      assertThat(1 - sla(AnomalyDependence.independent(), n, 0.9))
          .as("independence, N=%d", n)
          .isLessThan(0.2 * truth.allLate(n));
    }
  }

  @Test
  void aPartialSlowdownIsHeldWhereOneShockProbabilityIsNot() {
    // 10% of accesses hit a slowdown that makes each duplicate late with probability 0.7 (some, not
    // all); otherwise
    // each is late alone with probability 0.03. P(all N late) = 0.1 * 0.709^N + 0.9 * 0.03^N
    // exactly.
    double[][] paired =
        paired(200_000, 8, 23, rng -> rng.nextDouble() < 0.1 ? 0.7 + 0.3 * 0.03 : 0.03);
    double late = 0.1 * 0.709 + 0.9 * 0.03;
    ExchangeableDependence dependence = ExchangeableDependence.estimate(paired);
    CommonShock shock = CommonShock.estimate(paired);
    for (int n : new int[] {2, 4, 8}) {
      double expected = 1 - (0.1 * Math.pow(0.709, n) + 0.9 * Math.pow(0.03, n));
      double exchangeable = sla(dependence, n, 1 - late);
      double common = sla(shock, n, 1 - late);
      // allLate(8) is about 0.0064: its standard error over 200k accesses is 2e-4.
      assertThat(exchangeable)
          .as("N=%d, common shock %.5f", n, common)
          .isCloseTo(expected, within(0.001));
      if (n == 8) {
        // One shock probability fitted to pairs says "all late" is as likely as a pair late: far
        // too pessimistic.
        assertThat(expected - common).as("common shock under-predicts N=8").isGreaterThan(0.03);
      }
    }
  }

  @Test
  void commonModeSlowdownsInTheSimulatorArePredictedFromPairedServiceTimes() {
    // The simulator's common mode: 2% of accesses slowed on every duplicate, beside independent 3%
    // anomalies.
    LatencyDistribution bursty =
        LatencyDistributions.anomalyMixture(
            LatencyDistributions.truncatedNormal(1, 0.2),
            LatencyDistributions.shifted(LatencyDistributions.exponential(10), 1),
            0.03);
    double tau = 2.0;
    double lambda = 10;
    Simulation.Builder simulation =
        Simulation.builder()
            .serviceTime(bursty)
            .arrivalRatePerSec(lambda)
            .commonMode(0.02, LatencyDistributions.shifted(LatencyDistributions.exponential(10), 2))
            .accesses(200_000)
            .warmupAccesses(10_000)
            .seed(43);
    double[][] paired =
        simulation.strategy(Strategy.predictability(8)).build().run().pairedServiceMs();
    double[] oneDuplicate = java.util.Arrays.stream(paired).mapToDouble(r -> r[0]).toArray();
    SlaModel fromEight =
        ThesisModel.builder().dependence(ExchangeableDependence.estimate(paired)).build();
    SlaModel fromFour =
        ThesisModel.builder()
            .dependence(ExchangeableDependence.estimate(firstColumns(paired, 4)))
            .build();
    for (int n : new int[] {2, 4, 8}) {
      Deployment deployment = Deployment.homogeneous(n, EmpiricalLatency.of(oneDuplicate), lambda);
      // 200k simulated accesses: binomial standard error about 3e-4 at these SLAs.
      double simulated = simulation.strategy(Strategy.predictability(n)).build().run().sla(tau);
      double independent = ThesisModel.create().predict(deployment, tau).sla();
      double predicted = fromEight.predict(deployment, tau).sla();
      assertThat(predicted - simulated)
          .as("N=%d: predicted %.5f, simulated %.5f", n, predicted, simulated)
          .isCloseTo(0, within(0.004));
      assertThat(independent - simulated)
          .as("N=%d: independence over-predicts", n)
          .isGreaterThan(0.015);
      double extrapolated = fromFour.predict(deployment, tau).sla();
      assertThat(extrapolated - simulated)
          .as("N=%d from 4 measured duplicates: %.5f, simulated %.5f", n, extrapolated, simulated)
          .isCloseTo(0, within(0.004));
    }
  }

  @Test
  void independentSamplesEstimateLittleCorrelation() {
    RandomGenerator rng = new Well19937c(11);
    LatencyDistribution service = LatencyDistributions.exponential(1);
    double[][] paired = new double[100_000][4];
    for (double[] row : paired) {
      for (int i = 0; i < row.length; i++) {
        row[i] = service.sample(rng);
      }
    }
    double bound = service.quantile(0.9);
    ExchangeableDependence dependence = ExchangeableDependence.estimate(paired);
    assertThat(dependence.correlationAt(bound)).isLessThan(0.005);
    Deployment four = Deployment.homogeneous(4, service, 0);
    assertThat(ThesisModel.builder().dependence(dependence).build().predict(four, bound).sla())
        .isCloseTo(ThesisModel.create().predict(four, bound).sla(), within(5e-4));
  }

  @Test
  void badInputNamesTheParameter() {
    assertThatThrownBy(() -> ExchangeableDependence.withCorrelation(1.5))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("rho");
    assertThatThrownBy(() -> ExchangeableDependence.withCorrelation(Double.NaN))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("rho");
    assertThatThrownBy(() -> ExchangeableDependence.builder().build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("pairedServiceMs");
    assertThatThrownBy(() -> ExchangeableDependence.builder().pairedServiceMs(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("pairedServiceMs");
    assertThatThrownBy(() -> ExchangeableDependence.builder().estimator(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("estimator");
    assertThatThrownBy(() -> ExchangeableDependence.estimate(new double[0][]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("pairedServiceMs");
    assertThatThrownBy(() -> ExchangeableDependence.estimate(new double[][] {{1}}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least 2");
    assertThatThrownBy(() -> ExchangeableDependence.estimate(new double[][] {{1, 2}, {1}}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("pairedServiceMs[1]");
    assertThatThrownBy(() -> ExchangeableDependence.estimate(new double[][] {{1, Double.NaN}}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("pairedServiceMs[0][1]");
    assertThatThrownBy(() -> ExchangeableDependence.withCorrelation(0.2).lateCountAt(1))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("paired samples");
    assertThatThrownBy(() -> LateCount.ofCounts(1, 2))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("countsByLate");
    assertThatThrownBy(() -> LateCount.ofCounts(1, -2, 3))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("countsByLate[1]");
    assertThatThrownBy(() -> LateCount.ofCounts(0, 0, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("countsByLate");
    assertThatThrownBy(() -> LateCount.ofCounts(1, 2, 3).allLate(3))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("n");
    assertThatThrownBy(() -> new LateCount.BetaBinomial(8, 0.1, -0.1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("correlation");
  }
}
