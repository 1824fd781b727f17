package io.zoolander.server.repeater;

import java.util.Locale;
import java.util.Objects;

/**
 * How long the repeater holds sequenced writes before it flushes them to the duplicates: every
 * write sequenced in that interval reaches each plugin in one buffer, and the plugin applies
 * consecutive writes received together as one ZooKeeper multi (one proposal, one fsync). Immutable.
 *
 * <ul>
 *   <li>{@link #none()}: flush after each burst of handoffs (interval 0): writes that arrive
 *       together still batch;
 *   <li>{@link #fixed(long)}: always wait this many microseconds after the first write of a batch;
 *   <li>{@link #adaptive()}: like Stout (McCullough, Dunagan, Wolman and Snoeren, USENIX ATC 2010),
 *       writes go at once while the duplicates keep up and are batched when they do not. A write
 *       goes at once when some duplicate has acknowledged every flush (it is idle); while every
 *       duplicate still owes an ACK (all are busy applying: what they are sent now would wait in
 *       their inboxes anyway), writes are held for the current interval, and the ACK that settles
 *       every flush sends them at once: the ACKs clock the flushes. The interval follows the
 *       measured latency (flush to first ACK): when the latency of recent batches rises above its
 *       longer-term level by more than {@link #tolerance()}, back off (multiply the interval by
 *       {@link #backoffFactor()}, up to {@link #maxIntervalMicros()}); otherwise accelerate
 *       (multiply it by {@link #accelerateFactor()}, down to {@link #minIntervalMicros()}).
 * </ul>
 *
 * <p>Which default measures best is in {@code docs/benchmarks.md}; {@code docs/repeater.md}
 * describes the mechanism.
 */
public final class BatchingPolicy {

  /** Largest interval accepted, in microseconds. */
  public static final long MAX_INTERVAL_MICROS = 100_000;

  /** Adaptive: default upper bound of the interval, in microseconds. */
  public static final long DEFAULT_ADAPTIVE_MAX_INTERVAL_MICROS = 5_000;

  /**
   * Adaptive: default shortest interval (a hold while every duplicate is busy), in microseconds.
   */
  public static final long DEFAULT_ADAPTIVE_MIN_INTERVAL_MICROS = 1_000;

  /** Adaptive: default factor the interval is multiplied by when latency rises. */
  public static final double DEFAULT_ADAPTIVE_BACKOFF_FACTOR = 2.0;

  /** Adaptive: default factor the interval is multiplied by when latency does not rise. */
  public static final double DEFAULT_ADAPTIVE_ACCELERATE_FACTOR = 0.8;

  /**
   * Adaptive: default relative rise of recent latency over its longer-term level that counts as
   * rising.
   */
  public static final double DEFAULT_ADAPTIVE_TOLERANCE = 0.2;

  /** The kind of policy. */
  public enum Kind {
    FIXED,
    ADAPTIVE
  }

  private static final BatchingPolicy NONE = new BatchingPolicy(Kind.FIXED, 0, 0, 0, 1, 1, 0);
  private static final BatchingPolicy ADAPTIVE = builder().build();

  private final Kind kind;
  private final long intervalMicros;
  private final long maxIntervalMicros;
  private final long minIntervalMicros;
  private final double backoffFactor;
  private final double accelerateFactor;
  private final double tolerance;

  private BatchingPolicy(
      Kind kind,
      long intervalMicros,
      long maxIntervalMicros,
      long minIntervalMicros,
      double backoffFactor,
      double accelerateFactor,
      double tolerance) {
    this.kind = kind;
    this.intervalMicros = intervalMicros;
    this.maxIntervalMicros = maxIntervalMicros;
    this.minIntervalMicros = minIntervalMicros;
    this.backoffFactor = backoffFactor;
    this.accelerateFactor = accelerateFactor;
    this.tolerance = tolerance;
  }

  /** No waiting: each burst of handoffs is flushed as soon as the sequencer has handled it. */
  public static BatchingPolicy none() {
    return NONE;
  }

  /**
   * A fixed interval.
   *
   * @param intervalMicros 0 (as {@link #none()}) to {@link #MAX_INTERVAL_MICROS}
   * @throws IllegalArgumentException if out of range
   */
  public static BatchingPolicy fixed(long intervalMicros) {
    range("intervalMicros", intervalMicros, 0, MAX_INTERVAL_MICROS);
    return intervalMicros == 0
        ? NONE
        : new BatchingPolicy(Kind.FIXED, intervalMicros, intervalMicros, 0, 1, 1, 0);
  }

  /** The adaptive policy with the default settings. */
  public static BatchingPolicy adaptive() {
    return ADAPTIVE;
  }

