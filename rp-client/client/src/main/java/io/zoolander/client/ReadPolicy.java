package io.zoolander.client;

/**
 * How many duplicates a read goes to (the degree of concurrency C) and when.
 *
 * <ul>
 *   <li>{@link #fixed(int)}: every read goes to the C best-ranked duplicates at once; the first
 *       reply wins.
 *   <li>{@link #adaptive()}: C moves between bounds following the autonomic policy: raised when the
 *       failure ratio or the latency variation in a window is high, lowered when both are low.
 *   <li>{@link #hedged(double)}: a read goes to the best-ranked duplicate, and to the next one only
 *       if no reply came within a percentile of recent latency (what gRPC, Finagle and the
 *       Cassandra driver offer).
 * </ul>
 *
 * In every mode duplicates are ranked by recent latency, so reads go to the fastest first, and a
 * duplicate that refuses a read (not caught up, fenced) or is unreachable is skipped for the next
 * one.
 */
public final class ReadPolicy {

  /** The policy's mode. */
  public enum Mode {
    FIXED,
    ADAPTIVE,
    HEDGED
  }

  private final Mode mode;
  private final int concurrency;
  private final int minConcurrency;
  private final int maxConcurrency;
  private final int windowReads;
  private final double raiseFailureRatio;
  private final double raiseVariation;
  private final double lowerFailureRatio;
  private final double lowerVariation;
  private final double hedgePercentile;
  private final long minHedgeDelayMicros;

  private ReadPolicy(
      Mode mode,
      int concurrency,
      AdaptiveBuilder adaptive,
      double hedgePercentile,
      long minHedgeDelayMicros) {
    this.mode = mode;
    this.concurrency = concurrency;
    this.minConcurrency = adaptive == null ? concurrency : adaptive.minConcurrency;
    this.maxConcurrency = adaptive == null ? concurrency : adaptive.maxConcurrency;
    this.windowReads = adaptive == null ? 0 : adaptive.windowReads;
    this.raiseFailureRatio = adaptive == null ? 0 : adaptive.raiseFailureRatio;
    this.raiseVariation = adaptive == null ? 0 : adaptive.raiseVariation;
    this.lowerFailureRatio = adaptive == null ? 0 : adaptive.lowerFailureRatio;
    this.lowerVariation = adaptive == null ? 0 : adaptive.lowerVariation;
    this.hedgePercentile = hedgePercentile;
    this.minHedgeDelayMicros = minHedgeDelayMicros;
  }

  /**
   * Every read to the {@code concurrency} best-ranked duplicates (capped at the number of
   * duplicates).
   *
   * @throws IllegalArgumentException if {@code concurrency < 1}
   */
  public static ReadPolicy fixed(int concurrency) {
    if (concurrency < 1) {
      throw new IllegalArgumentException("concurrency must be >= 1, was " + concurrency);
    }
    return new ReadPolicy(Mode.FIXED, concurrency, null, 0, 0);
  }

  /** Every read to every duplicate: the most masking, the most load. */
  public static ReadPolicy all() {
    return fixed(Integer.MAX_VALUE);
  }

  /** The adaptive policy with default thresholds; see {@link AdaptiveBuilder} to tune it. */
  public static ReadPolicy adaptive() {
    return adaptiveBuilder().build();
  }

  public static AdaptiveBuilder adaptiveBuilder() {
    return new AdaptiveBuilder();
  }

  /**
   * Hedged reads: to the best duplicate, then to the next after the given percentile of recent read
   * latency (at least 100 microseconds).
   *
   * @param percentile in (0, 1), e.g. 0.95
   */
  public static ReadPolicy hedged(double percentile) {
    if (!(percentile > 0 && percentile < 1)) {
      throw new IllegalArgumentException("percentile must be in (0, 1), was " + percentile);
    }
    return new ReadPolicy(Mode.HEDGED, 1, null, percentile, 100);
  }

  public Mode mode() {
    return mode;
  }

  /** The initial (fixed, hedged: the only) degree of concurrency. */
  public int concurrency() {
    return concurrency;
  }

  public int minConcurrency() {
    return minConcurrency;
  }

  public int maxConcurrency() {
    return maxConcurrency;
  }

  /** Reads per adaptive window. */
  public int windowReads() {
    return windowReads;
  }

