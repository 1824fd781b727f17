package io.zoolander.server.repeater;

import java.util.Locale;

/**
 * One period's decision of the load controller ({@link ControllerSettings}) on the read fan-out:
 * how many duplicates each read of a client with {@code ReadPolicy.advised} asks. It is published
 * in the membership record. Predictions not made this period are NaN.
 *
 * <p>The model's SLA at tau for reads that ask C of the duplicates is its SLA for C duplicates at
 * the measured write rate: each asked duplicate carries every write, and the read completes on the
 * first reply. The reads' own load is not in it (the repeater does not see reads); on the plugin's
 * in-process read path it is small beside the writes'.
 *
 * @param action what the controller does
 * @param reason why
 * @param fanOut the fan-out decided (RAISE, LOWER) or advised now (HOLD; 0 when none is)
 * @param duplicates the active members when it decided (N)
 * @param arrivalRatePerSec the measured write rate the predictions are for
 * @param predictedSla the model's SLA at tau for the fan-out advised now
 * @param predictedSlaFewer the same for one duplicate fewer per read
 * @param targetSla the target
 * @param tauMs the bound
 * @param lowerStreak consecutive periods (this one included) in which one fewer per read was
 *     predicted to meet the target with the margin
 */
public record FanOutDecision(
    Action action,
    Reason reason,
    int fanOut,
    int duplicates,
    double arrivalRatePerSec,
    double predictedSla,
    double predictedSlaFewer,
    double targetSla,
    double tauMs,
    int lowerStreak) {

  /** What the controller does with the fan-out in a period. */
  public enum Action {
    /** Reads ask more duplicates. */
    RAISE,
    /** Reads ask one duplicate fewer. */
    LOWER,
    /** The fan-out stays. */
    HOLD
  }

  /** Why; each reason goes with one action. */
  public enum Reason {
    /**
     * None is advised yet, or reads at the advised fan-out miss the target: raised at once to the
     * fewest duplicates predicted to meet it, or to every active one.
     */
    READS_MISS(Action.RAISE),
    /** One duplicate fewer per read met the target with the margin for the periods required. */
    FEWER_SUFFICE(Action.LOWER),
    /** A change is under way (the fan-out's or a member's): nothing is judged. */
    CHANGE_IN_PROGRESS(Action.HOLD),
    /** Fewer ACK latencies to predict from than the minimum: no decision. */
    NO_SAMPLES(Action.HOLD),
    /**
     * Reads ask every active duplicate and still miss: more duplicates is the membership's part.
     */
    READS_ASK_ALL(Action.HOLD),
    /** The target is met and one fewer per read would not meet it with the margin. */
    ON_TARGET(Action.HOLD),
    /**
     * One fewer per read would meet the target with the margin, not yet for the periods required.
     */
    FEWER_SUFFICE_NOT_YET(Action.HOLD),
    /** Reads ask one duplicate and meet the target. */
    AT_ONE(Action.HOLD);

    private final Action action;

    Reason(Action action) {
      this.action = action;
    }

    /** The action this reason goes with. */
    public Action action() {
      return action;
    }

    /** The reason as a meter tag or log word: {@code reads_miss}. */
    public String tag() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /**
   * @throws IllegalArgumentException if the reason does not go with the action
   */
  public FanOutDecision {
    if (reason.action() != action) {
      throw new IllegalArgumentException(
          reason + " goes with " + reason.action() + ", not " + action);
    }
  }

  /** Whether the decision changes the advised fan-out. */
  public boolean changes() {
    return action != Action.HOLD;
  }

  /** One line with the numbers, as the controller logs it. */
  public String describe() {
    StringBuilder s = new StringBuilder("read fan-out ");
    s.append(
        action == Action.HOLD
            ? "holds at " + (fanOut == 0 ? "none" : Integer.toString(fanOut))
            : (action == Action.RAISE ? "raised to " : "lowered to ") + fanOut);
    s.append(" (").append(reason.tag()).append("): N=").append(duplicates);
    s.append(String.format(Locale.ROOT, ", rate %.1f writes/s", arrivalRatePerSec));
    if (!Double.isNaN(predictedSla)) {
      s.append(String.format(Locale.ROOT, ", predicted SLA at %s ms: %.4f", tauMs, predictedSla));
    }
    if (!Double.isNaN(predictedSlaFewer)) {
      s.append(String.format(Locale.ROOT, ", one fewer per read %.4f", predictedSlaFewer));
    }
    s.append(String.format(Locale.ROOT, "; target %s", targetSla));
    if (lowerStreak > 0) {
      s.append("; fewer sufficed ").append(lowerStreak).append(" periods in a row");
    }
    return s.toString();
  }
}
