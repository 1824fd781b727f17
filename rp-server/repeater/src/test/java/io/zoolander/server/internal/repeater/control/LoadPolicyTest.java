package io.zoolander.server.internal.repeater.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zoolander.model.SlaEstimate;
import io.zoolander.server.repeater.ControllerDecision;
import io.zoolander.server.repeater.ControllerDecision.Action;
import io.zoolander.server.repeater.ControllerDecision.Reason;
import io.zoolander.server.repeater.ControllerSettings;
import io.zoolander.server.repeater.FanOutDecision;
import io.zoolander.wire.Membership;
import io.zoolander.wire.Membership.Member;
import io.zoolander.wire.Membership.State;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The controller's rules, period by period, on a clock the test moves. */
class LoadPolicyTest {
  private static final long COOLDOWN_MS = 30_000;
  private static final int RETIRE_PERIODS = 5;

  private final AtomicLong clock = new AtomicLong(1_000_000_000L);

  /** The predicted SLA by number of duplicates; absent: no samples. */
  private final Map<Integer, Double> sla = new HashMap<>();

  private final List<Integer> asked = new ArrayList<>();

  /** The ACK latencies the predictor holds. */
  private int samples = 1_000;

  private static ControllerSettings.Builder settings() {
    return ControllerSettings.builder()
        .targetSla(0.99)
        .retireMargin(0.005)
        .retirePeriods(RETIRE_PERIODS)
        .cooldownMs(COOLDOWN_MS)
        .spare(2, "127.0.0.1:2281")
        .spare(3, "127.0.0.1:2381");
  }

  private LoadPolicy policy(ControllerSettings s, int max) {
    return new LoadPolicy(s, max, clock::get);
  }

  private static Membership members(int... ids) {
    List<Member> list = new ArrayList<>();
    for (int id : ids) {
      list.add(new Member(id, State.ACTIVE, "127.0.0.1:" + (2081 + 100 * id)));
    }
    return new Membership(1, list);
  }

  private ControllerDecision decide(LoadPolicy p, Membership m) {
    asked.clear();
    return p.decide(
        new LoadPolicy.Observation(
            m,
            250,
            samples,
            n -> {
              asked.add(n);
              Double s = sla.get(n);
              return s == null
                  ? null
                  : new SlaEstimate(5, s, s, s, 0.95, 0, 0, SlaEstimate.Method.EXACT, 0.1);
            }));
  }

  private static SlaEstimate estimate(Double s) {
    return s == null
        ? null
        : new SlaEstimate(5, s, s, s, 0.95, 0, 0, SlaEstimate.Method.EXACT, 0.1);
  }

  /** A period whose prediction without one member comes from {@code without}: (id, N) to SLA. */
  private ControllerDecision decideWithout(
      LoadPolicy p, Membership m, Map<Integer, Double> withoutByMember) {
    return p.decide(
        new LoadPolicy.Observation(
            m,
            250,
            samples,
            n -> estimate(sla.get(n)),
            (id, n) -> {
              asked.add(-id);
              return estimate(withoutByMember.get(id));
            }));
  }

  private FanOutDecision fanOut(LoadPolicy p, Membership m) {
    asked.clear();
    return p.decideFanOut(
        new LoadPolicy.Observation(
            m,
            250,
            samples,
            n -> {
              asked.add(n);
              return estimate(sla.get(n));
            }));
  }

  private static Membership advising(int fanOut, int... ids) {
    Membership m = members(ids);
    return fanOut == 0 ? m : new Membership(m.version(), m.members(), fanOut);
  }

  private void advanceMs(long ms) {
    clock.addAndGet(TimeUnit.MILLISECONDS.toNanos(ms));
  }

  @Test
  void noSamplesNoDecision() {
    LoadPolicy p = policy(settings().build(), 3);
    ControllerDecision d = decide(p, members(1));
    assertThat(d.action()).isEqualTo(Action.HOLD);
    assertThat(d.reason()).isEqualTo(Reason.NO_SAMPLES);
    assertThat(d.predictedSla()).isNaN();
    assertThat(p.pending()).isNull();
    sla.put(1, Double.NaN); // an engine answer without samples behind it
    assertThat(decide(p, members(1)).reason()).isEqualTo(Reason.NO_SAMPLES);
  }

