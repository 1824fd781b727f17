package io.zoolander.client.internal;

import io.zoolander.client.ReadPolicy;
import io.zoolander.wire.Ticker;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The autonomic degree-of-concurrency policy (after the St Andrews autonomic client): reads are
 * observed in windows of {@link ReadPolicy.Adaptive#windowReads()} reads (or one second, if that
 * comes first with at least 10 reads). At the end of a window, C goes up by one if the failure
 * ratio (reads where some duplicate refused, failed or timed out) or the latency variation (p90 /
 * p50 of every reply latency in the window, winners and losers) reached the raising thresholds, and
 * down by one if both are below the lowering thresholds. For {@link ReadPolicy.Fixed} C never
 * moves; for {@link ReadPolicy.Hedged} it is 1 (the hedges add the others). For {@link
 * ReadPolicy.Advised} C does not move by itself either: it is the read fan-out the newest
 * membership record advises ({@link #setAdvisedFanOut}), or the policy's own C while none is
 * advised; the other policies ignore the advice. C never exceeds the number of active duplicates,
 * which changes when duplicates are added or retired while the client runs ({@link
 * #setDuplicates}), and is at least 1. Not thread-safe: used on the client's I/O thread only (the
 * event loop); {@link #current()} may be read from any thread. Internal: not part of the public
 * API.
 */
public final class AdaptiveConcurrency {
  static final long WINDOW_MAX_NANOS = TimeUnit.SECONDS.toNanos(1);
  static final int WINDOW_MIN_READS = 10;

  /** The adaptive policy, or null when C never moves. */
  private final ReadPolicy.Adaptive policy;

  private final Ticker ticker;

  /** The policy's own bound on C, whatever the number of duplicates. */
  private final int policyMax;

  /** The advised policy, or null for the others (which ignore the advice). */
  private final ReadPolicy.@Nullable Advised advised;

  /**
   * The C a fixed or advised policy asks for now (it holds once there are that many duplicates): a
   * fixed policy's C; the advised fan-out, or the advised policy's C without advice. 0 for the
   * other policies.
   */
  private int requested;

  /** The read fan-out the newest membership record advises, 0 for none (whatever the policy). */
  private int advisedFanOut;

  private int maxConcurrency;
  private volatile int concurrency;
  private long windowStartNanos;
  private int reads;
  private int failures;
  private long[] latencies = new long[256];
  private int latencyCount;
  private double lastFailureRatio;
  private double lastVariation;

  public AdaptiveConcurrency(ReadPolicy policy, int duplicates, Ticker ticker) {
    this.ticker = ticker;
    int max;
    int initial;
    if (policy instanceof ReadPolicy.Adaptive adaptive) {
      this.policy = adaptive;
      max = adaptive.maxConcurrency();
      initial = adaptive.initialConcurrency();
    } else if (policy instanceof ReadPolicy.Fixed fixed) {
      this.policy = null;
      max = fixed.concurrency();
      initial = fixed.concurrency();
    } else if (policy instanceof ReadPolicy.Hedged) {
      this.policy = null;
      max = 1;
      initial = 1;
    } else if (policy instanceof ReadPolicy.Advised a) {
      this.policy = null;
      max = Integer.MAX_VALUE; // the advice may name any number; the duplicates cap it
      initial = a.concurrencyWithoutAdvice(); // no advice before the first record is read
    } else {
      throw new IllegalArgumentException("unknown read policy " + policy);
    }
    this.policyMax = max;
    this.advised = policy instanceof ReadPolicy.Advised a ? a : null;
    this.requested =
        policy instanceof ReadPolicy.Fixed || policy instanceof ReadPolicy.Advised ? initial : 0;
    this.maxConcurrency = Math.max(1, Math.min(duplicates, max));
    this.concurrency = Math.max(1, Math.min(maxConcurrency, initial));
    this.windowStartNanos = ticker.nanoTime();
  }

  /**
   * The number of active duplicates changed (one added or retired while the client runs): C's
   * maximum follows it. A fixed policy's C is its own C again as far as there are duplicates for
   * it, an advised policy's C the advised one (or its own without advice) as far as there are
   * duplicates for it; an adaptive C is kept within the new bounds (its minimum as far as there are
   * duplicates for it) and moves on from there.
   */
  public void setDuplicates(int activeDuplicates) {
    maxConcurrency = Math.max(1, Math.min(activeDuplicates, policyMax));
    int c = requested > 0 ? requested : concurrency;
    if (policy != null) {
      c = Math.max(c, Math.min(policy.minConcurrency(), maxConcurrency));
    }
    concurrency = Math.max(1, Math.min(maxConcurrency, c));
  }

  /**
   * The newest membership record followed advises {@code fanOut} duplicates per read (0: none). An
   * advised policy's C becomes {@code fanOut}, or its C without advice when 0, as far as there are
   * active duplicates for it; the other policies ignore it (their C is the application's choice).
   *
   * @throws IllegalArgumentException if {@code fanOut} is negative
   */
  public void setAdvisedFanOut(int fanOut) {
    if (fanOut < 0) {
      throw new IllegalArgumentException("fanOut must be >= 0, was " + fanOut);
    }
    advisedFanOut = fanOut;
    if (advised == null) {
      return;
    }
    requested = fanOut > 0 ? fanOut : advised.concurrencyWithoutAdvice();
    concurrency = Math.max(1, Math.min(maxConcurrency, requested));
  }

  /**
   * The read fan-out last given to {@link #setAdvisedFanOut}, 0 before any (or when none is
   * advised), whether or not the policy follows it.
   */
  public int advisedFanOut() {
    return advisedFanOut;
  }

  /** The current maximum of C: the policy's, at most the number of active duplicates. */
  public int maxConcurrency() {
    return maxConcurrency;
  }

  /** The current degree of concurrency. Safe to read from any thread. */
  public int current() {
    return concurrency;
  }

  /** A reply latency (winning or losing) seen in this window. */
  public void recordLatency(long latencyNanos) {
    if (policy == null) {
      return;
    }
    if (latencyCount == latencies.length) {
      latencies = Arrays.copyOf(latencies, latencyCount * 2);
    }
    latencies[latencyCount++] = latencyNanos;
  }

  /**
   * A read completed (or failed); {@code failed} if some duplicate refused, failed or timed out on
   * it.
   */
  public void recordRead(boolean failed) {
    if (policy == null) {
      return;
    }
    reads++;
    if (failed) {
      failures++;
    }
    long now = ticker.nanoTime();
    if (reads >= policy.windowReads()
        || (reads >= WINDOW_MIN_READS && now - windowStartNanos >= WINDOW_MAX_NANOS)) {
      decide();
      windowStartNanos = now;
    }
  }

  private void decide() {
    lastFailureRatio = (double) failures / reads;
    lastVariation = variation();
    int c = concurrency;
    if (lastFailureRatio >= policy.raiseFailureRatio()
        || lastVariation >= policy.raiseVariation()) {
      c = Math.min(maxConcurrency, c + 1);
    } else if (lastFailureRatio < policy.lowerFailureRatio()
        && lastVariation < policy.lowerVariation()) {
      c = Math.max(Math.min(policy.minConcurrency(), maxConcurrency), c - 1);
    }
    concurrency = c;
    reads = 0;
    failures = 0;
    latencyCount = 0;
  }

  private double variation() {
    if (latencyCount < 2) {
      return 1;
    }
    long[] sorted = Arrays.copyOf(latencies, latencyCount);
    Arrays.sort(sorted);
    long p50 = sorted[(int) Math.ceil(0.5 * sorted.length) - 1];
    long p90 = sorted[(int) Math.ceil(0.9 * sorted.length) - 1];
    return p50 <= 0 ? 1 : (double) p90 / p50;
  }

  /** The failure ratio of the last closed window. */
  public double lastFailureRatio() {
    return lastFailureRatio;
  }

  /** The latency variation (p90/p50) of the last closed window. */
  public double lastVariation() {
    return lastVariation;
  }
}
