package io.zoolander.client.internal;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.function.IntPredicate;

/**
 * Ranks duplicates by recent read latency so that reads with C below N go to the fastest first: an
 * exponentially weighted moving average of each duplicate's reply latency, inflated by its recent
 * failure rate. A duplicate with no sample yet ranks first, so every duplicate gets tried. Also
 * keeps a window of recent first-reply latencies for the hedging delay.
 *
 * <p>The set of duplicates can grow while the client runs ({@link #add}, a duplicate added online)
 * and a duplicate can be left out of every order ({@link #setReadable}: one retired, or joining and
 * not caught up yet); indexes never move, so the client's other per-duplicate tables keep theirs.
 * Not thread-safe: used on the client's I/O thread only (the event loop), like every change to it.
 * Internal: not part of the public API.
 */
public final class DuplicateRanking {
  static final double LATENCY_WEIGHT = 0.2;
  static final double FAILURE_WEIGHT = 0.1;
  static final double FAILURE_PENALTY = 4;
  private static final int RECENT_SAMPLES = 1024;
  private static final int PERCENTILE_REFRESH = 64;

  private double[] latencyEwmaNanos;
  private double[] failureEwma;
  private boolean[] sampled;

  /** Duplicates left out of {@link #order} (retired, or joining). */
  private boolean[] unreadable;

  private final long[] recent = new long[RECENT_SAMPLES];
  private int recentCount;
  private int recentNext;
  private int sinceRefresh = PERCENTILE_REFRESH;
  private double cachedPercentile = Double.NaN;
  private long cachedPercentileNanos;

  public DuplicateRanking(int duplicates) {
    latencyEwmaNanos = new double[duplicates];
    failureEwma = new double[duplicates];
    sampled = new boolean[duplicates];
    unreadable = new boolean[duplicates];
  }

  /** How many duplicates it ranks (retired ones included: indexes never move). */
  public int size() {
    return latencyEwmaNanos.length;
  }

  /**
   * Appends a duplicate (added while the client runs), unsampled, so it ranks first and is tried
   * soon.
   *
   * @return its index, {@link #size()} before the call
   */
  public int add() {
    int index = latencyEwmaNanos.length;
    latencyEwmaNanos = Arrays.copyOf(latencyEwmaNanos, index + 1);
    failureEwma = Arrays.copyOf(failureEwma, index + 1);
    sampled = Arrays.copyOf(sampled, index + 1);
    unreadable = Arrays.copyOf(unreadable, index + 1);
    return index;
  }

  /**
   * Whether duplicate {@code index} may be read from: one retired, or joining and not caught up, is
   * left out of every {@link #order} until it is readable again. Its samples are kept.
   */
  public void setReadable(int index, boolean readable) {
    unreadable[index] = !readable;
  }

  /** Whether duplicate {@code index} may be read from (see {@link #setReadable}). */
  public boolean readable(int index) {
    return !unreadable[index];
  }

  /** A reply (winning or losing) from duplicate {@code index} after {@code latencyNanos}. */
  public void recordReply(int index, long latencyNanos) {
    if (!sampled[index]) {
      latencyEwmaNanos[index] = latencyNanos;
      sampled[index] = true;
    } else {
      latencyEwmaNanos[index] += LATENCY_WEIGHT * (latencyNanos - latencyEwmaNanos[index]);
    }
    failureEwma[index] *= 1 - FAILURE_WEIGHT;
  }

  /** Duplicate {@code index} refused a read, timed out or was unreachable. */
  public void recordFailure(int index) {
    failureEwma[index] += FAILURE_WEIGHT * (1 - failureEwma[index]);
    sampled[index] = true;
  }

  /** A read's first-reply latency, for the hedging percentile. */
  public void recordFirstReply(long latencyNanos) {
    recent[recentNext] = latencyNanos;
    recentNext = (recentNext + 1) % RECENT_SAMPLES;
    recentCount = Math.min(RECENT_SAMPLES, recentCount + 1);
    sinceRefresh++;
  }

  /** The ranking score (lower is better): latency EWMA times a failure penalty. */
  double score(int index) {
    return sampled[index]
        ? latencyEwmaNanos[index] * (1 + FAILURE_PENALTY * failureEwma[index])
        : 0;
  }

  /** Indices of the readable duplicates {@code usable} accepts, best first. */
  public List<Integer> order(IntPredicate usable) {
    List<Integer> order = new ArrayList<>(latencyEwmaNanos.length);
    for (int i = 0; i < latencyEwmaNanos.length; i++) {
      if (!unreadable[i] && usable.test(i)) {
        order.add(i);
      }
    }
    order.sort(Comparator.comparingDouble(this::score));
    return order;
  }

  /**
   * The given percentile of recent first-reply latencies, or {@code fallbackNanos} before any
   * sample.
   */
  public long latencyPercentileNanos(double percentile, long fallbackNanos) {
    if (recentCount == 0) {
      return fallbackNanos;
    }
    if (sinceRefresh >= PERCENTILE_REFRESH || percentile != cachedPercentile) {
      long[] copy = Arrays.copyOf(recent, recentCount);
      Arrays.sort(copy);
      cachedPercentileNanos =
          copy[Math.min(copy.length - 1, (int) Math.ceil(percentile * copy.length) - 1)];
      cachedPercentile = percentile;
      sinceRefresh = 0;
    }
    return cachedPercentileNanos;
  }
}