  @Test
  void aHandfulOfSamplesIsNoReasonToAdd() {
    LoadPolicy p = policy(settings().minSamples(100).build(), 3);
    sla.put(1, 0.0); // one slow first write
    samples = 99;
    ControllerDecision d = decide(p, members(1));
    assertThat(d.reason()).isEqualTo(Reason.NO_SAMPLES);
    assertThat(asked).as("the engine is not even asked").isEmpty();
    samples = 100;
    assertThat(decide(p, members(1)).action()).isEqualTo(Action.ADD);
  }

  @Test
  void belowTargetAddsTheFirstFreeSpareWithTheNumbersBehindIt() {
    LoadPolicy p = policy(settings().build(), 3);
    sla.put(1, 0.95);
    sla.put(2, 0.998);
    ControllerDecision d = decide(p, members(1));
    assertThat(d.action()).isEqualTo(Action.ADD);
    assertThat(d.reason()).isEqualTo(Reason.BELOW_TARGET);
    assertThat(d.duplicateId()).isEqualTo(2);
    assertThat(d.duplicates()).isEqualTo(1);
    assertThat(d.arrivalRatePerSec()).isEqualTo(250);
    assertThat(d.predictedSla()).isEqualTo(0.95);
    assertThat(d.predictedSlaMore()).isEqualTo(0.998);
    assertThat(d.predictedSlaFewer()).isNaN();
    assertThat(d.targetSla()).isEqualTo(0.99);
    assertThat(d.describe())
        .contains("add duplicate 2 (below_target): N=1", "N 0.9500", "N+1 0.9980", "target 0.99");
    assertThat(p.pending()).isSameAs(d);

    // One change at a time: nothing is judged until it ends.
    ControllerDecision during = decide(p, members(1));
    assertThat(during.reason()).isEqualTo(Reason.CHANGE_IN_PROGRESS);
    assertThat(asked).as("no engine run while a change is under way").isEmpty();
  }

  @Test
  void aJoiningMemberIsAChangeInProgress() {
    LoadPolicy p = policy(settings().build(), 3);
    sla.put(2, 0.5);
    Membership m =
        new Membership(
            3,
            List.of(
                new Member(1, State.ACTIVE, "127.0.0.1:2181"),
                new Member(2, State.JOINING, "127.0.0.1:2281")));
    assertThat(decide(p, m).reason()).isEqualTo(Reason.CHANGE_IN_PROGRESS);
  }

  @Test
  void theCooldownSpacesChangesFromTheEndOfTheLast() {
    LoadPolicy p = policy(settings().build(), 3);
    sla.put(1, 0.90);
    sla.put(2, 0.95);
    sla.put(3, 0.999);
    ControllerDecision add2 = decide(p, members(1));
    advanceMs(20_000); // the transfer takes a while: the cooldown starts at its end
    p.changeEnded(add2, true);
    advanceMs(COOLDOWN_MS - 1);
    ControllerDecision cooling = decide(p, members(1, 2));
    assertThat(cooling.reason()).isEqualTo(Reason.COOLDOWN);
    assertThat(cooling.predictedSla()).isEqualTo(0.95);
    assertThat(cooling.predictedSlaMore()).isEqualTo(0.999);
    advanceMs(1);
    ControllerDecision add3 = decide(p, members(1, 2));
    assertThat(add3.action()).isEqualTo(Action.ADD);
    assertThat(add3.duplicateId()).isEqualTo(3);
  }

  @Test
  void theBudgetAndThePoolBoundAdditions() {
    sla.put(2, 0.9);
    sla.put(3, 0.95);
    LoadPolicy budgetOfTwo = policy(settings().build(), 2);
    ControllerDecision atBudget = decide(budgetOfTwo, members(1, 2));
    assertThat(atBudget.reason()).isEqualTo(Reason.BELOW_TARGET_AT_BUDGET);
    assertThat(atBudget.predictedSlaMore()).as("not asked beyond the budget").isNaN();
    assertThat(asked).containsExactly(2);

    LoadPolicy noSpareLeft = policy(settings().build(), 4);
    sla.put(3, 0.95);
    sla.put(4, 0.97);
    ControllerDecision noSpare = decide(noSpareLeft, members(1, 2, 3));
    assertThat(noSpare.reason()).isEqualTo(Reason.BELOW_TARGET_NO_SPARE);
    assertThat(noSpare.action()).isEqualTo(Action.HOLD);

    LoadPolicy noPool =
        policy(ControllerSettings.builder().retirePeriods(RETIRE_PERIODS).build(), 3);
    sla.put(1, 0.5);
    assertThat(decide(noPool, members(1)).reason()).isEqualTo(Reason.BELOW_TARGET_NO_SPARE);
  }

