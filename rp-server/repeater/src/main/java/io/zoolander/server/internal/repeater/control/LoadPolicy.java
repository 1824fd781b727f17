package io.zoolander.server.internal.repeater.control;

import io.zoolander.model.SlaEstimate;
import io.zoolander.server.repeater.ControllerDecision;
import io.zoolander.server.repeater.ControllerDecision.Action;
import io.zoolander.server.repeater.ControllerDecision.Reason;
import io.zoolander.server.repeater.ControllerSettings;
import io.zoolander.server.repeater.FanOutDecision;
import io.zoolander.wire.Membership;
import io.zoolander.wire.Ticker;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

/**
 * The controller's rules, without threads or I/O: given what one period sees ({@link Observation}),
 * how many duplicates should serve. Time comes from an injected {@link Ticker}, so tests step
 * through cooldowns and streaks without sleeping. Internal; thread-safe (the periods and the ends
 * of changes may come from different threads).
 *
 * <p>The rules, in the order they are checked each period (N: the active members):
 *
 * <ol>
 *   <li>A change is under way (this policy's, or a member is still joining): hold. Nothing is
 *       judged until the set is settled.
 *   <li>Fewer ACK latencies to predict from than the minimum, or no prediction: hold; the streak
 *       below starts over.
 *   <li>The prediction for N misses the target: add the free spare with the fewest failed adds
 *       (first in pool order among equals), unless N is the budget, no spare is free, or the last
 *       change ended less than the cooldown ago.
 *   <li>N is the minimum: hold.
 *   <li>The prediction for N - 1, from the samples of the members but the one a retirement would
 *       remove (a slow member's samples must not be diluted by a fast one's), is at or above target
 *       + margin: the streak grows, and once it has lasted the periods required (and the cooldown
 *       has passed) the pool member added last is retired (among pool members not added by this
 *       policy, the last in pool order); any other period ends the streak.
 * </ol>
 *
 * <p>The margin is the hysteresis: right after an addition the prediction for the new N - 1 is the
 * one that just missed the target, so it cannot retire what it added until the load or the
 * duplicates really change. The streak asks for that change to last; the cooldown lets the samples
 * show a new set before it is judged.
 *
 * <p>Beside the set, {@link #decideFanOut} decides how many duplicates each read asks, published in
 * the membership record for clients with {@code ReadPolicy.advised}.
 */
public final class LoadPolicy {

  /**
   * What one period sees.
   *
   * @param membership the set now, with the read fan-out advised now
   * @param arrivalRatePerSec the measured write rate
   * @param samples the ACK latencies the predictions use now
   * @param predict the model's SLA at tau for a number of duplicates at that rate, from the samples
   *     of every active duplicate; null (or NaN) without samples. Asked for N, and N - 1 or N + 1
   *     when a rule needs it; for a read fan-out and one fewer.
   * @param predictWithout the same from the samples of every active duplicate but one: asked for N
   *     - 1 without the member a retirement would remove
   */
  public record Observation(
      Membership membership,
      double arrivalRatePerSec,
      int samples,
      IntFunction<SlaEstimate> predict,
      WithoutPrediction predictWithout) {
    public Observation {
      Objects.requireNonNull(membership, "membership must not be null");
      Objects.requireNonNull(predict, "predict must not be null");
      Objects.requireNonNull(predictWithout, "predictWithout must not be null");
    }

    /** A period whose duplicates are all alike: the prediction without one is the pooled one. */
    public Observation(
        Membership membership,
        double arrivalRatePerSec,
        int samples,
        IntFunction<SlaEstimate> predict) {
      this(membership, arrivalRatePerSec, samples, predict, (id, n) -> predict.apply(n));
    }
  }

  /** The model's SLA for {@code duplicates} from the samples of the active members but one. */
  @FunctionalInterface
  public interface WithoutPrediction {
    SlaEstimate predict(int withoutId, int duplicates);
  }

  private final ControllerSettings settings;
  private final int maxDuplicates;
  private final Ticker ticker;
  private final long cooldownNanos;

