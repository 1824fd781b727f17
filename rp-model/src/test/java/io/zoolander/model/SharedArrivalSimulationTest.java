package io.zoolander.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The simulation's own numerics, against their plain definitions. */
class SharedArrivalSimulationTest {

  @Test
  void theNthLargestIsTheOneASortSays() {
    SplittableRandom rng = new SplittableRandom(7);
    double[] kept = new double[32];
    for (int trial = 0; trial < 20_000; trial++) {
      int k = 1 + rng.nextInt(32);
      double[] values = new double[k];
      for (int j = 0; j < k; j++) {
        // Idle (zero or negative) copies, and ties, as the backlogs have them.
        int kind = rng.nextInt(4);
        values[j] = kind == 0 ? -rng.nextDouble() : kind == 1 ? rng.nextInt(3) : rng.nextDouble();
      }
      int positive = (int) Arrays.stream(values).filter(v -> v > 0).count();
      if (positive == 0) {
        continue;
      }
      int n = 1 + rng.nextInt(positive);
      double[] sorted = values.clone();
      Arrays.sort(sorted);
      assertThat(SharedArrivalSimulation.nthLargest(values, k, n, positive, kept))
          .as("n = %d of %s", n, Arrays.toString(values))
          .isEqualTo(sorted[k - n]);
    }
  }

  @Test
  void anAbandonedRunStopsAndReturnsNothing() throws Exception {
    SlaEngine engine =
        SlaEngine.builder()
            .strategy(Strategy.predictability(4))
            .serviceTime(LatencyDistributions.logNormalWithMean(1, 1))
            .arrivalRatePerSec(100)
            .build();
    double[] taus = {3.0};
    SharedArrivalSimulation sim = engine.simulation(taus, new double[2][1], 0);
    sim.accesses = Long.MAX_VALUE / 4; // years of work: it ends only by being abandoned
    CompletableFuture<SharedArrivalSimulation.Result> run = CompletableFuture.supplyAsync(sim::run);
    sim.abandon();
    assertThat(run.get(60, TimeUnit.SECONDS)).isNull();
  }

  @Test
  void theFastExponentialAndLogarithmMatchTheLibrarys() {
    for (double x = 1e-12; x < 50; x *= 1.07) {
      double exact = -Math.expm1(-x);
      assertThat(SharedArrivalSimulation.oneMinusExp(x)).isCloseTo(exact, within(exact * 1e-10));
    }
    assertThat(SharedArrivalSimulation.oneMinusExp(0)).isZero();
    for (double y = 1e-12; y < 1 - 1e-12; y = y < 0.5 ? y * 1.07 : y + (1 - y) / 8) {
      double exact = -Math.log1p(-y);
      assertThat(SharedArrivalSimulation.minusLogOneMinus(y))
          .isCloseTo(exact, within(exact * 1e-10));
    }
  }
}