  @Test
  void retiresOnlyAfterFewerSufficedForTheRequiredPeriodsInARow() {
    LoadPolicy p = policy(settings().build(), 3);
    sla.put(1, 0.999); // one would do, with the margin
    sla.put(2, 0.9999);
    for (int i = 1; i < RETIRE_PERIODS; i++) {
      ControllerDecision d = decide(p, members(1, 2));
      assertThat(d.reason()).isEqualTo(Reason.FEWER_SUFFICE_NOT_YET);
      assertThat(d.retireStreak()).isEqualTo(i);
      assertThat(d.predictedSlaFewer()).isEqualTo(0.999);
    }
    ControllerDecision retire = decide(p, members(1, 2));
    assertThat(retire.action()).isEqualTo(Action.RETIRE);
    assertThat(retire.reason()).isEqualTo(Reason.FEWER_SUFFICE);
    assertThat(retire.duplicateId()).isEqualTo(2);
    assertThat(retire.retireStreak()).isEqualTo(RETIRE_PERIODS);
    assertThat(retire.describe()).contains("retire duplicate 2", "N-1 0.9990");
  }

  @Test
  void aPredictionThatWavesAroundTheThresholdNeverRetires() {
    LoadPolicy p = policy(settings().build(), 3);
    sla.put(2, 0.9999);
    for (int period = 0; period < 100; period++) {
      // Fewer meets the target plus the margin in four periods out of five: never five in a row.
      sla.put(1, period % RETIRE_PERIODS == 0 ? 0.992 : 0.999);
      ControllerDecision d = decide(p, members(1, 2));
      assertThat(d.action()).as("period %d: %s", period, d.describe()).isEqualTo(Action.HOLD);
      advanceMs(1_000);
    }
  }

  @Test
  void whatItAddedItDoesNotRetireUntilTheLoadReallyFalls() {
    LoadPolicy p = policy(settings().build(), 3);
    sla.put(1, 0.985); // just below the target: one more is added
    sla.put(2, 0.999);
    ControllerDecision add = decide(p, members(1));
    assertThat(add.duplicateId()).isEqualTo(2);
    p.changeEnded(add, true);
    // The prediction for the new N - 1 is the one that just missed: no retirement, however long.
    for (int period = 0; period < 200; period++) {
      advanceMs(1_000);
      ControllerDecision d = decide(p, members(1, 2));
      assertThat(d.reason()).isIn(Reason.ON_TARGET);
    }
    // Not even once one duplicate meets the target again, short of the margin.
    sla.put(1, 0.993);
    for (int period = 0; period < 50; period++) {
      assertThat(decide(p, members(1, 2)).reason()).isEqualTo(Reason.ON_TARGET);
    }
    // The load falls for good: it retires what it added.
    sla.put(1, 0.9999);
    ControllerDecision last = null;
    for (int period = 0; period < RETIRE_PERIODS; period++) {
      last = decide(p, members(1, 2));
    }
    assertThat(last.action()).isEqualTo(Action.RETIRE);
    assertThat(last.duplicateId()).isEqualTo(2);
  }

  @Test
  void theStreakCountsThroughTheCooldownButTheRetirementWaitsForItsEnd() {
    LoadPolicy p = policy(settings().build(), 3);
    sla.put(1, 0.5);
    sla.put(2, 0.999);
    ControllerDecision add = decide(p, members(1));
    p.changeEnded(add, true);
    sla.put(1, 0.9999); // the load fell at once
    for (int i = 1; i < RETIRE_PERIODS; i++) {
      assertThat(decide(p, members(1, 2)).reason()).isEqualTo(Reason.FEWER_SUFFICE_NOT_YET);
    }
    ControllerDecision cooling = decide(p, members(1, 2));
    assertThat(cooling.reason()).isEqualTo(Reason.COOLDOWN);
    assertThat(cooling.retireStreak()).isEqualTo(RETIRE_PERIODS);
    advanceMs(COOLDOWN_MS);
    assertThat(decide(p, members(1, 2)).action()).isEqualTo(Action.RETIRE);
  }

