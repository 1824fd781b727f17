package io.zoolander.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** The accuracy test's reference on M/M/1, whose sojourn time is Exp(1 - rho) (service mean 1). */
class ReferenceSimulationTest {
  private static final double RHO = 0.3;

  private static double exactMiss(double tau) {
    return Math.exp(-(1 - RHO) * tau);
  }

  @Test
  void manyMissesAtEveryBoundNeedNoMoreThanTheFirstReplications() {
    double[] taus = {1, 3};
    ReferenceSimulation.Result r =
        ReferenceSimulation.run(LatencyDistributions.exponential(1), RHO * 1000, 1, taus, 1);
    assertThat(r.accesses())
        .isEqualTo(
            (long) ReferenceSimulation.FIRST_REPLICATIONS
                * ReferenceSimulation.ACCESSES_PER_REPLICATION);
    for (int i = 0; i < taus.length; i++) {
      assertThat(r.missRatio()[i]).isCloseTo(exactMiss(taus[i]), within(4 * r.standardError()[i]));
      // Consecutive accesses share waits, so the spread of replications exceeds the Poisson error.
      assertThat(r.standardError()[i])
          .isGreaterThan(Math.sqrt(r.missRatio()[i] * r.accesses()) / r.accesses());
    }
  }

  @Test
  void aBoundWithFewMissesDoublesTheReplicationsUpToTheCap() {
    // exp(-0.7 * 15) = 2.8e-5: about 28 misses in the first 10^6 accesses, 220 at the cap.
    double[] taus = {1, 15};
    ReferenceSimulation.Result r =
        ReferenceSimulation.run(LatencyDistributions.exponential(1), RHO * 1000, 1, taus, 2);
    assertThat(r.accesses()).isEqualTo(ReferenceSimulation.MAX_ACCESSES);
    for (int i = 0; i < taus.length; i++) {
      assertThat(r.missRatio()[i]).isCloseTo(exactMiss(taus[i]), within(4 * r.standardError()[i]));
    }
  }

  @Test
  void aBoundWithNoMissDoublesTheReplicationsUpToTheCapAndHasTheErrorOfOneMiss() {
    double[] taus = {60}; // exp(-42): none in 8 x 10^6
    ReferenceSimulation.Result r =
        ReferenceSimulation.run(LatencyDistributions.exponential(1), RHO * 1000, 1, taus, 3);
    assertThat(r.missRatio()[0]).isZero();
    assertThat(r.accesses()).isEqualTo(ReferenceSimulation.MAX_ACCESSES);
    assertThat(r.standardError()[0]).isEqualTo(1.0 / r.accesses());
  }
}
