package io.zoolander.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.apache.commons.math3.random.RandomGenerator;
import org.apache.commons.math3.random.Well19937c;
import org.junit.jupiter.api.Test;

class CommonShockTest {

  @Test
  void zeroShockIsExactlyTheThesisFormula() {
    double[] onTime = {0.9, 0.6, 0.5, 0.2};
    double[] bounds = {1, 1, 1, 1};
    assertThat(CommonShock.withProbability(0).firstReplyOnTime(onTime, bounds))
        .isCloseTo(AnomalyDependence.independent().firstReplyOnTime(onTime, bounds), within(1e-15));
  }

  @Test
  void shockKeepsMarginalsAndRaisesJointLateness() {
    // Two duplicates each late with probability 0.1; with c = 0.05: P(both late) = 0.05 + 0.95 *
    // (0.05/0.95)^2.
    double c = 0.05;
    double allLate = c + (1 - c) * Math.pow(0.05 / 0.95, 2);
    assertThat(
            CommonShock.withProbability(c)
                .firstReplyOnTime(new double[] {0.9, 0.9}, new double[] {1, 1}))
        .isCloseTo(1 - allLate, within(1e-12));
    // The shock cannot exceed a duplicate's own lateness: fully dependent = the best single
    // duplicate.
    assertThat(
            CommonShock.withProbability(0.5)
                .firstReplyOnTime(new double[] {0.9, 0.8}, new double[] {1, 1}))
        .isCloseTo(0.9, within(1e-12));
  }

  @Test
  void estimateRecoversTheShockProbabilityOfAGeneratedSample() {
    // Each access: with probability 0.03 every duplicate is slow (10 ms), else each is slow with
    // probability 0.05.
    RandomGenerator rng = new Well19937c(7);
    int rows = 200_000;
    double[][] paired = new double[rows][3];
    for (double[] row : paired) {
      boolean shock = rng.nextDouble() < 0.03;
      for (int i = 0; i < row.length; i++) {
        row[i] = shock || rng.nextDouble() < 0.05 ? 10 : 1;
      }
    }
    CommonShock estimated = CommonShock.estimate(paired);
    // Standard error of a joint frequency near 0.0325 over 200k rows is about 4e-4; allow 4
    // standard errors.
    assertThat(estimated.probabilityAt(5)).isCloseTo(0.03, within(0.002));
    // Below every sample nothing is "late beyond the bound" except by the whole mass: the bound
    // matters.
    assertThat(estimated.probabilityAt(20)).isZero();
  }

  @Test
  void independentSamplesEstimateNoShock() {
    RandomGenerator rng = new Well19937c(11);
    LatencyDistribution service = LatencyDistributions.exponential(1);
    double[][] paired = new double[100_000][2];
    for (double[] row : paired) {
      row[0] = service.sample(rng);
      row[1] = service.sample(rng);
    }
    double c = CommonShock.estimate(paired).probabilityAt(service.quantile(0.9));
    assertThat(c).as("independent samples, estimated shock %.5f", c).isLessThan(0.003);
  }

  @Test
  void badInputNamesTheParameter() {
    assertThatThrownBy(() -> CommonShock.withProbability(1.5))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("probability");
    assertThatThrownBy(() -> CommonShock.withProbability(Double.NaN))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("probability");
    assertThatThrownBy(() -> CommonShock.estimate(new double[0][]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("pairedServiceMs");
    assertThatThrownBy(() -> CommonShock.estimate(new double[][] {{1}}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least 2");
    assertThatThrownBy(() -> CommonShock.estimate(new double[][] {{1, 2}, {1}}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("pairedServiceMs[1]");
    assertThatThrownBy(() -> CommonShock.estimate(new double[][] {{1, -2}}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("pairedServiceMs[0][1]");
  }
}
