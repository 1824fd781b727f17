package io.zoolander.server.repeater;

import java.util.Locale;

/**
 * One period's decision of the controller that follows the load ({@link ControllerSettings}), with
 * the numbers behind it. Predictions not made this period are NaN.
 *
 * @param action what the controller does
 * @param reason why
 * @param duplicateId the spare added or the member retired; -1 when it holds
 * @param duplicates the active members when it decided (N)
 * @param arrivalRatePerSec the measured write rate the predictions are for
 * @param predictedSla the model's SLA at tau for N duplicates
 * @param predictedSlaFewer the same for N - 1 (asked when the target is met and N is above the
 *     minimum)
 * @param predictedSlaMore the same for N + 1 (asked when the target is missed and N is below the
 *     budget)
 * @param targetSla the target
 * @param tauMs the bound
 * @param retireStreak consecutive periods (this one included) in which N - 1 was predicted to meet
 *     the target with the margin
 */
public record ControllerDecision(
    Action action,
    Reason reason,
    int duplicateId,
    int duplicates,
    double arrivalRatePerSec,
    double predictedSla,
    double predictedSlaFewer,
    double predictedSlaMore,
    double targetSla,
    double tauMs,
    int retireStreak) {

  /** What the controller does in a period. */
  public enum Action {
    /** Adds a spare duplicate. */
    ADD,
    /** Retires a member back into the pool. */
    RETIRE,
    /** Changes nothing. */
    HOLD
  }

  /** Why; each reason goes with one action. */
  public enum Reason {
    /** The prediction for N misses the target: a spare is added. */
    BELOW_TARGET(Action.ADD),
    /** One fewer duplicate met the target with the margin for the periods required: retired. */
    FEWER_SUFFICE(Action.RETIRE),
    /** Fewer ACK latencies to predict from than the minimum (no write recently): no decision. */
    NO_SAMPLES(Action.HOLD),
    /** A change is under way (the controller's own, or a member still joining). */
    CHANGE_IN_PROGRESS(Action.HOLD),
    /** A change is due, but the last one ended less than the cooldown ago. */
    COOLDOWN(Action.HOLD),
    /** The target is missed, but N is the budget (maxDuplicates). */
    BELOW_TARGET_AT_BUDGET(Action.HOLD),
    /** The target is missed, but every spare is a member already. */
    BELOW_TARGET_NO_SPARE(Action.HOLD),
    /** The target is met and one fewer would not meet it with the margin. */
    ON_TARGET(Action.HOLD),
    /** One fewer would meet the target with the margin, not yet for the periods required. */
    FEWER_SUFFICE_NOT_YET(Action.HOLD),
    /** The target is met and N is the minimum. */
    AT_MINIMUM(Action.HOLD),
    /** One fewer would do, but no member is in the pool (configured duplicates are kept). */
    NOTHING_TO_RETIRE(Action.HOLD);

    private final Action action;

    Reason(Action action) {
      this.action = action;
    }

    /** The action this reason goes with. */
    public Action action() {
      return action;
    }

    /** The reason as a meter tag or log word: {@code below_target}. */
    public String tag() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /**
   * @throws IllegalArgumentException if the reason does not go with the action
   */
  public ControllerDecision {
    if (reason.action() != action) {
      throw new IllegalArgumentException(
          reason + " goes with " + reason.action() + ", not " + action);
    }
  }

  /** Whether the decision changes the set. */
  public boolean changes() {
    return action != Action.HOLD;
  }

  /** One line with the numbers, as the controller logs it. */
  public String describe() {
    StringBuilder s = new StringBuilder();
    s.append(action.name().toLowerCase(Locale.ROOT));
    if (duplicateId >= 0) {
      s.append(" duplicate ").append(duplicateId);
    }
    s.append(" (").append(reason.tag()).append("): N=").append(duplicates);
    s.append(String.format(Locale.ROOT, ", rate %.1f writes/s", arrivalRatePerSec));
    s.append(String.format(Locale.ROOT, ", predicted SLA at %s ms: ", tauMs));
    s.append(String.format(Locale.ROOT, "N %.4f", predictedSla));
    if (!Double.isNaN(predictedSlaFewer)) {
      s.append(String.format(Locale.ROOT, ", N-1 %.4f", predictedSlaFewer));
    }
    if (!Double.isNaN(predictedSlaMore)) {
      s.append(String.format(Locale.ROOT, ", N+1 %.4f", predictedSlaMore));
    }
    s.append(String.format(Locale.ROOT, "; target %s", targetSla));
    if (retireStreak > 0) {
      s.append("; fewer sufficed ").append(retireStreak).append(" periods in a row");
    }
    return s.toString();
  }
}
