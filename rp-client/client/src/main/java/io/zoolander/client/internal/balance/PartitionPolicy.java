package io.zoolander.client.internal.balance;

import io.zoolander.client.balance.BalanceDecision;
import io.zoolander.client.balance.BalanceDecision.Action;
import io.zoolander.client.balance.BalanceDecision.Reason;
import io.zoolander.client.balance.BalancerSettings;
import io.zoolander.client.balance.PartitionLoad;
import io.zoolander.wire.NameRoutes;
import io.zoolander.wire.Ticker;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.ToIntFunction;

/**
 * The balancer's rules, without threads or I/O: given every partition's load in one period, which
 * name to move where. Time comes from an injected {@link Ticker}, so tests step through cooldowns
 * and streaks without sleeping. Internal; thread-safe (a period and the end of a move may come from
 * different threads).
 *
 * <p>Rates are writes per second. A partition's capacity is its probe's; a partition whose probe
 * does not know it (no recent writes to predict from, as a spare) is taken to have the median of
 * the known ones: the partitions of a deployment are built alike. Each name's rate counts in the
 * partition the client routes it to now: a name just moved still shows in its old partition's
 * rates, and not yet in its new one's, for up to a window, and a balancer that took the old numbers
 * would move names after it as if nothing had moved. A name with writes may move; the route record
 * and the repeater's {@link NameRoutes#OTHER_NAMES} are counted where they are reported and never
 * move. The rules, in order, each period:
 *
 * <ol>
 *   <li>A move is under way: hold.
 *   <li>No capacity is known: hold (there is nothing to judge against).
 *   <li>Some partition's rate is above {@code highMark} of its capacity: the most loaded one (rate
 *       over capacity) sheds its busiest name that fits in another partition, that is leaves it at
 *       or below its high mark, into the partition with the most room. A partition that has writes
 *       is preferred to an idle one (a spare), so that spares stay idle while they are not needed,
 *       and a spare takes a name only while fewer than {@code maxServingPartitions} partitions have
 *       writes (the node budget; else hold, at budget). No name fits: hold. The last move ended
 *       less than the cooldown ago: hold.
 *   <li>The lightest partition with writes whose whole rate fits under {@code lowMark} of another
 *       partition with writes (the one with most room): the streak grows, and once it has lasted
 *       the periods required (and the cooldown has passed) the partition's busiest name moves
 *       there. While the same partition stays the one to drain, its further names follow one per
 *       cooldown without a new streak. Any other period ends the streak.
 *   <li>Otherwise: balanced, hold.
 * </ol>
 *
 * <p>The hysteresis: a consolidation fills a partition to at most the low mark, below the high mark
 * that would make it shed; the streak asks for a lull to last; the cooldown lets the writes the
 * move held up drain, and the latencies (so the capacities) show the new load, before the next move
 * is judged. A move that fails is not tried again to the same partition by this policy.
 */
public final class PartitionPolicy {
  private final BalancerSettings settings;
  private final Ticker ticker;
  private final long cooldownNanos;

  /** Moves that failed, as "name to partition": not tried again. */
  private final Set<String> failedMoves = new HashSet<>();

  private BalanceDecision pending;
  private boolean movedOnce;
  private long lastMoveEndNanos;

  /** The partition a consolidation drains, -1 when none. */
  private int draining = -1;

  private int streak;

  public PartitionPolicy(BalancerSettings settings, Ticker ticker) {
    this.settings = Objects.requireNonNull(settings, "settings must not be null");
    this.ticker = Objects.requireNonNull(ticker, "ticker must not be null");
    this.cooldownNanos = TimeUnit.MILLISECONDS.toNanos(settings.cooldownMs());
  }

