package io.zoolander.client;

import java.time.Duration;
import java.util.Objects;

/**
 * How many duplicates a read goes to (the degree of concurrency C) and when: one record per policy,
 * each validated when it is built.
 *
 * <ul>
 *   <li>{@link Fixed} ({@link #fixed(int)}, {@link #all()}): every read goes to the C best-ranked
 *       duplicates at once; the first reply wins.
 *   <li>{@link Adaptive} ({@link #adaptive()}, {@link #adaptiveBuilder()}): C moves between bounds
 *       following the autonomic policy: raised when the failure ratio or the latency variation in a
 *       window is high, lowered when both are low.
 *   <li>{@link Hedged} ({@link #hedged(double)}): a read goes to the best-ranked duplicate, and to
 *       the next one only if no reply came within a percentile of recent latency (what gRPC,
 *       Finagle and the Cassandra driver offer).
 *   <li>{@link Advised} ({@link #advised(int)}): every read goes to the C best-ranked duplicates at
 *       once, where C is the read fan-out the deployment advises. The repeater's load controller
 *       (off by default; repeater settings {@code controller.*}) decides it from the model's
 *       prediction and publishes it in the membership record; a client with this policy follows it
 *       the moment it reads a newer record, and uses its own C while none is advised. The other
 *       policies ignore the advice: with them the application chose its C.
 * </ul>
 *
 * In every policy duplicates are ranked by recent latency, so reads go to the fastest first, and a
 * duplicate that refuses a read (not caught up, fenced) or is unreachable is skipped for the next
 * one.
 */
