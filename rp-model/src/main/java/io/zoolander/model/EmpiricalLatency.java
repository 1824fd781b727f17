package io.zoolander.model;

import static io.zoolander.model.internal.Preconditions.checkNotNull;
import static io.zoolander.model.internal.Preconditions.checkPositive;
import static io.zoolander.model.internal.Preconditions.checkProbability;
import static io.zoolander.model.internal.Preconditions.checkSamples;

import java.util.Arrays;
import org.HdrHistogram.AbstractHistogram;
import org.HdrHistogram.HistogramIterationValue;
import org.apache.commons.math3.random.RandomGenerator;

/**
 * An empirical latency distribution: the step CDF of observed samples (or of an HdrHistogram's
 * recorded counts).
 *
 * <p>Stored as sorted distinct values with cumulative counts, so {@link #cdf} and {@link #quantile}
 * are binary searches ({@code O(log n)}) and 100k samples predict in microseconds.
 */
public final class EmpiricalLatency implements LatencyDistribution {
  private final double[] values; // sorted, distinct
  private final long[] cumulative; // cumulative[i] = number of samples <= values[i]
  private final long total;
  private final double mean;
  private final double variance;

  /**
   * A guide table for {@link #sample}: {@code guide[b]} is the first index whose cumulative count
   * exceeds {@code floor(b * total / guide.length)}, so a draw starts its search there and scans a
   * value or two instead of a binary search over every value (the same draw, faster).
   */
  private final int[] guide;

  /** Sample counts up to this use the guide table ({@code rank * guide.length} fits a long). */
  private static final long GUIDED_TOTAL = 1L << 40;

  private static final int MAX_GUIDE = 1 << 16;

  private EmpiricalLatency(double[] values, long[] cumulative, double mean, double variance) {
    this.values = values;
    this.cumulative = cumulative;
    this.total = cumulative[cumulative.length - 1];
    this.mean = mean;
    this.variance = variance;
    this.guide = total <= GUIDED_TOTAL ? guide(cumulative, total) : new int[0];
  }

  private static int[] guide(long[] cumulative, long total) {
    int size = Math.min(cumulative.length, MAX_GUIDE);
    int[] out = new int[size];
    int i = 0;
    for (int b = 0; b < size; b++) {
      long threshold = b * total / size;
      while (cumulative[i] <= threshold) {
        i++;
      }
      out[b] = i;
    }
    return out;
  }

  /**
   * From raw samples in milliseconds.
   *
   * @throws IllegalArgumentException if {@code samplesMs} is empty or holds a negative, NaN or
   *     infinite value
   */
  public static EmpiricalLatency of(double... samplesMs) {
    checkSamples(samplesMs, "samplesMs");
    double[] sorted = samplesMs.clone();
    Arrays.sort(sorted);
    double[] values = new double[sorted.length];
    long[] cumulative = new long[sorted.length];
    int distinct = 0;
    for (int i = 0; i < sorted.length; i++) {
      if (distinct > 0 && values[distinct - 1] == sorted[i]) {
        cumulative[distinct - 1] = i + 1L;
      } else {
        values[distinct] = sorted[i];
        cumulative[distinct] = i + 1L;
        distinct++;
      }
    }
    double sum = 0;
    for (double s : sorted) {
      sum += s;
    }
    double mean = sum / sorted.length;
    double squares = 0;
    for (double s : sorted) {
      squares += (s - mean) * (s - mean);
    }
    return new EmpiricalLatency(
        Arrays.copyOf(values, distinct),
        Arrays.copyOf(cumulative, distinct),
        mean,
        squares / sorted.length);
  }

  /**
   * From an HdrHistogram whose values are recorded in {@code unitsPerMs} units per millisecond
   * (1000 for microseconds, 1e6 for nanoseconds). Each bucket is represented by its highest
   * equivalent value, the conservative choice for an SLA.
   *
   * @throws IllegalArgumentException if the histogram is empty or {@code unitsPerMs <= 0}
   */
  public static EmpiricalLatency of(AbstractHistogram histogram, double unitsPerMs) {
    checkNotNull(histogram, "histogram");
    checkPositive(unitsPerMs, "unitsPerMs");
    if (histogram.getTotalCount() == 0) {
      throw new IllegalArgumentException("histogram must not be empty");
    }
    int buckets = 0;
    for (HistogramIterationValue ignored : histogram.recordedValues()) {
      buckets++;
    }
    double[] values = new double[buckets];
    long[] cumulative = new long[buckets];
    int i = 0;
    long running = 0;
    double sum = 0;
    double sumSquares = 0;
    for (HistogramIterationValue v : histogram.recordedValues()) {
      double ms = v.getValueIteratedTo() / unitsPerMs;
      long count = v.getCountAtValueIteratedTo();
      running += count;
      values[i] = ms;
      cumulative[i] = running;
      sum += ms * count;
      sumSquares += ms * ms * count;
      i++;
    }
    double mean = sum / running;
    double variance = Math.max(0, sumSquares / running - mean * mean);
    return new EmpiricalLatency(values, cumulative, mean, variance);
  }

  /** Every sample, sorted ascending (for the engine); a fresh array. */
  double[] sortedSamples() {
    if (total > EngineLaw.MAX_EXPANDED_SAMPLES) {
      throw new IllegalStateException("too many samples to expand: " + total);
    }
    return EngineLaw.expand(values, cumulative);
  }

  /** Number of samples the distribution was built from. */
  public long sampleCount() {
    return total;
  }

  /** Smallest observed latency. */
  public double minMs() {
    return values[0];
  }

  /** Largest observed latency. */
  public double maxMs() {
    return values[values.length - 1];
  }

  @Override
  public double cdf(double xMs) {
    int idx = Arrays.binarySearch(values, xMs);
    if (idx >= 0) {
      return (double) cumulative[idx] / total;
    }
    int below = -idx - 2; // index of the largest value < x
    return below < 0 ? 0 : (double) cumulative[below] / total;
  }

  @Override
  public double quantile(double p) {
    checkProbability(p, "p");
    // First index whose cdf, computed exactly as cdf() computes it, reaches p. A rank of ceil(p *
    // total) is not the
    // same thing: p * total can round above an integer (7.0 / 25 * 25 == 7.000000000000001), so
    // quantile(cdf(x))
    // would return the sample after x.
    int lo = 0;
    int hi = values.length - 1; // cumulative[last] / total == 1 >= p, so the answer is in [lo, hi]
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if ((double) cumulative[mid] / total >= p) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    return values[lo];
  }

  @Override
  public double meanMs() {
    return mean;
  }

  @Override
  public double varianceMs2() {
    return variance;
  }

  @Override
  public double sample(RandomGenerator rng) {
    // The first value whose cumulative count reaches rank 1 + floor(u * total).
    long below = (long) (rng.nextDouble() * total);
    if (guide.length > 0) {
      int i = guide[(int) (below * guide.length / total)];
      while (cumulative[i] <= below) {
        i++;
      }
      return values[i];
    }
    int idx = Arrays.binarySearch(cumulative, below + 1);
    return values[idx >= 0 ? idx : -idx - 1];
  }

  @Override
  public String toString() {
    return String.format("Empirical[n=%d, mean=%.4fms, p99=%.4fms]", total, mean, quantile(0.99));
  }
}