  public double raiseFailureRatio() {
    return raiseFailureRatio;
  }

  /**
   * Latency variation (p90 / p50 of the window's reply latencies) at or above which C is raised.
   */
  public double raiseVariation() {
    return raiseVariation;
  }

  public double lowerFailureRatio() {
    return lowerFailureRatio;
  }

  /** Latency variation below which (with a low failure ratio) C is lowered. */
  public double lowerVariation() {
    return lowerVariation;
  }

  /** The latency percentile a hedge waits for. */
  public double hedgePercentile() {
    return hedgePercentile;
  }

  public long minHedgeDelayMicros() {
    return minHedgeDelayMicros;
  }

  @Override
  public String toString() {
    return switch (mode) {
      case FIXED -> "fixed(C=" + (concurrency == Integer.MAX_VALUE ? "all" : concurrency) + ")";
      case ADAPTIVE -> "adaptive(C=" + minConcurrency + ".." + maxConcurrency + ")";
      case HEDGED -> "hedged(p" + Math.round(hedgePercentile * 100) + ")";
    };
  }

  /** Tunes the adaptive policy; every setter validates its argument. */
  public static final class AdaptiveBuilder {
    private int minConcurrency = 1;
    private int maxConcurrency = Integer.MAX_VALUE;
    private int initialConcurrency = 1;
    private int windowReads = 200;
    private double raiseFailureRatio = 0.05;
    private double raiseVariation = 4.0;
    private double lowerFailureRatio = 0.01;
    private double lowerVariation = 2.0;

    private AdaptiveBuilder() {}

    /** Bounds of C (the upper one is capped at the number of duplicates); default 1..all. */
    public AdaptiveBuilder bounds(int min, int max) {
      if (min < 1 || max < min) {
        throw new IllegalArgumentException(
            "bounds must satisfy 1 <= min <= max, were " + min + ".." + max);
      }
      this.minConcurrency = min;
      this.maxConcurrency = max;
      return this;
    }

    /** C before the first window closes; default 1 (clamped to the bounds). */
    public AdaptiveBuilder initial(int concurrency) {
      if (concurrency < 1) {
        throw new IllegalArgumentException("initial concurrency must be >= 1, was " + concurrency);
      }
      this.initialConcurrency = concurrency;
      return this;
    }

    /** Reads per decision window; default 200. */
    public AdaptiveBuilder windowReads(int reads) {
      if (reads < 10) {
        throw new IllegalArgumentException("windowReads must be >= 10, was " + reads);
      }
      this.windowReads = reads;
      return this;
    }

    /** Raise C when a window's failure ratio or variation reaches these; defaults 0.05 and 4.0. */
    public AdaptiveBuilder raiseAt(double failureRatio, double variation) {
      this.raiseFailureRatio = ratio(failureRatio, "raise failureRatio");
      this.raiseVariation = variation(variation, "raise variation");
      return this;
    }

    /**
     * Lower C when a window's failure ratio and variation are both below these; defaults 0.01 and
     * 2.0.
     */
    public AdaptiveBuilder lowerBelow(double failureRatio, double variation) {
      this.lowerFailureRatio = ratio(failureRatio, "lower failureRatio");
      this.lowerVariation = variation(variation, "lower variation");
      return this;
    }

    /**
     * @throws IllegalStateException if the lowering thresholds are not below the raising ones
     */
    public ReadPolicy build() {
      if (lowerFailureRatio > raiseFailureRatio || lowerVariation > raiseVariation) {
        throw new IllegalStateException("lowering thresholds must not exceed raising thresholds");
      }
      int initial = Math.max(minConcurrency, Math.min(maxConcurrency, initialConcurrency));
      return new ReadPolicy(Mode.ADAPTIVE, initial, this, 0, 0);
    }

    private static double ratio(double value, String name) {
      if (!(value >= 0 && value <= 1)) {
        throw new IllegalArgumentException(name + " must be in [0, 1], was " + value);
      }
      return value;
    }

    private static double variation(double value, String name) {
      if (!(value >= 1) || Double.isInfinite(value)) {
        throw new IllegalArgumentException(name + " must be a finite ratio >= 1, was " + value);
      }
      return value;
    }
  }
}
