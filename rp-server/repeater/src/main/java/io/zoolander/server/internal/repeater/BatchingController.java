package io.zoolander.server.internal.repeater;

import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.zoolander.server.jmx.MeterNames;
import io.zoolander.server.repeater.BatchingPolicy;
import io.zoolander.wire.Ticker;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * The repeater's batching interval (see {@link BatchingPolicy}): how long the sequencer holds
 * writes after a handoff before it flushes them to the plugins. Internal; confined to the sequencer
 * loop, except the meters.
 *
 * <p>Each flush is a batch: the controller remembers its last seq and when it went out, and the
 * first ACK covering it (from the fastest duplicate, as a plain write completes on the first reply)
 * gives the batch's latency. An adaptive policy compares the recent latency (a fast moving average)
 * with its longer-term level (a slow one) after each sample, as Stout does: above the level by more
 * than the tolerance, it backs off (may hold longer, so batches grow and the duplicates' per-write
 * cost falls); otherwise it accelerates (holds less, so a write waits less for company).
 *
 * <p>An adaptive policy holds writes only while every duplicate still owes an ACK (all are busy:
 * what they are sent now would wait in their inboxes anyway), for at most the interval, and the ACK
 * that settles every flush ends the hold ({@link #releaseHeldWrites()}): the ACKs clock the
 * flushes, as they clock TCP's sending. When some duplicate is idle a write goes at once, so at low
 * load latency is that of no batching; busy duplicates get one batch per apply or per interval.
 * Without that clock the back-off fed on itself: larger batches take longer to apply, which reads
 * as rising latency, which held writes longer still (docs/benchmarks.md, run 4). The interval never
 * falls below the policy's shortest: when the duplicates are busy the hold is what makes batches,
 * and a hold of 0 there is no batching.
 *
 * <p>Meters, when a registry is given: {@code zoolander.repeater.batch.size} (writes per flush),
 * {@code zoolander.repeater.batch.interval} (the current interval, microseconds) and {@code
 * zoolander.repeater.batch.latency} (flush to first ACK).
 */
public final class BatchingController {

  /** Weight of a new sample in the recent latency. */
  static final double RECENT_WEIGHT = 0.25;

  /** Weight of a new sample in the longer-term level. */
  static final double LEVEL_WEIGHT = 1.0 / 32;

  /** Flushes awaiting their first ACK remembered at most; older ones are dropped unmeasured. */
  static final int MAX_PENDING_FLUSHES = 4_096;

  private final BatchingPolicy policy;
  private final Ticker ticker;
  private final DistributionSummary sizes;
  private final Timer latencies;
  private final long minNanos;
  private final long maxNanos;
  private long intervalNanos;
  private final List<Meter> meters = new ArrayList<>();
  private volatile long intervalMicros; // for the gauge
  private double recentNanos = Double.NaN;
  private double levelNanos = Double.NaN;
  private long flushedSeq = -1;
  private long ackedSeq = -1;
  // Ring of flushes awaiting their first ACK: last seq and flush time.
  private final long[] pendingSeq = new long[MAX_PENDING_FLUSHES];
  private final long[] pendingNanos = new long[MAX_PENDING_FLUSHES];
  private int head;
  private int size;

  /**
   * @param registry where the meters go; null for none
   */
  public BatchingController(BatchingPolicy policy, Ticker ticker, MeterRegistry registry) {
    this.policy = Objects.requireNonNull(policy, "policy must not be null");
    this.ticker = Objects.requireNonNull(ticker, "ticker must not be null");
    this.minNanos = TimeUnit.MICROSECONDS.toNanos(policy.minIntervalMicros());
    this.maxNanos = TimeUnit.MICROSECONDS.toNanos(policy.maxIntervalMicros());
    this.intervalNanos = TimeUnit.MICROSECONDS.toNanos(policy.intervalMicros());
    this.intervalMicros = policy.intervalMicros();
    if (registry != null) {
      sizes =
          DistributionSummary.builder(MeterNames.REPEATER_BATCH_SIZE)
              .baseUnit("writes")
              .description("Sequenced writes flushed to the duplicates together")
              .register(registry);
      latencies =
          Timer.builder(MeterNames.REPEATER_BATCH_LATENCY)
              .description("From a batch's flush to the first ACK covering it")
              .register(registry);
      meters.add(sizes);
      meters.add(latencies);
      meters.add(
          Gauge.builder(MeterNames.REPEATER_BATCH_INTERVAL, this, c -> c.intervalMicros)
              .baseUnit("microseconds")
              .description("Current batching interval (" + policy + ")")
              .register(registry));
    } else {
      sizes = null;
      latencies = null;
    }
  }

  /**
   * The meters this controller registered, so that the repeater removes them from the registry when
   * it closes.
   */
  public List<Meter> meters() {
    return List.copyOf(meters);
  }

  /** Flushes right away, and no meters. */
  public static BatchingController none() {
    return new BatchingController(BatchingPolicy.none(), System::nanoTime, null);
  }

  public BatchingPolicy policy() {
    return policy;
  }

  /**
   * @return the current interval, in nanoseconds: a fixed policy's, or an adaptive policy's longest
   *     hold
   */
  public long intervalNanos() {
    return intervalNanos;
  }

  /**
   * @return how long to hold the writes of a handoff before flushing them, in nanoseconds; 0 to
   *     flush after the current handoffs. Fixed: the interval. Adaptive: 0 while every flush has
   *     been acknowledged, else the interval.
   */
  public long holdNanos() {
    return releaseHeldWrites() ? 0 : intervalNanos;
  }

  /**
   * @return whether writes held now should be flushed at once: adaptive, and every flush has been
   *     acknowledged
   */
  public boolean releaseHeldWrites() {
    return policy.kind() == BatchingPolicy.Kind.ADAPTIVE && size == 0;
  }

  /** The writes up to {@code lastSeq} were flushed to the plugins now. */
  public void flushed(long lastSeq) {
    if (lastSeq <= flushedSeq) {
      return;
    }
    if (sizes != null && flushedSeq >= 0) {
      sizes.record((double) (lastSeq - flushedSeq));
    }
    flushedSeq = lastSeq;
    if (size == MAX_PENDING_FLUSHES) {
      head = (head + 1) % MAX_PENDING_FLUSHES;
      size--;
    }
    int tail = (head + size) % MAX_PENDING_FLUSHES;
    pendingSeq[tail] = lastSeq;
    pendingNanos[tail] = ticker.nanoTime();
    size++;
  }

  /**
   * Some duplicate acknowledged every write up to {@code seq}; the first such ACK measures the
   * batches it covers.
   */
  public void acked(long seq) {
    if (seq <= ackedSeq) {
      return;
    }
    ackedSeq = seq;
    long now = ticker.nanoTime();
    while (size > 0 && pendingSeq[head] <= seq) {
      sample(now - pendingNanos[head]);
      head = (head + 1) % MAX_PENDING_FLUSHES;
      size--;
    }
  }

  private void sample(long latencyNanos) {
    if (latencies != null) {
      latencies.record(latencyNanos, TimeUnit.NANOSECONDS);
    }
    if (policy.kind() != BatchingPolicy.Kind.ADAPTIVE) {
      return;
    }
    if (Double.isNaN(levelNanos)) {
      recentNanos = latencyNanos;
      levelNanos = latencyNanos;
      return;
    }
    recentNanos += RECENT_WEIGHT * (latencyNanos - recentNanos);
    levelNanos += LEVEL_WEIGHT * (latencyNanos - levelNanos);
    if (recentNanos > levelNanos * (1 + policy.tolerance())) {
      intervalNanos = Math.min(maxNanos, (long) (intervalNanos * policy.backoffFactor()));
    } else {
      intervalNanos = Math.max(minNanos, (long) (intervalNanos * policy.accelerateFactor()));
    }
    intervalMicros = TimeUnit.NANOSECONDS.toMicros(intervalNanos);
  }
}