  @Test
  void retiresTheMemberItAddedLastAndNeverAConfiguredOneOutsideThePool() {
    LoadPolicy p = policy(settings().cooldownMs(0).build(), 3);
    sla.put(1, 0.5);
    sla.put(2, 0.9);
    sla.put(3, 0.9999);
    ControllerDecision add2 = decide(p, members(1));
    p.changeEnded(add2, true);
    ControllerDecision add3 = decide(p, members(1, 2));
    assertThat(add3.duplicateId()).isEqualTo(3);
    p.changeEnded(add3, true);
    // Now everything is fast: three, two, then one would do.
    sla.put(1, 0.9999);
    sla.put(2, 0.9999);
    ControllerDecision retire = null;
    for (int i = 0; i < RETIRE_PERIODS; i++) {
      retire = decide(p, members(1, 2, 3));
    }
    assertThat(retire.duplicateId()).as("the one added last").isEqualTo(3);
    p.changeEnded(retire, true);
    for (int i = 0; i < RETIRE_PERIODS; i++) {
      retire = decide(p, members(1, 2));
    }
    assertThat(retire.duplicateId()).isEqualTo(2);
    p.changeEnded(retire, true);
    // Duplicate 1 was configured and is not in the pool: it stays, and so does the minimum.
    ControllerDecision atMinimum = decide(p, members(1));
    assertThat(atMinimum.reason()).isEqualTo(Reason.AT_MINIMUM);
    assertThat(atMinimum.predictedSlaFewer()).as("not asked below the minimum").isNaN();

    LoadPolicy configuredOnly = policy(settings().build(), 3);
    ControllerDecision nothing = null;
    for (int i = 0; i < RETIRE_PERIODS; i++) {
      nothing = decide(configuredOnly, members(1, 4));
    }
    assertThat(nothing.reason()).isEqualTo(Reason.NOTHING_TO_RETIRE);
  }

  @Test
  void aConfiguredDuplicateInThePoolMayBeRetiredAfterThoseItAdded() {
    LoadPolicy p =
        policy(
            ControllerSettings.builder()
                .retirePeriods(1)
                .cooldownMs(0)
                .spare(1, "127.0.0.1:2181")
                .spare(2, "127.0.0.1:2281")
                .spare(3, "127.0.0.1:2381")
                .build(),
            3);
    sla.put(2, 0.9999);
    sla.put(1, 0.9999);
    ControllerDecision d = decide(p, members(1, 2));
    assertThat(d.action()).isEqualTo(Action.RETIRE);
    assertThat(d.duplicateId()).as("the last of the pool's members in pool order").isEqualTo(2);
  }

  @Test
  void theMinimumHoldsAndFewerIsNotAskedBelowIt() {
    LoadPolicy p = policy(settings().minDuplicates(2).build(), 3);
    sla.put(2, 0.9999);
    sla.put(1, 0.9999);
    for (int i = 0; i < 3 * RETIRE_PERIODS; i++) {
      assertThat(decide(p, members(1, 2)).reason()).isEqualTo(Reason.AT_MINIMUM);
      assertThat(asked).containsExactly(2);
    }
  }

  @Test
  void aFailedAdditionCoolsDownAndTriesAnotherSpareFirst() {
    LoadPolicy p = policy(settings().build(), 3);
    sla.put(1, 0.5);
    sla.put(2, 0.9);
    ControllerDecision add2 = decide(p, members(1));
    assertThat(add2.duplicateId()).isEqualTo(2);
    p.changeEnded(add2, false);
    assertThat(p.pending()).isNull();
    assertThat(decide(p, members(1)).reason()).isEqualTo(Reason.COOLDOWN);
    advanceMs(COOLDOWN_MS);
    ControllerDecision next = decide(p, members(1));
    assertThat(next.duplicateId()).as("the spare that did not fail").isEqualTo(3);
    p.changeEnded(next, false);
    advanceMs(COOLDOWN_MS);
    assertThat(decide(p, members(1)).duplicateId())
        .as("both failed once: back to pool order")
        .isEqualTo(2);
  }