  /** Ids this policy added and that have not been retired since, oldest first. */
  private final List<Integer> added = new ArrayList<>();

  /** Failed additions per spare: a spare that failed is tried after those that did not. */
  private final Map<Integer, Integer> failedAdds = new HashMap<>();

  /** The change under way, null when none. */
  private ControllerDecision pending;

  /** When the last change ended, valid once {@link #changedOnce}. */
  private long lastChangeEndNanos;

  private boolean changedOnce;
  private int retireStreak;

  /** The fan-out change under way, null when none. */
  private FanOutDecision fanOutPending;

  private int lowerStreak;

  /**
   * @param maxDuplicates the budget, resolved (the settings' or the configured count plus spares)
   */
  public LoadPolicy(ControllerSettings settings, int maxDuplicates, Ticker ticker) {
    this.settings = Objects.requireNonNull(settings, "settings must not be null");
    if (maxDuplicates < settings.minDuplicates()) {
      throw new IllegalArgumentException(
          "maxDuplicates must be at least minDuplicates ("
              + settings.minDuplicates()
              + "), was "
              + maxDuplicates);
    }
    this.maxDuplicates = maxDuplicates;
    this.ticker = Objects.requireNonNull(ticker, "ticker must not be null");
    this.cooldownNanos = TimeUnit.MILLISECONDS.toNanos(settings.cooldownMs());
  }

  /** The budget, in duplicates. */
  public int maxDuplicates() {
    return maxDuplicates;
  }

  /**
   * One period's decision. An ADD or RETIRE is under way from now on: the caller makes it and
   * reports its end with {@link #changeEnded}.
   */
  public synchronized ControllerDecision decide(Observation o) {
    long now = ticker.nanoTime();
    Membership m = o.membership();
    int n = m.activeCount();
    double rate = o.arrivalRatePerSec();
    boolean joining = m.members().stream().anyMatch(member -> !member.active());
    if (pending != null || joining) {
      retireStreak = 0;
      return hold(Reason.CHANGE_IN_PROGRESS, n, rate, Double.NaN, Double.NaN, Double.NaN);
    }
    double slaNow = o.samples() < settings.minSamples() ? Double.NaN : sla(o, n);
    if (Double.isNaN(slaNow)) {
      retireStreak = 0;
      return hold(Reason.NO_SAMPLES, n, rate, Double.NaN, Double.NaN, Double.NaN);
    }
    boolean cooling = changedOnce && now - lastChangeEndNanos < cooldownNanos;
    if (slaNow < settings.targetSla()) {
      retireStreak = 0;
      double more = n < maxDuplicates ? sla(o, n + 1) : Double.NaN;
      if (n >= maxDuplicates) {
        return hold(Reason.BELOW_TARGET_AT_BUDGET, n, rate, slaNow, Double.NaN, more);
      }
      int spare = freeSpare(m);
      if (spare < 0) {
        return hold(Reason.BELOW_TARGET_NO_SPARE, n, rate, slaNow, Double.NaN, more);
      }
      if (cooling) {
        return hold(Reason.COOLDOWN, n, rate, slaNow, Double.NaN, more);
      }
      pending = decision(Reason.BELOW_TARGET, spare, n, rate, slaNow, Double.NaN, more);
      return pending;
    }
    if (n <= settings.minDuplicates()) {
      retireStreak = 0;
      return hold(Reason.AT_MINIMUM, n, rate, slaNow, Double.NaN, Double.NaN);
    }
    int candidate = retirable(m);
    double fewer = candidate < 0 ? sla(o, n - 1) : slaWithout(o, candidate, n - 1);
    if (Double.isNaN(fewer) || fewer < settings.targetSla() + settings.retireMargin()) {
      retireStreak = 0;
      return hold(Reason.ON_TARGET, n, rate, slaNow, fewer, Double.NaN);
    }
    retireStreak++;
    if (retireStreak < settings.retirePeriods()) {
      return hold(Reason.FEWER_SUFFICE_NOT_YET, n, rate, slaNow, fewer, Double.NaN);
    }
    if (candidate < 0) {
      return hold(Reason.NOTHING_TO_RETIRE, n, rate, slaNow, fewer, Double.NaN);
    }
    if (cooling) {
      return hold(Reason.COOLDOWN, n, rate, slaNow, fewer, Double.NaN);
    }
    pending = decision(Reason.FEWER_SUFFICE, candidate, n, rate, slaNow, fewer, Double.NaN);
    retireStreak = 0;
    return pending;
  }