  /**
   * One period's decision. A MOVE is under way from now on: the caller makes it and reports its end
   * with {@link #moveEnded}.
   *
   * @param loads every partition's load, by partition number
   * @param partitionOf where the client routes a top-level name now
   */
  public synchronized BalanceDecision decide(
      List<PartitionLoad> loads, ToIntFunction<String> partitionOf) {
    Objects.requireNonNull(loads, "loads must not be null");
    Objects.requireNonNull(partitionOf, "partitionOf must not be null");
    if (pending != null) {
      return hold(Reason.MOVE_IN_PROGRESS, -1);
    }
    int n = loads.size();
    List<Map<String, Double>> names = attributed(loads, partitionOf);
    double[] rate = new double[n];
    double[] capacity = new double[n];
    double[] known =
        loads.stream()
            .filter(PartitionLoad::capacityKnown)
            .mapToDouble(PartitionLoad::capacityPerSec)
            .sorted()
            .toArray();
    for (int p = 0; p < n; p++) {
      rate[p] = names.get(p).values().stream().mapToDouble(Double::doubleValue).sum();
      capacity[p] = loads.get(p).capacityKnown() ? loads.get(p).capacityPerSec() : median(known);
    }
    if (known.length == 0) {
      endStreak();
      return hold(Arrays.stream(rate).sum() > 0 ? Reason.NO_CAPACITY : Reason.BALANCED, -1);
    }
    boolean cooling = movedOnce && ticker.nanoTime() - lastMoveEndNanos < cooldownNanos;
    Period period = new Period(names, rate, capacity);

    int over = -1;
    double worst = 0;
    for (int p = 0; p < n; p++) {
      if (rate[p] > settings.highMark() * capacity[p]) {
        double load = capacity[p] == 0 ? Double.POSITIVE_INFINITY : rate[p] / capacity[p];
        if (over < 0 || load > worst) {
          over = p;
          worst = load;
        }
      }
    }
    if (over >= 0) {
      endStreak();
      BalanceDecision shed = period.shed(over, false);
      if (shed == null) {
        long serving = Arrays.stream(rate).filter(r -> r > 0).count();
        BalanceDecision toSpare = period.shed(over, true);
        if (toSpare != null && serving >= settings.maxServingPartitions()) {
          return period.hold(Reason.OVERLOADED_AT_BUDGET, over, toSpare.to());
        }
        if (toSpare == null) {
          return period.hold(Reason.OVERLOADED_NO_ROOM, over, -1);
        }
        shed = toSpare;
      }
      if (cooling) {
        return period.hold(Reason.COOLDOWN, over, shed.to());
      }
      pending = shed;
      return pending;
    }

    Drain drain = period.drain();
    if (drain == null) {
      endStreak();
      return hold(Reason.BALANCED, -1);
    }
    int from = drain.from();
    int to = drain.to();
    if (from != draining) {
      draining = from;
      streak = 0;
    }
    streak = Math.min(streak + 1, settings.consolidatePeriods());
    if (streak < settings.consolidatePeriods()) {
      return period.hold(Reason.CONSOLIDATE_NOT_YET, from, to);
    }
    if (cooling) {
      return period.hold(Reason.COOLDOWN, from, to);
    }
    pending = period.move(Reason.CONSOLIDATE, drain.name(), from, to);
    return pending;
  }

  /**
   * The move {@code move} (returned by {@link #decide}) ended; the cooldown starts now, whether it
   * succeeded or not. A failed one is not tried again.
   *
   * @throws IllegalStateException if {@code move} is not the move under way
   */
  public synchronized void moveEnded(BalanceDecision move, boolean succeeded) {
    if (pending == null || !pending.equals(move)) {
      throw new IllegalStateException("not the move under way: " + move);
    }
    pending = null;
    movedOnce = true;
    lastMoveEndNanos = ticker.nanoTime();
    if (!succeeded) {
      failedMoves.add(move.name() + " to " + move.to());
    }
  }

  /** The move under way, null when none. */
  public synchronized BalanceDecision pending() {
    return pending;
  }

  /**
   * Each partition's names and rates, each name in the partition the client routes it to now: its
   * rate as that partition reports it, else as the partition it left does (the new one's window has
   * not seen it yet). What is not a movable name stays where it is reported.
   */
  private static List<Map<String, Double>> attributed(
      List<PartitionLoad> loads, ToIntFunction<String> partitionOf) {
    int n = loads.size();
    List<Map<String, Double>> names = new ArrayList<>(n);
    for (int p = 0; p < n; p++) {
      names.add(new HashMap<>());
    }
    List<Map.Entry<String, Double>> left = new ArrayList<>(); // reported where they no longer are
    for (int p = 0; p < n; p++) {
      for (Map.Entry<String, Double> e : loads.get(p).nameWriteRatesPerSec().entrySet()) {
        int at = movable(e.getKey()) ? routedTo(e.getKey(), partitionOf, n) : p;
        if (at == p || at < 0) {
          names.get(p).put(e.getKey(), e.getValue());
        } else {
          left.add(e);
        }
      }
    }
    for (Map.Entry<String, Double> e : left) {
      names.get(routedTo(e.getKey(), partitionOf, n)).putIfAbsent(e.getKey(), e.getValue());
    }
    return names;
  }

