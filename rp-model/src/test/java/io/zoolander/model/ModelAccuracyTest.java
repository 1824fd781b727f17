package io.zoolander.model;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every model against the simulator, the reference. Each case runs 400k simulated accesses, so the
 * simulator's own binomial standard error is at most {@code sqrt(0.25 / 400k) = 8e-4} (about 5e-4
 * at the SLAs here); the bounds add that noise to the model error measured on this seed, and each
 * message prints the error reached.
 */
class ModelAccuracyTest {
  private static final int ACCESSES = 400_000;

  private static final LatencyDistribution LOG_NORMAL =
      LatencyDistributions.logNormalWithMean(1.0, 1.0);
  private static final LatencyDistribution BURSTY =
      LatencyDistributions.anomalyMixture(
          LatencyDistributions.truncatedNormal(1, 0.2),
          LatencyDistributions.shifted(LatencyDistributions.exponential(10), 1),
          0.03);

  private static LatencyDistribution service(String name) {
    return switch (name) {
      case "logNormal" -> LOG_NORMAL;
      case "bursty" -> BURSTY;
      case "thesisWrites" -> TradeOff.thesisLikeWrites();
      default -> throw new IllegalArgumentException(name);
    };
  }

  private static double simulate(
      LatencyDistribution service, int duplicates, double lambda, double tau) {
    return Simulation.builder()
        .strategy(Strategy.predictability(duplicates))
        .serviceTime(service)
        .arrivalRatePerSec(lambda)
        .accesses(ACCESSES)
        .warmupAccesses(10_000)
        .seed(42)
        .build()
        .run()
        .sla(tau);
  }

  @ParameterizedTest(name = "thesis model, logNormal, rho={0}, N={1}: |error| <= {2}")
  @DisplayName("thesis model vs simulator at low utilisation")
  @CsvSource({
    "0.01,1,0.003",
    "0.01,2,0.002",
    "0.01,4,0.001",
    "0.05,1,0.010",
    "0.05,2,0.005",
    "0.05,4,0.001"
  })
  void thesisModelAtLowUtilisation(double rho, int n, double bound) {
    double lambda = rho * 1000 / LOG_NORMAL.meanMs();
    double tau = 2 * LOG_NORMAL.meanMs();
    double simulated = simulate(LOG_NORMAL, n, lambda, tau);
    double predicted =
        ThesisModel.create().predict(Deployment.homogeneous(n, LOG_NORMAL, lambda), tau).sla();
    assertThat(Math.abs(predicted - simulated))
        .as(
            "thesis %.5f vs simulated %.5f: error %.5f",
            predicted, simulated, predicted - simulated)
        .isLessThanOrEqualTo(bound);
  }

  @ParameterizedTest(
      name = "distribution model, {0}, rho={1}, N={2}: |error| <= {3}, thesis error larger")
  @DisplayName("distribution-level model vs simulator, and vs the thesis model")
  @CsvSource({
    "logNormal,0.2,1,0.003",
    "logNormal,0.4,1,0.003",
    "bursty,0.2,1,0.002",
    "thesisWrites,0.2,1,0.006",
    "logNormal,0.05,2,0.003",
    "bursty,0.05,2,0.003",
    "thesisWrites,0.05,2,0.001"
  })
  void distributionModel(String name, double rho, int n, double bound) {
    LatencyDistribution service = service(name);
    double lambda = rho * 1000 / service.meanMs();
    double tau = name.equals("bursty") ? 2.0 : 2 * service.meanMs();
    Deployment deployment = Deployment.homogeneous(n, service, lambda);
    double simulated = simulate(service, n, lambda, tau);
    double distribution = DistributionModel.create().predict(deployment, tau).sla();
    double thesis = ThesisModel.create().predict(deployment, tau).sla();
    assertThat(Math.abs(distribution - simulated))
        .as(
            "distribution %.5f vs simulated %.5f: error %.5f (thesis %.5f)",
            distribution, simulated, distribution - simulated, thesis)
        .isLessThanOrEqualTo(bound);
    assertThat(Math.abs(distribution - simulated)).isLessThan(Math.abs(thesis - simulated));
  }

  @ParameterizedTest(
      name = "common-mode slowdowns, N={0}: correlated |error| <= {1}, independence over-predicts")
  @DisplayName("correlation-aware model vs simulator with common-mode slowdowns")
  @CsvSource({"2,0.006", "4,0.006"})
  void correlatedAnomalies(int n, double bound) {
    double tau = 2.0;
    double lambda = 10;
    SimulationResult result =
        Simulation.builder()
            .strategy(Strategy.predictability(n))
            .serviceTime(BURSTY)
            .arrivalRatePerSec(lambda)
            .commonMode(0.02, LatencyDistributions.shifted(LatencyDistributions.exponential(10), 2))
            .accesses(ACCESSES)
            .warmupAccesses(10_000)
            .seed(43)
            .build()
            .run();
    double[][] paired = result.pairedServiceMs();
    // What an operator measures: one duplicate's service times (common-mode delays included) and
    // paired samples.
    double[] oneDuplicate = new double[paired.length];
    for (int i = 0; i < paired.length; i++) {
      oneDuplicate[i] = paired[i][0];
    }
    Deployment deployment = Deployment.homogeneous(n, EmpiricalLatency.of(oneDuplicate), lambda);
    double simulated = result.sla(tau);
    double independent = ThesisModel.create().predict(deployment, tau).sla();
    double correlated =
        ThesisModel.builder()
            .dependence(CommonShock.estimate(paired))
            .build()
            .predict(deployment, tau)
            .sla();
    assertThat(Math.abs(correlated - simulated))
        .as(
            "correlated %.5f vs simulated %.5f: error %.5f; independent %.5f: error %.5f",
            correlated, simulated, correlated - simulated, independent, independent - simulated)
        .isLessThanOrEqualTo(bound);
    assertThat(independent - simulated).as("independence over-predicts").isGreaterThan(0.015);
  }
}
