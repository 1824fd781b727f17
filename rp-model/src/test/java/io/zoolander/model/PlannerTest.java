package io.zoolander.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class PlannerTest {
  private static final LatencyDistribution WRITES = TradeOff.thesisLikeWrites();
  private static final Planner PLANNER =
      Planner.builder().serviceTime(WRITES).tauMs(2 * WRITES.meanMs()).build();

  private static double rate(double utilisation) {
    return utilisation * 1000 / WRITES.meanMs();
  }

  @Test
  void evaluatesEveryStrategyWithinTheBudget() {
    // Pairs (r, d) with r * d <= 6: 6 + 3 + 2 + 1 + 1 + 1 = 14.
    assertThat(PLANNER.evaluateAll(6, rate(0.01))).hasSize(14);
  }

  @Test
  void bestForNodesFollowsUtilisation() {
    assertThat(PLANNER.best(8, rate(0.01)).strategy().replicaSets()).isEqualTo(1);
    // At 15% queueing dominates: the best plan splits load (a mix can beat pure throughput), never
    // pure RP.
    Planner.Plan busy = PLANNER.best(8, rate(0.15));
    assertThat(busy.strategy().replicaSets()).isGreaterThan(1);
    assertThat(busy.sla())
        .isGreaterThanOrEqualTo(PLANNER.evaluate(Strategy.throughput(8), rate(0.15)).sla());
    assertThat(PLANNER.evaluate(Strategy.predictability(8), rate(0.15)).sla())
        .isLessThan(busy.sla() - 0.5);
    Planner.Plan best = PLANNER.best(8, rate(0.05));
    for (Planner.Plan plan : PLANNER.evaluateAll(8, rate(0.05))) {
      assertThat(best.sla()).isGreaterThanOrEqualTo(plan.sla());
    }
  }

  @Test
  void fewestNodesMeetsTheTargetAndOneFewerDoesNot() {
    double target = 0.9999;
    Planner.Plan plan = PLANNER.fewestNodes(target, rate(0.01), 32).orElseThrow();
    assertThat(plan.prediction().meets(target)).isTrue();
    int nodes = plan.strategy().nodes();
    assertThat(nodes).isGreaterThan(1);
    assertThat(PLANNER.best(nodes - 1, rate(0.01)).prediction().meets(target)).isFalse();
    assertThat(PLANNER.fewestNodes(0.99999999, rate(0.15), 2)).isEmpty();
  }

  @Test
  void maxArrivalRateIsTheEdgeOfTheTarget() {
    double target = 0.999;
    Planner.Plan plan = PLANNER.maxArrivalRate(target, 8).orElseThrow();
    assertThat(plan.prediction().meets(target)).isTrue();
    assertThat(
            PLANNER
                .evaluate(plan.strategy(), plan.arrivalRatePerSec() * 1.01)
                .prediction()
                .meets(target))
        .isFalse();
    // No other strategy within the budget sustains more.
    for (int r = 1; r <= 8; r++) {
      for (int d = 1; r * d <= 8; d++) {
        Planner.Plan other = PLANNER.evaluate(new Strategy(r, d), plan.arrivalRatePerSec() * 1.01);
        assertThat(other.prediction().meets(target)).as("%s", other).isFalse();
      }
    }
  }

  private static final Planner ENGINE =
      Planner.builder().engine().serviceTime(WRITES).tauMs(2 * WRITES.meanMs()).build();

  @Test
  void theEngineGivesAUsefulAnswerWhereTheThesisBaselineScoresEverythingZero() {
    // The example: 500/s, 8 nodes. The mean M/G/1 wait of the heavy tail exceeds tau for
    // every strategy, so the thesis baseline scores all 0 although throughput(r=8) runs at 9%.
    assertThat(PLANNER.evaluateAll(8, 500)).allSatisfy(p -> assertThat(p.sla()).isZero());
    Planner.Plan best = ENGINE.best(8, 500);
    assertThat(best.sla()).isGreaterThan(0.99);
    assertThat(best.strategy()).isEqualTo(Strategy.mix(2, 4));
    assertThat(ENGINE.evaluate(Strategy.throughput(8), 500).sla()).isBetween(0.9, best.sla());
    assertThat(ENGINE.evaluate(Strategy.predictability(8), 500).sla()).isBetween(0.9, best.sla());
    Planner.Plan fewest = ENGINE.fewestNodes(0.999, 500, 32).orElseThrow();
    assertThat(fewest.prediction().meets(0.999)).isTrue();
    assertThat(fewest.strategy().nodes()).isGreaterThan(8);
    assertThat(ENGINE.best(fewest.strategy().nodes() - 1, 500).prediction().meets(0.999)).isFalse();
  }

  @Test
  void theEnginesGoodputIsTheEdgeOfTheTarget() {
    double target = 0.999;
    Planner.Plan plan = ENGINE.maxArrivalRate(target, 8).orElseThrow();
    assertThat(plan.prediction().meets(target)).isTrue();
    // No strategy within the budget meets the target at 5% more (the search runs shorter
    // simulations than the plan's, so the edge is known to about their Monte-Carlo error).
    for (int r = 1; r <= 8; r++) {
      for (int d = 1; r * d <= 8; d++) {
        Planner.Plan other = ENGINE.evaluate(new Strategy(r, d), plan.arrivalRatePerSec() * 1.05);
        assertThat(other.prediction().meets(target)).as("%s", other).isFalse();
      }
    }
    assertThat(ENGINE.maxArrivalRate(target, 1)).isEmpty();
  }

  @Test
  void capacityBisectsToTheTarget() {
    Deployment d = Deployment.homogeneous(3, LatencyDistributions.exponential(1), 0);
    double max = Capacity.maxArrivalRatePerSec(ThesisModel.create(), d, 5, 0.999);
    assertThat(ThesisModel.create().predict(d.withArrivalRate(max), 5).sla())
        .isCloseTo(0.999, within(1e-6));
    assertThat(Capacity.maxArrivalRatePerSec(ThesisModel.create(), d, 0.001, 0.999)).isZero();
  }

  @Test
  void badInputNamesTheParameter() {
    assertThatThrownBy(() -> Planner.builder().tauMs(1).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("serviceTime");
    assertThatThrownBy(() -> Planner.builder().serviceTime(WRITES).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("tauMs");
    assertThatThrownBy(() -> Planner.builder().tauMs(Double.NaN))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("tauMs");
    assertThatThrownBy(() -> PLANNER.best(0, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("nodes");
    assertThatThrownBy(() -> PLANNER.fewestNodes(1.0, 1, 4))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("targetSla");
    assertThatThrownBy(() -> PLANNER.evaluate(Strategy.predictability(2), -1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("arrivalRatePerSec");
    Optional<Planner.Plan> none = PLANNER.maxArrivalRate(0.999999999, 1);
    assertThat(none).isEmpty();
  }
}