  /**
   * One period's decision on the read fan-out (C: the fan-out the record advises, at most N; N: the
   * active members), after {@link #decide} in the same period:
   *
   * <ol>
   *   <li>A change is under way (a member's, or the fan-out's), or a member is joining: hold.
   *   <li>Fewer samples than the minimum, or no prediction: hold; the streak starts over.
   *   <li>No fan-out is advised, or the prediction for C misses the target: raise C at once to the
   *       fewest duplicates predicted to meet it, or to N (raising costs messages, not safety, and
   *       a miss costs the SLA now). Already N: hold; adding duplicates is {@link #decide}'s part.
   *   <li>C is 1: hold.
   *   <li>The prediction for C - 1 is at or above target + margin: the streak grows, and once it
   *       has lasted the periods required C is lowered by one; any other period ends the streak.
   * </ol>
   *
   * <p>A fan-out change needs no cooldown: it leaves the writes, and so the samples the predictions
   * come from, as they were.
   */
  public synchronized FanOutDecision decideFanOut(Observation o) {
    Membership m = o.membership();
    int n = m.activeCount();
    double rate = o.arrivalRatePerSec();
    int advised = m.readFanOut();
    int c = Math.min(advised, n);
    boolean joining = m.members().stream().anyMatch(member -> !member.active());
    if (pending != null || fanOutPending != null || joining) {
      lowerStreak = 0;
      return fanOut(
          FanOutDecision.Reason.CHANGE_IN_PROGRESS, advised, n, rate, Double.NaN, Double.NaN);
    }
    double slaNow = c == 0 || o.samples() < settings.minSamples() ? Double.NaN : sla(o, c);
    if (o.samples() < settings.minSamples() || (c > 0 && Double.isNaN(slaNow))) {
      lowerStreak = 0;
      return fanOut(FanOutDecision.Reason.NO_SAMPLES, advised, n, rate, Double.NaN, Double.NaN);
    }
    if (c == 0 || slaNow < settings.targetSla()) {
      lowerStreak = 0;
      if (c == n) {
        return fanOut(FanOutDecision.Reason.READS_ASK_ALL, advised, n, rate, slaNow, Double.NaN);
      }
      int raised = n;
      for (int k = c + 1; k < n; k++) {
        double at = sla(o, k);
        if (!Double.isNaN(at) && at >= settings.targetSla()) {
          raised = k;
          break;
        }
      }
      fanOutPending = fanOut(FanOutDecision.Reason.READS_MISS, raised, n, rate, slaNow, Double.NaN);
      return fanOutPending;
    }
    if (c == 1) {
      lowerStreak = 0;
      return fanOut(FanOutDecision.Reason.AT_ONE, advised, n, rate, slaNow, Double.NaN);
    }
    double fewer = sla(o, c - 1);
    if (Double.isNaN(fewer) || fewer < settings.targetSla() + settings.retireMargin()) {
      lowerStreak = 0;
      return fanOut(FanOutDecision.Reason.ON_TARGET, advised, n, rate, slaNow, fewer);
    }
    lowerStreak++;
    if (lowerStreak < settings.retirePeriods()) {
      return fanOut(FanOutDecision.Reason.FEWER_SUFFICE_NOT_YET, advised, n, rate, slaNow, fewer);
    }
    fanOutPending = fanOut(FanOutDecision.Reason.FEWER_SUFFICE, c - 1, n, rate, slaNow, fewer);
    lowerStreak = 0;
    return fanOutPending;
  }

