package io.zoolander.client.balance;

import java.util.Locale;
import java.util.Objects;

/**
 * One period's decision of a {@link PartitionBalancer}, with the numbers behind it. Rates and
 * capacities are writes per second; those not looked at this period are NaN, the partitions not
 * involved -1.
 *
 * @param action what the balancer does
 * @param reason why
 * @param name the top-level name moved (without its slash); empty when it holds
 * @param from the partition the name leaves, or the partition the reason is about
 * @param to the partition the name goes to
 * @param nameRatePerSec the moved name's write rate
 * @param fromRatePerSec {@code from}'s write rate
 * @param fromCapacityPerSec {@code from}'s capacity (assumed when its probe did not know it)
 * @param toRatePerSec {@code to}'s write rate
 * @param toCapacityPerSec {@code to}'s capacity (assumed when its probe did not know it)
 * @param consolidateStreak consecutive periods (this one included) in which a consolidation was
 *     possible
 */
public record BalanceDecision(
    Action action,
    Reason reason,
    String name,
    int from,
    int to,
    double nameRatePerSec,
    double fromRatePerSec,
    double fromCapacityPerSec,
    double toRatePerSec,
    double toCapacityPerSec,
    int consolidateStreak) {

  /** What the balancer does in a period. */
  public enum Action {
    /** Moves one top-level name to another partition. */
    MOVE,
    /** Changes nothing. */
    HOLD
  }

  /** Why; each reason goes with one action. */
  public enum Reason {
    /** A partition is above the high mark: its busiest name that fits elsewhere moves. */
    OVERLOADED(Action.MOVE),
    /** A partition's whole rate has fitted under another's low mark long enough: it drains. */
    CONSOLIDATE(Action.MOVE),
    /** A move is under way. */
    MOVE_IN_PROGRESS(Action.HOLD),
    /** A probe failed: nothing is decided from part of the deployment. */
    PROBE_FAILED(Action.HOLD),
    /** No partition's capacity is known (no partition had writes to predict from). */
    NO_CAPACITY(Action.HOLD),
    /** A move is due, but the last one ended less than the cooldown ago. */
    COOLDOWN(Action.HOLD),
    /** A partition is above the high mark, but none of its names fits in another partition. */
    OVERLOADED_NO_ROOM(Action.HOLD),
    /**
     * A partition is above the high mark and a name would fit only in an idle partition, but as
     * many partitions as the budget allows have writes already.
     */
    OVERLOADED_AT_BUDGET(Action.HOLD),
    /** A consolidation is possible, not yet for the periods required. */
    CONSOLIDATE_NOT_YET(Action.HOLD),
    /** Every partition is below the high mark and none can be drained into another. */
    BALANCED(Action.HOLD);

    private final Action action;

    Reason(Action action) {
      this.action = action;
    }

    /** The action this reason goes with. */
    public Action action() {
      return action;
    }

    /** The reason as a meter tag or log word: {@code overloaded_no_room}. */
    public String tag() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /**
   * @throws IllegalArgumentException if the reason does not go with the action
   */
  public BalanceDecision {
    Objects.requireNonNull(action, "action must not be null");
    Objects.requireNonNull(reason, "reason must not be null");
    Objects.requireNonNull(name, "name must not be null");
    if (reason.action() != action) {
      throw new IllegalArgumentException(
          reason + " goes with " + reason.action() + ", not " + action);
    }
  }

  /**
   * A hold without numbers, about partition {@code from} (-1: none): for the reasons that judge no
   * rates (a move under way, a failed probe, nothing to judge against).
   */
  public static BalanceDecision hold(Reason reason, int from, int consolidateStreak) {
    return new BalanceDecision(
        Action.HOLD,
        reason,
        "",
        from,
        -1,
        Double.NaN,
        Double.NaN,
        Double.NaN,
        Double.NaN,
        Double.NaN,
        consolidateStreak);
  }

  /** Whether the decision moves a name. */
  public boolean moves() {
    return action == Action.MOVE;
  }

  /** One line with the numbers, as the balancer logs it. */
  public String describe() {
    StringBuilder s = new StringBuilder();
    s.append(action.name().toLowerCase(Locale.ROOT));
    if (!name.isEmpty()) {
      s.append(" /")
          .append(name)
          .append(String.format(Locale.ROOT, " (%.1f writes/s)", nameRatePerSec));
    }
    s.append(" (").append(reason.tag()).append(")");
    if (from >= 0) {
      s.append(
          String.format(
              Locale.ROOT,
              ": partition %d at %.1f of %.1f writes/s",
              from,
              fromRatePerSec,
              fromCapacityPerSec));
    }
    if (to >= 0) {
      s.append(
          String.format(
              Locale.ROOT,
              ", to partition %d at %.1f of %.1f writes/s",
              to,
              toRatePerSec,
              toCapacityPerSec));
    }
    if (consolidateStreak > 0) {
      s.append("; consolidation possible ").append(consolidateStreak).append(" periods in a row");
    }
    return s.toString();
  }
}
