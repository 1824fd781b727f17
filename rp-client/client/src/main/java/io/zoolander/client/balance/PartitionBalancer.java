package io.zoolander.client.balance;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.zoolander.client.PartitionedClient;
import io.zoolander.client.balance.BalanceDecision.Reason;
import io.zoolander.client.internal.balance.PartitionPolicy;
import io.zoolander.wire.Ticker;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows the write load across partitions by moving top-level names between them: every period it
 * asks each partition's {@link PartitionProbe} for its per-name write rates and its capacity at the
 * target (from the live prediction), decides by the rules of {@link BalancerSettings} (a partition
 * above its high mark sheds a name into the partition with most room; a partition light enough for
 * another's low mark is drained into it), and moves the name with {@link
 * PartitionedClient#moveName}, one move at a time. Off unless started; see {@code
 * docs/operations.md}, "A balancer that follows the write load".
 *
 * <p>Every decision is counted ({@code zoolander.client.balancer.decisions}, tagged with its action
 * and reason); every move, its end, and every change of reason are logged at INFO with the numbers
 * behind them, the periods that repeat the last reason at DEBUG.
 *
 * <p>One balancer per deployment: two would move names against each other. Its client must route as
 * the applications' clients do (the same {@link io.zoolander.client.Partitioning}): a name's rate
 * counts in the partition the client routes it to, and moves start there. The client stays the
 * caller's: closing the balancer does not close it. The balancer runs its periods, and so calls the
 * probes, on a thread of its own; {@link #decideOnce()} runs one on the caller's thread instead
 * (for a balancer not started, or a test).
 */
public final class PartitionBalancer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(PartitionBalancer.class);

  /** Decisions, tagged with their action and reason. */
  public static final String DECISIONS_METER = "zoolander.client.balancer.decisions";

  /** Moves the balancer started that failed. */
  public static final String MOVES_FAILED_METER = "zoolander.client.balancer.moves.failed";

  private final PartitionedClient client;
  private final List<PartitionProbe> probes;
  private final BalancerSettings settings;
  private final PartitionPolicy policy;
  private final Map<Reason, Counter> decisions = new EnumMap<>(Reason.class);
  private final Counter movesFailed;
  private final Object lifecycle = new Object();
  private ScheduledExecutorService thread; // null until started
  private boolean closed;
  private volatile BalanceDecision last;
  private volatile CompletableFuture<Void> lastMove = CompletableFuture.completedFuture(null);
  private Reason lastReason; // the period's thread

  private PartitionBalancer(Builder b) {
    this.client = b.client;
    this.probes = List.copyOf(b.probes.values());
    this.settings = b.settings;
    this.policy = new PartitionPolicy(b.settings, b.ticker);
    MeterRegistry registry = b.meterRegistry;
    for (Reason reason : Reason.values()) {
      decisions.put(
          reason,
          Counter.builder(DECISIONS_METER)
              .tag("action", reason.action().name().toLowerCase(Locale.ROOT))
              .tag("reason", reason.tag())
              .description("The partition balancer's decisions, one per period")
              .register(registry));
    }
    movesFailed =
        Counter.builder(MOVES_FAILED_METER)
            .description("Moves the partition balancer started that failed")
            .register(registry);
  }

  /** A builder for a balancer of {@code client}'s partitions. */
  public static Builder builder(PartitionedClient client) {
    return new Builder(client);
  }

  /**
   * Decides every period from now on, the first a period from now.
   *
   * @throws IllegalStateException if started already or closed
   */
  public PartitionBalancer start() {
    synchronized (lifecycle) {
      if (closed || thread != null) {
        throw new IllegalStateException(closed ? "balancer closed" : "balancer started");
      }
      thread =
          Executors.newSingleThreadScheduledExecutor(
              r -> {
                Thread t = new Thread(r, "zoolander-partition-balancer");
                t.setDaemon(true);
                return t;
              });
      thread.scheduleWithFixedDelay(
          this::period, settings.periodMs(), settings.periodMs(), TimeUnit.MILLISECONDS);
    }
    LOG.info("partition balancer on: {}, {} partitions", settings, probes.size());
    return this;
  }

  /**
   * Runs one period now, on the caller's thread: probes, decides, and starts the move it decides
   * (which goes on in the background; the next periods hold until it ends).
   *
   * @return the decision
   */
  public BalanceDecision decideOnce() {
    List<PartitionLoad> loads = new ArrayList<>(probes.size());
    BalanceDecision decision = null;
    for (PartitionProbe probe : probes) {
      try {
        loads.add(Objects.requireNonNull(probe.load(), "the probe returned null"));
      } catch (Exception e) {
        if (e instanceof InterruptedException) {
          Thread.currentThread().interrupt();
        }
        LOG.warn(
            "partition balancer: the probe of partition {} failed, holding: {}",
            loads.size(),
            e.toString());
        decision = BalanceDecision.hold(Reason.PROBE_FAILED, loads.size(), 0);
        break;
      }
    }
    if (decision == null) {
      decision = policy.decide(loads, client::partitionOf);
    }
    record(decision);
    if (decision.moves()) {
      move(decision);
    }
    return decision;
  }

  /** The last period's decision; empty before the first. */
  public Optional<BalanceDecision> lastDecision() {
    return Optional.ofNullable(last);
  }

  /** The move under way; empty when none. */
  public Optional<BalanceDecision> moveUnderWay() {
    return Optional.ofNullable(policy.pending());
  }

  /**
   * Completes when the last move this balancer started has ended, done or failed (a failure is
   * logged and counted, not thrown); completed when none was started.
   */
  public CompletableFuture<Void> lastMove() {
    return lastMove;
  }

  /** Stops deciding; a move under way goes on to its end. */
  @Override
  public void close() {
    ScheduledExecutorService t;
    synchronized (lifecycle) {
      closed = true;
      t = thread;
    }
    if (t != null) {
      t.shutdownNow();
    }
  }

  private void period() {
    try {
      decideOnce();
    } catch (RuntimeException e) { // keep the schedule: the next period tries again
      LOG.warn("partition balancer period failed", e);
    }
  }

  private synchronized void record(BalanceDecision decision) {
    last = decision;
    decisions.get(decision.reason()).increment();
    if (decision.moves() || decision.reason() != lastReason) {
      LOG.info("partition balancer: {}", decision.describe());
    } else {
      LOG.debug("partition balancer: {}", decision.describe());
    }
    lastReason = decision.reason();
  }

  private void move(BalanceDecision decision) {
    CompletableFuture<Void> moved;
    try {
      moved = client.moveName(decision.name(), decision.to());
    } catch (RuntimeException e) {
      moved = CompletableFuture.failedFuture(e);
    }
    lastMove =
        moved.handle(
            (done, failure) -> {
              policy.moveEnded(decision, failure == null);
              if (failure == null) {
                LOG.info(
                    "partition balancer: /{} moved from partition {} to {}",
                    decision.name(),
                    decision.from(),
                    decision.to());
              } else {
                movesFailed.increment();
                LOG.warn(
                    "partition balancer: moving /{} from partition {} to {} failed, not tried again: {}",
                    decision.name(),
                    decision.from(),
                    decision.to(),
                    failure.toString());
              }
              return null;
            });
  }

  /** Builds a {@link PartitionBalancer}; every setter validates its argument, naming it. */
  public static final class Builder {
    private final PartitionedClient client;
    private final Map<Integer, PartitionProbe> probes = new TreeMap<>();
    private BalancerSettings settings = BalancerSettings.defaults();
    private MeterRegistry meterRegistry = new CompositeMeterRegistry();
    private Ticker ticker = Ticker.system();

    private Builder(PartitionedClient client) {
      this.client = Objects.requireNonNull(client, "client must not be null");
    }

    /**
     * How the balancer sees partition {@code partition}; every partition of the client needs one.
     *
     * @throws IllegalArgumentException if the client has no such partition, or it has a probe
     */
    public Builder probe(int partition, PartitionProbe probe) {
      Objects.requireNonNull(probe, "probe must not be null");
      int partitions = client.partitioning().partitions();
      if (partition < 0 || partition >= partitions) {
        throw new IllegalArgumentException(
            "partition must be 0 to " + (partitions - 1) + ", was " + partition);
      }
      if (probes.putIfAbsent(partition, probe) != null) {
        throw new IllegalArgumentException("partition " + partition + " has a probe already");
      }
      return this;
    }

    /** When names move (default {@link BalancerSettings#defaults()}). */
    public Builder settings(BalancerSettings settings) {
      this.settings = Objects.requireNonNull(settings, "settings must not be null");
      return this;
    }

    /** Where the balancer's meters go (default: none). */
    public Builder meterRegistry(MeterRegistry meterRegistry) {
      this.meterRegistry = Objects.requireNonNull(meterRegistry, "meterRegistry must not be null");
      return this;
    }

    /** The clock of cooldowns (default {@link Ticker#system()}). */
    public Builder ticker(Ticker ticker) {
      this.ticker = Objects.requireNonNull(ticker, "ticker must not be null");
      return this;
    }

    /**
     * @throws IllegalStateException if a partition has no probe
     */
    public PartitionBalancer build() {
      int partitions = client.partitioning().partitions();
      for (int p = 0; p < partitions; p++) {
        if (!probes.containsKey(p)) {
          throw new IllegalStateException("partition " + p + " needs a probe");
        }
      }
      return new PartitionBalancer(this);
    }
  }
}