  /** An adaptive policy with settings of one's own. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Parses {@code adaptive}, {@code none}, or a fixed interval in microseconds ({@code 1000}), as
   * the {@code zoolander repeater} configuration key {@code repeater.batching} takes it.
   *
   * @throws IllegalArgumentException if {@code text} is none of those
   */
  public static BatchingPolicy parse(String text) {
    Objects.requireNonNull(text, "batching must not be null");
    String t = text.trim().toLowerCase(Locale.ROOT);
    if (t.equals("adaptive")) {
      return adaptive();
    }
    if (t.equals("none")) {
      return none();
    }
    try {
      return fixed(Long.parseLong(t));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "batching must be 'adaptive', 'none' or an interval in microseconds, not '" + text + "'");
    }
  }

  public Kind kind() {
    return kind;
  }

  /**
   * The interval of a fixed policy; the starting (shortest) interval of an adaptive one. In
   * microseconds.
   */
  public long intervalMicros() {
    return intervalMicros;
  }

  /** The largest interval, in microseconds. */
  public long maxIntervalMicros() {
    return maxIntervalMicros;
  }

  /** Adaptive: the shortest interval, in microseconds: accelerating stops there. */
  public long minIntervalMicros() {
    return minIntervalMicros;
  }

  public double backoffFactor() {
    return backoffFactor;
  }

  public double accelerateFactor() {
    return accelerateFactor;
  }

  public double tolerance() {
    return tolerance;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof BatchingPolicy p
        && kind == p.kind
        && intervalMicros == p.intervalMicros
        && maxIntervalMicros == p.maxIntervalMicros
        && minIntervalMicros == p.minIntervalMicros
        && Double.compare(backoffFactor, p.backoffFactor) == 0
        && Double.compare(accelerateFactor, p.accelerateFactor) == 0
        && Double.compare(tolerance, p.tolerance) == 0;
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        kind,
        intervalMicros,
        maxIntervalMicros,
        minIntervalMicros,
        backoffFactor,
        accelerateFactor,
        tolerance);
  }

  @Override
  public String toString() {
    return kind == Kind.FIXED
        ? (intervalMicros == 0 ? "none" : "fixed " + intervalMicros + " us")
        : String.format(
            Locale.ROOT,
            "adaptive (min %d us, max %d us, backoff x%.2f, accelerate x%.2f, tolerance %.2f)",
            minIntervalMicros,
            maxIntervalMicros,
            backoffFactor,
            accelerateFactor,
            tolerance);
  }

  private static void range(String name, long value, long min, long max) {
    if (value < min || value > max) {
      throw new IllegalArgumentException(
          name + " must be in [" + min + ", " + max + "], was " + value);
    }
  }

  /** Settings of an adaptive policy; each setter validates its argument. */
  public static final class Builder {
    private long maxIntervalMicros = DEFAULT_ADAPTIVE_MAX_INTERVAL_MICROS;
    private long minIntervalMicros = DEFAULT_ADAPTIVE_MIN_INTERVAL_MICROS;
    private double backoffFactor = DEFAULT_ADAPTIVE_BACKOFF_FACTOR;
    private double accelerateFactor = DEFAULT_ADAPTIVE_ACCELERATE_FACTOR;
    private double tolerance = DEFAULT_ADAPTIVE_TOLERANCE;

    private Builder() {}

    /**
     * @param micros 1 to {@link #MAX_INTERVAL_MICROS}
     */
    public Builder maxIntervalMicros(long micros) {
      range("maxIntervalMicros", micros, 1, MAX_INTERVAL_MICROS);
      this.maxIntervalMicros = micros;
      return this;
    }

    /**
     * @param micros 1 to {@link #MAX_INTERVAL_MICROS}
     */
    public Builder minIntervalMicros(long micros) {
      range("minIntervalMicros", micros, 1, MAX_INTERVAL_MICROS);
      this.minIntervalMicros = micros;
      return this;
    }

    /**
     * @param factor above 1, at most 10
     */
    public Builder backoffFactor(double factor) {
      if (!(factor > 1 && factor <= 10)) {
        throw new IllegalArgumentException("backoffFactor must be in (1, 10], was " + factor);
      }
      this.backoffFactor = factor;
      return this;
    }

    /**
     * @param factor in (0, 1)
     */
    public Builder accelerateFactor(double factor) {
      if (!(factor > 0 && factor < 1)) {
        throw new IllegalArgumentException("accelerateFactor must be in (0, 1), was " + factor);
      }
      this.accelerateFactor = factor;
      return this;
    }

    /**
     * @param tolerance 0 to 10: how far (relative) recent latency may exceed its longer-term level
     */
    public Builder tolerance(double tolerance) {
      if (!(tolerance >= 0 && tolerance <= 10)) {
        throw new IllegalArgumentException("tolerance must be in [0, 10], was " + tolerance);
      }
      this.tolerance = tolerance;
      return this;
    }

    /**
     * @throws IllegalStateException if the shortest interval exceeds the largest
     */
    public BatchingPolicy build() {
      if (minIntervalMicros > maxIntervalMicros) {
        throw new IllegalStateException(
            "minIntervalMicros "
                + minIntervalMicros
                + " must not exceed maxIntervalMicros "
                + maxIntervalMicros);
      }
      return new BatchingPolicy(
          Kind.ADAPTIVE,
          minIntervalMicros,
          maxIntervalMicros,
          minIntervalMicros,
          backoffFactor,
          accelerateFactor,
          tolerance);
    }
  }
}