public sealed interface ReadPolicy
    permits ReadPolicy.Fixed, ReadPolicy.Adaptive, ReadPolicy.Hedged, ReadPolicy.Advised {

  /**
   * Every read to the {@code concurrency} best-ranked duplicates (capped at the number of
   * duplicates).
   *
   * @throws IllegalArgumentException if {@code concurrency < 1}
   */
  static Fixed fixed(int concurrency) {
    return new Fixed(concurrency);
  }

  /** Every read to every duplicate: the most masking, the most load. */
  static Fixed all() {
    return fixed(Integer.MAX_VALUE);
  }

  /** The adaptive policy with default thresholds; see {@link AdaptiveBuilder} to tune it. */
  static Adaptive adaptive() {
    return adaptiveBuilder().build();
  }

  static AdaptiveBuilder adaptiveBuilder() {
    return new AdaptiveBuilder();
  }

  /**
   * Hedged reads: to the best duplicate, then to the next after the given percentile of recent read
   * latency (at least {@link Hedged#DEFAULT_MIN_DELAY}, 100 microseconds).
   *
   * @param percentile in (0, 1), e.g. 0.95
   * @throws IllegalArgumentException if {@code percentile} is not in (0, 1)
   */
  static Hedged hedged(double percentile) {
    return new Hedged(percentile, Hedged.DEFAULT_MIN_DELAY);
  }

  /**
   * Every read to as many best-ranked duplicates as the deployment advises (its load controller's
   * read fan-out, in the membership record), or to {@code concurrencyWithoutAdvice} of them while
   * none is advised; capped at the number of duplicates.
   *
   * @throws IllegalArgumentException if {@code concurrencyWithoutAdvice < 1}
   */
  static Advised advised(int concurrencyWithoutAdvice) {
    return new Advised(concurrencyWithoutAdvice);
  }

  /**
   * Every read to the {@code concurrency} best-ranked duplicates at once; C never moves.
   *
   * @param concurrency {@code >= 1}, capped at the number of duplicates ({@link Integer#MAX_VALUE}:
   *     every duplicate)
   */
  record Fixed(int concurrency) implements ReadPolicy {
    public Fixed {
      if (concurrency < 1) {
        throw new IllegalArgumentException("concurrency must be >= 1, was " + concurrency);
      }
    }

    @Override
    public String toString() {
      return "fixed(C=" + (concurrency == Integer.MAX_VALUE ? "all" : concurrency) + ")";
    }
  }

  /**
   * The autonomic policy: C starts at {@code initialConcurrency} and moves by one at the end of
   * each window of {@code windowReads} reads (or one second with at least 10 reads).
   *
   * @param minConcurrency lower bound of C, {@code >= 1}
   * @param maxConcurrency upper bound of C, {@code >= minConcurrency} (capped at the number of
   *     duplicates)
   * @param initialConcurrency C before the first window closes, within the bounds
   * @param windowReads reads per decision window, {@code >= 10}
   * @param raiseFailureRatio failure ratio in [0, 1] at or above which C is raised
   * @param raiseVariation latency variation (p90 / p50 of the window's reply latencies), a finite
   *     ratio {@code >= 1}, at or above which C is raised
   * @param lowerFailureRatio failure ratio in [0, 1] below which (with a low variation) C is
   *     lowered; not above {@code raiseFailureRatio}
   * @param lowerVariation latency variation below which (with a low failure ratio) C is lowered;
   *     not above {@code raiseVariation}
   */
  record Adaptive(
      int minConcurrency,
      int maxConcurrency,
      int initialConcurrency,
      int windowReads,
      double raiseFailureRatio,
      double raiseVariation,
      double lowerFailureRatio,
      double lowerVariation)
      implements ReadPolicy {
    public Adaptive {
      if (minConcurrency < 1 || maxConcurrency < minConcurrency) {
        throw new IllegalArgumentException(
            "bounds must satisfy 1 <= min <= max, were " + minConcurrency + ".." + maxConcurrency);
      }
      if (initialConcurrency < minConcurrency || initialConcurrency > maxConcurrency) {
        throw new IllegalArgumentException(
            "initialConcurrency must be within the bounds "
                + minConcurrency
                + ".."
                + maxConcurrency
                + ", was "
                + initialConcurrency);
      }
      if (windowReads < 10) {
        throw new IllegalArgumentException("windowReads must be >= 10, was " + windowReads);
      }
      AdaptiveBuilder.ratio(raiseFailureRatio, "raise failureRatio");
      AdaptiveBuilder.variation(raiseVariation, "raise variation");
      AdaptiveBuilder.ratio(lowerFailureRatio, "lower failureRatio");
      AdaptiveBuilder.variation(lowerVariation, "lower variation");
      if (lowerFailureRatio > raiseFailureRatio || lowerVariation > raiseVariation) {
        throw new IllegalArgumentException(
            "lowering thresholds (lowerFailureRatio, lowerVariation) must not exceed raising"
                + " thresholds (raiseFailureRatio, raiseVariation)");
      }
    }

    @Override
    public String toString() {
      return "adaptive(C=" + minConcurrency + ".." + maxConcurrency + ")";
    }
  }

  /**
   * Hedged reads: to the best-ranked duplicate, then to the next one after the {@code percentile}
   * of recent read latency, but never sooner than {@code minDelay}.
   *
   * @param percentile in (0, 1), e.g. 0.95
   * @param minDelay the least time a hedge waits, not negative
   */
  record Hedged(double percentile, Duration minDelay) implements ReadPolicy {
    /** The least time a hedge waits by default: 100 microseconds. */
    public static final Duration DEFAULT_MIN_DELAY = Duration.ofNanos(100_000);

    public Hedged {
      if (!(percentile > 0 && percentile < 1)) {
        throw new IllegalArgumentException("percentile must be in (0, 1), was " + percentile);
      }
      Objects.requireNonNull(minDelay, "minDelay must not be null");
      if (minDelay.isNegative()) {
        throw new IllegalArgumentException("minDelay must not be negative, was " + minDelay);
      }
    }

    @Override
    public String toString() {
      return "hedged(p" + Math.round(percentile * 100) + ")";
    }
  }

  /**
   * Every read to the C best-ranked duplicates at once, where C is the read fan-out the deployment
   * advises: the repeater's load controller (off by default; repeater settings {@code
   * controller.*}) decides it from the model's prediction and publishes it in the membership record
   * ({@code <base>/members}), which the client watches in every duplicate. The client follows a new
   * fan-out the moment it reads a newer record; while the newest record it follows advises none (or
   * before it has read any), C is {@code concurrencyWithoutAdvice}. C does not move by itself
   * between records, and is always capped at the active duplicates (and at least 1). {@link Fixed},
   * {@link Adaptive} and {@link Hedged} ignore the advice: with them the application chose its C.
   *
   * @param concurrencyWithoutAdvice C while no fan-out is advised, {@code >= 1} (capped at the
   *     number of duplicates)
   */
  record Advised(int concurrencyWithoutAdvice) implements ReadPolicy {
    public Advised {
      if (concurrencyWithoutAdvice < 1) {
        throw new IllegalArgumentException(
            "concurrencyWithoutAdvice must be >= 1, was " + concurrencyWithoutAdvice);
      }
    }

    @Override
    public String toString() {
      return "advised(C without advice="
          + (concurrencyWithoutAdvice == Integer.MAX_VALUE ? "all" : concurrencyWithoutAdvice)
          + ")";
    }
  }

  /** Tunes the adaptive policy; every setter validates its argument. */
  final class AdaptiveBuilder {
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
    public Adaptive build() {
      if (lowerFailureRatio > raiseFailureRatio || lowerVariation > raiseVariation) {
        throw new IllegalStateException("lowering thresholds must not exceed raising thresholds");
      }
      int initial = Math.max(minConcurrency, Math.min(maxConcurrency, initialConcurrency));
      return new Adaptive(
          minConcurrency,
          maxConcurrency,
          initial,
          windowReads,
          raiseFailureRatio,
          raiseVariation,
          lowerFailureRatio,
          lowerVariation);
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
