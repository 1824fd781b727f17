package io.zoolander.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.function.DoubleUnaryOperator;
import org.apache.commons.math3.random.RandomGenerator;
import org.apache.commons.math3.random.Well19937c;
import org.junit.jupiter.api.Test;

class FanOutTest {

  @Test
  void parallelAccessesMultiply() {
    assertThat(FanOut.parallel(0.99, 50)).isCloseTo(Math.pow(0.99, 50), within(1e-15));
    assertThat(FanOut.parallel(0.9999, 1)).isEqualTo(0.9999);
  }

  @Test
  void singlePhaseEqualsParallel() {
    LatencyDistribution access = LatencyDistributions.exponential(1);
    assertThat(FanOut.phases(access::cdf, 4, 30))
        .isCloseTo(FanOut.parallel(access.cdf(4), 30), within(1e-15));
  }

  @Test
  void twoPhasesOfExponentialMaximaMatchAMonteCarloReference() {
    // 30 reads, barrier, 20 reads, each read exponential with mean 0.5 ms; request SLA at tau = 6
    // ms.
    LatencyDistribution access = LatencyDistributions.exponential(0.5);
    double tau = 6;
    double predicted = FanOut.phases(access::cdf, tau, new int[] {30, 20}, 1024);
    RandomGenerator rng = new Well19937c(3);
    int requests = 100_000;
    int met = 0;
    for (int r = 0; r < requests; r++) {
      double total = 0;
      for (int phase : new int[] {30, 20}) {
        double slowest = 0;
        for (int i = 0; i < phase; i++) {
          slowest = Math.max(slowest, access.sample(rng));
        }
        total += slowest;
      }
      met += total <= tau ? 1 : 0;
    }
    double observed = (double) met / requests;
    // Binomial standard error at ~0.8 over 100k is 1.3e-3; grid error is a few 1e-3.
    assertThat(predicted)
        .as("predicted %.5f, Monte Carlo %.5f", predicted, observed)
        .isCloseTo(observed, within(0.008));
  }

  @Test
  void moreDuplicatesRaiseFanOutSla() {
    LatencyDistribution service =
        LatencyDistributions.anomalyMixture(
            LatencyDistributions.truncatedNormal(1, 0.2),
            LatencyDistributions.exponential(50),
            0.01);
    ThesisModel model = ThesisModel.create();
    DoubleUnaryOperator one =
        tau -> model.predict(Deployment.homogeneous(1, service, 0), tau).sla();
    DoubleUnaryOperator four =
        tau -> model.predict(Deployment.homogeneous(4, service, 0), tau).sla();
    double tau = 5;
    assertThat(FanOut.phases(four, tau, 30, 20))
        .isGreaterThan(FanOut.phases(one, tau, 30, 20) + 0.3);
  }

  @Test
  void badInputNamesTheParameter() {
    DoubleUnaryOperator cdf = x -> 1;
    assertThatThrownBy(() -> FanOut.parallel(1.1, 2))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("accessSla");
    assertThatThrownBy(() -> FanOut.parallel(0.5, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("accesses");
    assertThatThrownBy(() -> FanOut.phases(cdf, -1, 3))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("tauMs");
    assertThatThrownBy(() -> FanOut.phases(cdf, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("accessesPerPhase");
    assertThatThrownBy(() -> FanOut.phases(cdf, 1, 3, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("accessesPerPhase[1]");
  }
}
