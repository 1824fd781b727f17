package io.zoolander.client.internal.balance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zoolander.client.balance.BalanceDecision;
import io.zoolander.client.balance.BalanceDecision.Action;
import io.zoolander.client.balance.BalanceDecision.Reason;
import io.zoolander.client.balance.BalancerSettings;
import io.zoolander.client.balance.PartitionLoad;
import io.zoolander.wire.NameRoutes;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The balancer's rules, period by period, on a stepped clock. */
class PartitionPolicyTest {
  private static final long COOLDOWN_MS = 30_000;
  private final AtomicLong now = new AtomicLong();
  private final Map<String, Integer> routes = new HashMap<>();
  private final PartitionPolicy policy =
      new PartitionPolicy(
          BalancerSettings.builder()
              .highMark(0.8)
              .lowMark(0.5)
              .cooldownMs(COOLDOWN_MS)
              .consolidatePeriods(3)
              .build(),
          now::get);

  /** A partition with capacity {@code capacity} and names and rates given in pairs. */
  private PartitionLoad load(int partition, double capacity, Object... nameRates) {
    Map<String, Double> rates = new LinkedHashMap<>();
    for (int i = 0; i < nameRates.length; i += 2) {
      String name = (String) nameRates[i];
      rates.put(name, ((Number) nameRates[i + 1]).doubleValue());
      routes.putIfAbsent(name, partition);
    }
    return new PartitionLoad(rates, capacity);
  }

  private BalanceDecision decide(PartitionLoad... loads) {
    return policy.decide(List.of(loads), path -> routes.getOrDefault(path.substring(1), -1));
  }

  private void advanceMs(long ms) {
    now.addAndGet(TimeUnit.MILLISECONDS.toNanos(ms));
  }

  private static void assertMove(BalanceDecision d, Reason reason, String name, int from, int to) {
    assertThat(d.action()).isEqualTo(Action.MOVE);
    assertThat(d.reason()).isEqualTo(reason);
    assertThat(d.name()).isEqualTo(name);
    assertThat(d.from()).isEqualTo(from);
    assertThat(d.to()).isEqualTo(to);
  }

  @Test
  void anOverloadedPartitionShedsItsBusiestNameThatFitsIntoTheBusyPartitionWithMostRoom() {
    BalanceDecision d =
        decide(
            load(0, 100, "a", 50, "b", 30, "c", 5), // 85 > 80
            load(1, 100, "x", 20), // a fits: 70, room 10
            load(2, 100, "y", 40), // a does not: 90
            load(3, Double.NaN)); // a spare: idle while a busy partition has room
    assertMove(d, Reason.OVERLOADED, "a", 0, 1);
    assertThat(d.nameRatePerSec()).isEqualTo(50);
    assertThat(d.fromRatePerSec()).isEqualTo(85);
    assertThat(d.fromCapacityPerSec()).isEqualTo(100);
    assertThat(d.toRatePerSec()).isEqualTo(20);
    assertThat(d.describe())
        .isEqualTo(
            "move /a (50.0 writes/s) (overloaded): partition 0 at 85.0 of 100.0 writes/s, to"
                + " partition 1 at 20.0 of 100.0 writes/s");
    assertThat(policy.pending()).isEqualTo(d);
    assertThat(decide(load(0, 100, "a", 50, "b", 30, "c", 5), load(1, 100, "x", 20)).reason())
        .isEqualTo(Reason.MOVE_IN_PROGRESS);
  }

  @Test
  void aNameTooBusyForTheBusyPartitionsGoesToASpareOnlyIfNoLighterNameFitsThere() {
    // /a fits only the spare, /b fits partition 1: the busy partition takes /b.
    assertMove(
        decide(load(0, 100, "a", 70, "b", 15), load(1, 100, "x", 60), load(2, Double.NaN)),
        Reason.OVERLOADED,
        "b",
        0,
        1);
    PartitionPolicy fresh =
        new PartitionPolicy(BalancerSettings.defaults(), now::get); // nothing under way
    // Partition 1 has no room for either: the spare, taken to be as large as the median known
    // partition, takes the busiest.
    BalanceDecision d =
        fresh.decide(
            List.of(load(0, 100, "a", 70, "b", 15), load(1, 100, "x", 75), load(2, Double.NaN)),
            path -> routes.get(path.substring(1)));
    assertMove(d, Reason.OVERLOADED, "a", 0, 2);
    assertThat(d.toCapacityPerSec()).isEqualTo(100);
  }

  @Test
  void aSpareTakesANameOnlyWithinTheNodeBudget() {
    PartitionPolicy budget =
        new PartitionPolicy(BalancerSettings.builder().maxServingPartitions(2).build(), now::get);
    BalanceDecision d =
        budget.decide(
            List.of(load(0, 100, "a", 70, "b", 15), load(1, 100, "x", 75), load(2, Double.NaN)),
            path -> routes.get(path.substring(1)));
    assertThat(d.reason()).isEqualTo(Reason.OVERLOADED_AT_BUDGET);
    assertThat(d.from()).isZero();
    assertThat(d.to()).isEqualTo(2);
    assertThat(budget.pending()).isNull();
  }

