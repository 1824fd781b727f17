package io.zoolander.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class DistributionModelTest {

  @Test
  void mm1ResponseTimeIsExponentialWithRateMuMinusLambda() {
    // M/M/1 sojourn time ~ Exp(mu - lambda): mean service 1 ms (mu = 1/ms), lambda = 0.6/ms.
    LatencyDistribution service = LatencyDistributions.exponential(1.0);
    Deployment d = Deployment.homogeneous(1, service, 600);
    for (double tau : new double[] {0.5, 1, 2, 5, 10}) {
      double exact = 1 - Math.exp(-(1 - 0.6) * tau);
      double predicted = DistributionModel.builder().gridPoints(2048).build().predict(d, tau).sla();
      assertThat(predicted)
          .as("tau=%s: exact %.6f, predicted %.6f", tau, exact, predicted)
          .isCloseTo(exact, within(2e-3));
    }
  }

  @Test
  void idleDeploymentReducesToServiceCdfConvolvedWithNetwork() {
    LatencyDistribution service = LatencyDistributions.gamma(4, 0.25); // mean 1 ms
    Deployment d =
        Deployment.builder()
            .networkDelay(LatencyDistributions.constant(0.3))
            .duplicates(2, service)
            .arrivalRatePerSec(0)
            .build();
    double tau = 1.5;
    double phi = service.cdf(tau - 0.3);
    assertThat(DistributionModel.create().predict(d, tau).sla())
        .isCloseTo(1 - Math.pow(1 - phi, 2), within(2e-3));
  }

  @Test
  void waitingSpreadMattersWhereTheThesisModelOnlySubtractsItsMean() {
    // At rho = 0.7 the mean wait is 2.33 ms; the thesis model pushes tau = 3 ms to 0.67 ms for
    // every access, the
    // distribution model knows 30% of accesses do not wait at all.
    LatencyDistribution service = LatencyDistributions.exponential(1.0);
    Deployment d = Deployment.homogeneous(1, service, 700);
    double exact = 1 - Math.exp(-0.3 * 3);
    double thesis = ThesisModel.create().predict(d, 3).sla();
    double distribution = DistributionModel.create().predict(d, 3).sla();
    assertThat(Math.abs(distribution - exact)).isLessThan(Math.abs(thesis - exact));
  }

  @Test
  void unstableAndBadInput() {
    LatencyDistribution service = LatencyDistributions.exponential(2.0);
    assertThat(
            DistributionModel.create().predict(Deployment.homogeneous(2, service, 500), 5).status())
        .isEqualTo(SlaPrediction.Status.UNSTABLE);
    Deployment renewal =
        Deployment.builder().duplicate(service).arrivalRatePerSec(10).arrivalScv(0.5).build();
    assertThatThrownBy(() -> DistributionModel.create().predict(renewal, 5))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("arrivalScv");
    assertThatThrownBy(() -> DistributionModel.builder().gridPoints(3))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("gridPoints");
    assertThatThrownBy(
            () -> DistributionModel.create().predict(Deployment.homogeneous(1, service, 1), -0.1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("tauMs");
  }
}