  /**
   * The fan-out change {@code change} (returned by {@link #decideFanOut}) ended; a failed one is
   * decided again from the next period.
   *
   * @throws IllegalStateException if {@code change} is not the fan-out change under way
   */
  public synchronized void fanOutChangeEnded(FanOutDecision change) {
    if (fanOutPending == null || !fanOutPending.equals(change)) {
      throw new IllegalStateException("not the fan-out change under way: " + change);
    }
    fanOutPending = null;
    lowerStreak = 0;
  }

  /**
   * The change {@code change} (returned by {@link #decide}) ended; the cooldown starts now, whether
   * it succeeded or not. A spare whose addition failed is tried after the others next time.
   *
   * @throws IllegalStateException if {@code change} is not the change under way
   */
  public synchronized void changeEnded(ControllerDecision change, boolean succeeded) {
    if (pending == null || !pending.equals(change)) {
      throw new IllegalStateException("not the change under way: " + change);
    }
    pending = null;
    changedOnce = true;
    lastChangeEndNanos = ticker.nanoTime();
    retireStreak = 0;
    int id = change.duplicateId();
    if (change.action() == Action.ADD) {
      if (succeeded) {
        added.add(id);
      } else {
        failedAdds.merge(id, 1, Integer::sum);
      }
    } else if (succeeded) {
      added.remove(Integer.valueOf(id));
    }
  }

  /** The change under way, null when none. */
  public synchronized ControllerDecision pending() {
    return pending;
  }

  /** How many spares are not members now. */
  public int freeSpares(Membership m) {
    int free = 0;
    for (int id : settings.spares().keySet()) {
      if (m.member(id).isEmpty()) {
        free++;
      }
    }
    return free;
  }

  /** The free spare with the fewest failed additions, first in pool order among equals; or -1. */
  private int freeSpare(Membership m) {
    int best = -1;
    int bestFailures = Integer.MAX_VALUE;
    for (int id : settings.spares().keySet()) {
      int failures = failedAdds.getOrDefault(id, 0);
      if (m.member(id).isEmpty() && failures < bestFailures) {
        best = id;
        bestFailures = failures;
      }
    }
    return best;
  }

  /**
   * The active pool member this policy added last; else the last active pool member in pool order
   * (configured duplicates given as spares, or an addition whose end was not seen); or -1.
   */
  private int retirable(Membership m) {
    for (int i = added.size() - 1; i >= 0; i--) {
      int id = added.get(i);
      if (m.member(id).map(Membership.Member::active).orElse(false)) {
        return id;
      }
    }
    int last = -1;
    for (int id : settings.spares().keySet()) {
      if (m.member(id).map(Membership.Member::active).orElse(false)) {
        last = id;
      }
    }
    return last;
  }

  private static double sla(Observation o, int duplicates) {
    SlaEstimate e = o.predict().apply(duplicates);
    return e == null ? Double.NaN : e.sla();
  }

  private static double slaWithout(Observation o, int withoutId, int duplicates) {
    SlaEstimate e = o.predictWithout().predict(withoutId, duplicates);
    return e == null ? Double.NaN : e.sla();
  }

  private FanOutDecision fanOut(
      FanOutDecision.Reason reason, int fanOut, int n, double rate, double now, double fewer) {
    return new FanOutDecision(
        reason.action(),
        reason,
        fanOut,
        n,
        rate,
        now,
        fewer,
        settings.targetSla(),
        settings.tauMs(),
        lowerStreak);
  }

  private ControllerDecision hold(
      Reason reason, int n, double rate, double now, double fewer, double more) {
    return decision(reason, -1, n, rate, now, fewer, more);
  }

  private ControllerDecision decision(
      Reason reason, int id, int n, double rate, double now, double fewer, double more) {
    return new ControllerDecision(
        reason.action(),
        reason,
        id,
        n,
        rate,
        now,
        fewer,
        more,
        settings.targetSla(),
        settings.tauMs(),
        retireStreak);
  }
}