  @Test
  void aFailedRetirementCoolsDownAndStartsTheStreakOver() {
    LoadPolicy p = policy(settings().build(), 3);
    sla.put(2, 0.9999);
    sla.put(1, 0.9999);
    ControllerDecision retire = null;
    for (int i = 0; i < RETIRE_PERIODS; i++) {
      retire = decide(p, members(1, 2));
    }
    assertThat(retire.action()).isEqualTo(Action.RETIRE);
    p.changeEnded(retire, false);
    advanceMs(COOLDOWN_MS);
    ControllerDecision d = decide(p, members(1, 2));
    assertThat(d.reason()).isEqualTo(Reason.FEWER_SUFFICE_NOT_YET);
    assertThat(d.retireStreak()).isEqualTo(1);
  }

  @Test
  void aSpareThatMasksASlowMemberIsNotRetiredWhileThatMemberIsSlow() {
    LoadPolicy p = policy(settings().build(), 3);
    sla.put(1, 0.9);
    sla.put(2, 0.999);
    ControllerDecision add = decide(p, members(1));
    assertThat(add.duplicateId()).isEqualTo(2);
    p.changeEnded(add, true);
    advanceMs(COOLDOWN_MS);
    // Pooled with the fast spare's samples, one duplicate looks good; duplicate 1 alone is not.
    sla.put(1, 0.9999);
    Map<Integer, Double> without = new HashMap<>(Map.of(2, 0.9));
    for (int period = 0; period < 3 * RETIRE_PERIODS; period++) {
      ControllerDecision d = decideWithout(p, members(1, 2), without);
      assertThat(d.reason()).as("period %d: %s", period, d.describe()).isEqualTo(Reason.ON_TARGET);
      assertThat(d.predictedSlaFewer()).isEqualTo(0.9);
    }
    assertThat(asked).as("asked without the spare a retirement would remove").contains(-2);
    // Duplicate 1 recovers: the spare goes.
    without.put(2, 0.9999);
    ControllerDecision last = null;
    for (int period = 0; period < RETIRE_PERIODS; period++) {
      last = decideWithout(p, members(1, 2), without);
    }
    assertThat(last.action()).isEqualTo(Action.RETIRE);
    assertThat(last.duplicateId()).isEqualTo(2);
  }

  @Test
  void theFirstAdviceIsTheFewestDuplicatesPerReadThatMeetTheTarget() {
    LoadPolicy p = policy(settings().build(), 3);
    sla.put(1, 0.95);
    sla.put(2, 0.995);
    sla.put(3, 0.9999);
    FanOutDecision d = fanOut(p, advising(0, 1, 2, 3));
    assertThat(d.action()).isEqualTo(FanOutDecision.Action.RAISE);
    assertThat(d.reason()).isEqualTo(FanOutDecision.Reason.READS_MISS);
    assertThat(d.fanOut()).isEqualTo(2);
    assertThat(d.predictedSla()).as("none advised: nothing to predict for").isNaN();
    assertThat(d.describe()).contains("raised to 2", "reads_miss", "N=3");
    assertThat(fanOut(p, advising(0, 1, 2, 3)).reason())
        .as("one change at a time")
        .isEqualTo(FanOutDecision.Reason.CHANGE_IN_PROGRESS);
    p.fanOutChangeEnded(d);
    FanOutDecision on = fanOut(p, advising(2, 1, 2, 3));
    assertThat(on.reason()).isEqualTo(FanOutDecision.Reason.ON_TARGET);
    assertThat(on.fanOut()).isEqualTo(2);
    assertThat(on.predictedSla()).isEqualTo(0.995);
    assertThat(on.predictedSlaFewer()).isEqualTo(0.95);
  }