  /** Whether {@code name} is one a balancer may move (not the route record or the overflow). */
  private static boolean movable(String name) {
    return !name.isEmpty()
        && !name.contains("/")
        && !name.equals(NameRoutes.NAME)
        && !name.equals(NameRoutes.OTHER_NAMES);
  }

  /** The partition the client routes {@code name} to, -1 if it is not a valid one. */
  private static int routedTo(String name, ToIntFunction<String> partitionOf, int partitions) {
    try {
      int p = partitionOf.applyAsInt("/" + name);
      return p >= 0 && p < partitions ? p : -1;
    } catch (IllegalArgumentException e) { // not a name the client can route
      return -1;
    }
  }

  private void endStreak() {
    draining = -1;
    streak = 0;
  }

  private static double median(double[] sorted) {
    if (sorted.length == 0) {
      return Double.NaN;
    }
    int mid = sorted.length / 2;
    return sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  }

  private BalanceDecision hold(Reason reason, int from) {
    return BalanceDecision.hold(reason, from, streak);
  }

  /** A consolidation: the partition drained, the one it goes to, and its busiest name. */
  private record Drain(int from, int to, String name) {}

  /** One period's numbers and the questions asked of them. */
  private final class Period {
    private final List<Map<String, Double>> names;
    private final double[] rate;
    private final double[] capacity;

    Period(List<Map<String, Double>> names, double[] rate, double[] capacity) {
      this.names = names;
      this.rate = rate;
      this.capacity = capacity;
    }

    /** The names that may move from {@code p}, busiest first (then by name). */
    List<String> movable(int p) {
      Map<String, Double> rates = names.get(p);
      List<String> found = new ArrayList<>();
      rates.forEach(
          (name, r) -> {
            if (r > 0 && PartitionPolicy.movable(name)) {
              found.add(name);
            }
          });
      found.sort(
          Comparator.comparingDouble((String name) -> -rates.get(name))
              .thenComparing(Comparator.naturalOrder()));
      return found;
    }

    /**
     * The busiest name of {@code over} that fits in another partition with writes ({@code idle}: in
     * an idle one), with the partition of most room; null if none fits.
     */
    BalanceDecision shed(int over, boolean idle) {
      for (String name : movable(over)) {
        double r = names.get(over).get(name);
        int best = -1;
        double bestRoom = 0;
        for (int q = 0; q < rate.length; q++) {
          if (q == over || (rate[q] == 0) != idle || failedMoves.contains(name + " to " + q)) {
            continue;
          }
          double room = settings.highMark() * capacity[q] - rate[q] - r;
          if (room >= 0 && (best < 0 || room > bestRoom)) {
            best = q;
            bestRoom = room;
          }
        }
        if (best >= 0) {
          return move(Reason.OVERLOADED, name, over, best);
        }
      }
      return null;
    }

    /**
     * The lightest partition with movable writes whose whole rate fits under the low mark of
     * another partition with writes, that partition (the one with most room), and the first name to
     * move; or null.
     */
    Drain drain() {
      Integer[] order = new Integer[rate.length];
      for (int p = 0; p < order.length; p++) {
        order[p] = p;
      }
      Arrays.sort(order, Comparator.comparingDouble((Integer p) -> rate[p]).thenComparing(p -> p));
      for (int from : order) {
        List<String> names = movable(from);
        if (rate[from] == 0 || names.isEmpty()) {
          continue;
        }
        int best = -1;
        double bestRoom = 0;
        for (int q = 0; q < rate.length; q++) {
          if (q == from || rate[q] == 0) {
            continue;
          }
          double room = settings.lowMark() * capacity[q] - rate[q] - rate[from];
          if (room >= 0 && (best < 0 || room > bestRoom)) {
            best = q;
            bestRoom = room;
          }
        }
        if (best >= 0 && !failedMoves.contains(names.get(0) + " to " + best)) {
          return new Drain(from, best, names.get(0));
        }
      }
      return null;
    }

    BalanceDecision move(Reason reason, String name, int from, int to) {
      return new BalanceDecision(
          Action.MOVE,
          reason,
          name,
          from,
          to,
          names.get(from).get(name),
          rate[from],
          capacity[from],
          rate[to],
          capacity[to],
          streak);
    }

    BalanceDecision hold(Reason reason, int from, int to) {
      return new BalanceDecision(
          Action.HOLD,
          reason,
          "",
          from,
          to,
          Double.NaN,
          from < 0 ? Double.NaN : rate[from],
          from < 0 ? Double.NaN : capacity[from],
          to < 0 ? Double.NaN : rate[to],
          to < 0 ? Double.NaN : capacity[to],
          streak);
    }
  }
}
