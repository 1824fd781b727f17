package io.zoolander.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class ThesisModelTest {
  private static final LatencyDistribution EXP_1MS = LatencyDistributions.exponential(1.0);

  @Test
  void mm1MeanWaitIsRhoOverOneMinusRhoTimesMean() {
    // rho = 500/s * 1 ms = 0.5: Wq = 0.5 / 0.5 * 1 ms = 1 ms
    assertThat(QueueingModel.MM1.meanWaitMs(500, EXP_1MS, 1)).isCloseTo(1.0, within(1e-12));
    // rho = 0.8: Wq = 4 ms
    assertThat(QueueingModel.MM1.meanWaitMs(800, EXP_1MS, 1)).isCloseTo(4.0, within(1e-12));
  }

  @Test
  void mg1IsPollaczekKhinchine() {
    // Deterministic service (Cs^2 = 0): M/D/1 waits half of M/M/1.
    LatencyDistribution constant = LatencyDistributions.constant(2.0);
    double rho = 0.6; // 300/s * 2 ms
    assertThat(QueueingModel.MG1.meanWaitMs(300, constant, 1))
        .isCloseTo(0.5 * rho / (1 - rho) * 2.0, within(1e-12));
    // Exponential service: M/G/1 equals M/M/1.
    assertThat(QueueingModel.MG1.meanWaitMs(500, EXP_1MS, 1))
        .isCloseTo(QueueingModel.MM1.meanWaitMs(500, EXP_1MS, 1), within(1e-12));
    // Gamma with shape 4 (Cs^2 = 1/4), mean 2 ms at rho = 0.5: (1 + 0.25)/2 * 1 * 2 = 1.25 ms
    assertThat(QueueingModel.MG1.meanWaitMs(250, LatencyDistributions.gamma(4, 0.5), 1))
        .isCloseTo(1.25, within(1e-9));
  }

  @Test
  void gg1IsKingman() {
    // Ca^2 = 0.5, Cs^2 = 1, rho = 0.5, mean 1: (0.5 + 1)/2 * 1 * 1 = 0.75
    assertThat(QueueingModel.GG1.meanWaitMs(500, EXP_1MS, 0.5)).isCloseTo(0.75, within(1e-12));
    // With Poisson arrivals Kingman equals Pollaczek-Khinchine.
    LatencyDistribution gamma = LatencyDistributions.gamma(2, 1);
    assertThat(QueueingModel.GG1.meanWaitMs(200, gamma, 1))
        .isCloseTo(QueueingModel.MG1.meanWaitMs(200, gamma, 1), within(1e-12));
  }

  @Test
  void saturatedQueueIsInfiniteWaitAndUnstablePrediction() {
    assertThat(QueueingModel.MM1.meanWaitMs(1000, EXP_1MS, 1)).isInfinite();
    SlaPrediction p = ThesisModel.create().predict(Deployment.homogeneous(3, EXP_1MS, 1200), 5);
    assertThat(p.status()).isEqualTo(SlaPrediction.Status.UNSTABLE);
    assertThat(p.sla()).isZero();
    assertThat(p.maxUtilisation()).isCloseTo(1.2, within(1e-12));
    assertThat(p.meets(0.1)).isFalse();
  }

  @Test
  void homogeneousIdleDuplicatesGiveOneMinusOneMinusPToTheN() {
    double tau = 1.5;
    double phi = EXP_1MS.cdf(tau);
    for (int n = 1; n <= 8; n++) {
      SlaPrediction p = ThesisModel.create().predict(Deployment.homogeneous(n, EXP_1MS, 0), tau);
      assertThat(p.sla()).as("n=%d", n).isCloseTo(1 - Math.pow(1 - phi, n), within(1e-12));
      assertThat(p.isStable()).isTrue();
    }
  }

  @Test
  void heterogeneousFormulaMatchesHandComputedCase() {
    // Three idle duplicates with uniform-like step CDFs chosen so Phi_n(tau) are 0.9, 0.6 and 0.5.
    double tau = 10;
    LatencyDistribution a = EmpiricalLatency.of(1, 2, 3, 4, 5, 6, 7, 8, 9, 20); // Phi(10) = 0.9
    LatencyDistribution b = EmpiricalLatency.of(1, 2, 3, 4, 5, 6, 20, 20, 20, 20); // 0.6
    LatencyDistribution c = EmpiricalLatency.of(1, 20); // 0.5
    Deployment d =
        Deployment.builder().duplicate(a).duplicate(b).duplicate(c).arrivalRatePerSec(0).build();
    // s = 0.9 + 0.6 * 0.1 + 0.5 * 0.1 * 0.4 = 0.9 + 0.06 + 0.02 = 0.98
    SlaPrediction p = ThesisModel.create().predict(d, tau);
    assertThat(p.sla()).isCloseTo(0.98, within(1e-12));
    assertThat(p.onTime()).containsExactly(0.9, 0.6, 0.5);
  }

  @Test
  void effectiveBoundSubtractsMeanNetworkAndQueueingDelay() {
    // One duplicate, exponential 1 ms, rho = 0.5 -> Wq = 1 ms (M/M/1); network 0.5 ms constant.
    Deployment d =
        Deployment.builder()
            .networkDelay(LatencyDistributions.constant(0.5))
            .duplicate(EXP_1MS)
            .arrivalRatePerSec(500)
            .build();
    double tau = 4;
    SlaPrediction p = ThesisModel.builder().queueing(QueueingModel.MM1).build().predict(d, tau);
    assertThat(p.sla()).isCloseTo(EXP_1MS.cdf(4 - 0.5 - 1.0), within(1e-12));
    // A bound eaten by delays gives 0, not a negative CDF argument.
    assertThat(ThesisModel.create().predict(d, 1.0).sla()).isZero();
  }

  @Test
  void sumFormEqualsOneMinusProductForIndependentDuplicates() {
    double[] onTime = {0.3, 0.75, 0.1, 0.999, 0.5};
    double product = 1;
    for (double p : onTime) {
      product *= 1 - p;
    }
    assertThat(AnomalyDependence.independent().firstReplyOnTime(onTime, new double[5]))
        .isCloseTo(1 - product, within(1e-12));
  }

  @Test
  void badInputNamesTheParameter() {
    ThesisModel model = ThesisModel.create();
    Deployment d = Deployment.homogeneous(2, EXP_1MS, 10);
    assertThatThrownBy(() -> model.predict(d, -1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("tauMs");
    assertThatThrownBy(() -> model.predict(d, Double.NaN))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("tauMs");
    assertThatThrownBy(() -> model.predict(null, 1))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("deployment");
    assertThatThrownBy(() -> Deployment.homogeneous(0, EXP_1MS, 10))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("count");
    assertThatThrownBy(() -> Deployment.builder().arrivalRatePerSec(1).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("duplicates");
    assertThatThrownBy(() -> Deployment.builder().duplicate(EXP_1MS).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("arrivalRatePerSec");
    assertThatThrownBy(() -> Deployment.builder().arrivalRatePerSec(-3))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("arrivalRatePerSec");
    assertThatThrownBy(() -> QueueingModel.GG1.meanWaitMs(1, EXP_1MS, Double.NaN))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("arrivalScv");
    assertThatThrownBy(() -> Strategy.predictability(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("duplicatesPerSet");
  }
}