  @Test
  void holdsWhenNothingFitsNothingIsKnownOrNothingIsWritten() {
    assertThat(decide(load(0, 100, "a", 90), load(1, 100, "x", 75)).reason())
        .isEqualTo(Reason.OVERLOADED_NO_ROOM);
    assertThat(decide(load(0, Double.NaN, "a", 90), load(1, Double.NaN)).reason())
        .isEqualTo(Reason.NO_CAPACITY);
    assertThat(decide(load(0, Double.NaN), load(1, Double.NaN)).reason())
        .isEqualTo(Reason.BALANCED);
    assertThat(decide(load(0, 100, "a", 60), load(1, 100, "x", 70)).reason())
        .isEqualTo(Reason.BALANCED); // neither sheds, together 130 > 50
    assertThat(policy.pending()).isNull();
  }

  @Test
  void theRouteRecordAndTheOtherNamesAreCountedButNeverMoved() {
    BalanceDecision d =
        decide(
            load(0, 100, NameRoutes.OTHER_NAMES, 70, NameRoutes.NAME, 8, "a", 5),
            load(1, 100, "x", 10));
    assertMove(d, Reason.OVERLOADED, "a", 0, 1);
    assertThat(d.fromRatePerSec()).isEqualTo(83);
  }

  @Test
  void afterAMoveEndsTheNextWaitsForTheCooldownAndAFailedMoveIsNotTriedAgain() {
    BalanceDecision first = decide(load(0, 100, "a", 50, "b", 40), load(1, 100), load(2, 100));
    assertMove(first, Reason.OVERLOADED, "a", 0, 1); // both idle: the first of most room
    assertThatThrownBy(() -> policy.moveEnded(decide(load(0, 100)), false))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("not the move under way");
    policy.moveEnded(first, false);
    assertThat(policy.pending()).isNull();

    advanceMs(COOLDOWN_MS - 1);
    BalanceDecision cooling = decide(load(0, 100, "a", 50, "b", 40), load(1, 100), load(2, 100));
    assertThat(cooling.reason()).isEqualTo(Reason.COOLDOWN);
    assertThat(cooling.from()).isZero();
    advanceMs(1);
    assertMove(
        decide(load(0, 100, "a", 50, "b", 40), load(1, 100), load(2, 100)),
        Reason.OVERLOADED,
        "a",
        0,
        2); // not to 1 again
  }

  @Test
  void aLullThatLastsDrainsTheLightestPartitionOneNamePerCooldown() {
    // Partition 0's 15 fits under half of partition 1's capacity with 20 there.
    for (int period = 1; period < 3; period++) {
      BalanceDecision d = decide(load(0, 100, "a", 10, "c", 5), load(1, 100, "b", 20));
      assertThat(d.reason()).isEqualTo(Reason.CONSOLIDATE_NOT_YET);
      assertThat(d.consolidateStreak()).isEqualTo(period);
      assertThat(d.from()).isZero();
      assertThat(d.to()).isEqualTo(1);
    }
    // A busier period ends the streak.
    assertThat(decide(load(0, 100, "a", 30, "c", 5), load(1, 100, "b", 20)).reason())
        .isEqualTo(Reason.BALANCED);
    for (int period = 1; period < 3; period++) {
      assertThat(decide(load(0, 100, "a", 10, "c", 5), load(1, 100, "b", 20)).reason())
          .isEqualTo(Reason.CONSOLIDATE_NOT_YET);
    }
    BalanceDecision first = decide(load(0, 100, "a", 10, "c", 5), load(1, 100, "b", 20));
    assertMove(first, Reason.CONSOLIDATE, "a", 0, 1);
    assertThat(first.consolidateStreak()).isEqualTo(3);
    policy.moveEnded(first, true);
    routes.put("a", 1);

    // The old partition still shows /a's writes for a window, the new one not yet: they count
    // where /a lives now. The next name follows once the cooldown has passed, without a new streak.
    BalanceDecision cooling = decide(load(0, 100, "a", 10, "c", 5), load(1, 100, "b", 20));
    assertThat(cooling.reason()).isEqualTo(Reason.COOLDOWN);
    assertThat(cooling.fromRatePerSec()).isEqualTo(5);
    assertThat(cooling.toRatePerSec()).isEqualTo(30);
    advanceMs(COOLDOWN_MS);
    BalanceDecision next = decide(load(0, 100, "a", 10, "c", 5), load(1, 100, "b", 20, "a", 12));
    assertMove(next, Reason.CONSOLIDATE, "c", 0, 1);
    assertThat(next.toRatePerSec()).as("/a at its new partition's own rate").isEqualTo(32);
  }

  @Test
  void aMovedNamesStaleRateDoesNotMakeItsOldPartitionShedAnother() {
    routes.put("a", 1); // moved a moment ago: partition 0's window still counts it
    assertThat(decide(load(0, 100, "a", 50, "b", 40), load(1, 100, "x", 10)).reason())
        .isEqualTo(Reason.BALANCED);
    BalanceDecision d = decide(load(0, 100, "a", 50, "b", 45), load(1, 100, "x", 10));
    assertThat(d.reason()).isEqualTo(Reason.BALANCED);
  }

  @Test
  void aConsolidationFillsAPartitionOnlyToTheLowMarkSoItDoesNotShedItBack() {
    // Together 55 > 50: no consolidation, though both are far below the high mark.
    for (int period = 0; period < 5; period++) {
      assertThat(decide(load(0, 100, "a", 25), load(1, 100, "b", 30)).reason())
          .isEqualTo(Reason.BALANCED);
    }
  }
}