  @Test
  void readsThatMissAskMoreAtOnceAndEveryDuplicateAtMost() {
    LoadPolicy p = policy(settings().build(), 3);
    sla.put(1, 0.9);
    sla.put(2, 0.95);
    sla.put(3, 0.97);
    FanOutDecision raise = fanOut(p, advising(1, 1, 2, 3));
    assertThat(raise.fanOut()).as("none meets the target: every duplicate").isEqualTo(3);
    assertThat(raise.predictedSla()).isEqualTo(0.9);
    p.fanOutChangeEnded(raise);
    FanOutDecision all = fanOut(p, advising(3, 1, 2, 3));
    assertThat(all.reason()).isEqualTo(FanOutDecision.Reason.READS_ASK_ALL);
    assertThat(all.changes()).isFalse();
    // A member retired since the advice: clients take at most the active ones, so nothing to do.
    assertThat(fanOut(p, advising(3, 1, 2)).reason())
        .isEqualTo(FanOutDecision.Reason.READS_ASK_ALL);
  }

  @Test
  void readsAskOneFewerOnlyAfterItSufficedForTheRequiredPeriodsInARow() {
    LoadPolicy p = policy(settings().build(), 3);
    sla.put(1, 0.999);
    sla.put(2, 0.9999);
    for (int i = 1; i < RETIRE_PERIODS; i++) {
      FanOutDecision d = fanOut(p, advising(2, 1, 2));
      assertThat(d.reason()).isEqualTo(FanOutDecision.Reason.FEWER_SUFFICE_NOT_YET);
      assertThat(d.lowerStreak()).isEqualTo(i);
    }
    FanOutDecision lower = fanOut(p, advising(2, 1, 2));
    assertThat(lower.action()).isEqualTo(FanOutDecision.Action.LOWER);
    assertThat(lower.fanOut()).isEqualTo(1);
    assertThat(lower.describe()).contains("lowered to 1", "one fewer per read 0.9990");
    p.fanOutChangeEnded(lower);
    assertThat(fanOut(p, advising(1, 1, 2)).reason()).isEqualTo(FanOutDecision.Reason.AT_ONE);

    // A prediction that waves around the threshold never lowers it.
    LoadPolicy waving = policy(settings().build(), 3);
    for (int period = 0; period < 100; period++) {
      sla.put(1, period % RETIRE_PERIODS == 0 ? 0.992 : 0.999);
      assertThat(fanOut(waving, advising(2, 1, 2)).changes()).as("period %d", period).isFalse();
    }
  }

  @Test
  void theFanOutWaitsForAMemberChangeAndForSamples() {
    LoadPolicy p = policy(settings().build(), 3);
    sla.put(1, 0.5);
    sla.put(2, 0.999);
    ControllerDecision add = decide(p, members(1));
    assertThat(add.action()).isEqualTo(Action.ADD);
    assertThat(fanOut(p, advising(0, 1)).reason())
        .isEqualTo(FanOutDecision.Reason.CHANGE_IN_PROGRESS);
    p.changeEnded(add, true);
    Membership joining =
        members(1).with(new Member(2, State.JOINING, "127.0.0.1:2281")).withReadFanOut(1);
    assertThat(fanOut(p, joining).reason()).isEqualTo(FanOutDecision.Reason.CHANGE_IN_PROGRESS);
    samples = 3;
    assertThat(fanOut(p, advising(1, 1, 2)).reason()).isEqualTo(FanOutDecision.Reason.NO_SAMPLES);
    assertThat(asked).as("no engine run on a handful of samples").isEmpty();
    samples = 1_000;
    FanOutDecision raise = fanOut(p, advising(1, 1, 2));
    assertThat(raise.fanOut()).isEqualTo(2);
    assertThatThrownBy(() -> p.fanOutChangeEnded(fanOut(p, advising(1, 1, 2))))
        .isInstanceOf(IllegalStateException.class);
    p.fanOutChangeEnded(raise);
    assertThatThrownBy(() -> p.fanOutChangeEnded(raise)).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void onlyTheChangeUnderWayEnds() {
    LoadPolicy p = policy(settings().build(), 3);
    sla.put(1, 0.5);
    ControllerDecision add = decide(p, members(1));
    ControllerDecision hold = decide(p, members(1));
    assertThatThrownBy(() -> p.changeEnded(hold, true)).isInstanceOf(IllegalStateException.class);
    p.changeEnded(add, true);
    assertThatThrownBy(() -> p.changeEnded(add, true)).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void theBudgetIsAtLeastTheMinimum() {
    assertThatThrownBy(() -> policy(settings().minDuplicates(3).build(), 2))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxDuplicates");
  }
}
