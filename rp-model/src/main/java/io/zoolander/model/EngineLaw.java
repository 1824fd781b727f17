package io.zoolander.model;

import java.util.Arrays;
import org.apache.commons.math3.random.RandomGenerator;

/**
 * A service-time law as the engine uses it: its CDF, its truncated mean {@code I(x) = E[min(S, x)]
 * = int_0^x (1 - B(y)) dy} (which gives the residual service time of Pollaczek-Khinchine and the
 * cell averages of the CDF) and a fast sampler. Exact for samples (sorted array and prefix sums)
 * and for a point mass; numerically integrated (Simpson) for other parametric laws.
 */
abstract class EngineLaw {
  /** Larger sample sets (histograms) are represented by this many evenly spaced quantiles. */
  static final int MAX_EXPANDED_SAMPLES = 1 << 22;

  /** {@code P(S <= x)}. */
  abstract double cdf(double x);

  /** {@code E[min(S, x)]} for {@code x >= 0}. */
  abstract double truncatedMean(double x);

  abstract double mean();

  /** One draw from a uniform in {@code [0, 1)} (empirical) or from the generator (parametric). */
  abstract double sample(double u, RandomGenerator rng);

  /** Whether {@link #sample} uses only {@code u}. */
  abstract boolean samplesByUniform();

  /** The number of observations behind the law, or 0 for a parametric law (no sampling error). */
  long sampleCount() {
    return 0;
  }

  /** {@code I(k h)} for {@code k = 0..g}. */
  double[] truncatedMeanOnGrid(double h, int g) {
    double[] out = new double[g + 1];
    for (int k = 0; k <= g; k++) {
      out[k] = truncatedMean(k * h);
    }
    return out;
  }

  static EngineLaw of(LatencyDistribution d) {
    if (d instanceof EmpiricalLatency e) {
      if (e.sampleCount() <= MAX_EXPANDED_SAMPLES) {
        return new Empirical(e.sortedSamples(), e.sampleCount());
      }
      // A histogram of billions of values: its quantiles at evenly spaced ranks, same sample count.
      double[] thinned = new double[MAX_EXPANDED_SAMPLES];
      for (int i = 0; i < thinned.length; i++) {
        thinned[i] = e.quantile((i + 0.5) / thinned.length);
      }
      return new Empirical(thinned, e.sampleCount());
    }
    if (d.varianceMs2() == 0) {
      return new Point(d.meanMs());
    }
    return new Parametric(d);
  }

  /** Samples: the sorted array and its prefix sums. */
  static final class Empirical extends EngineLaw {
    final double[] sorted;
    private final double[] prefix; // prefix[i] = sum of the i smallest
    private final double mean;
    private final long count;

    Empirical(double[] sorted, long count) {
      this.sorted = sorted;
      this.count = count;
      this.prefix = new double[sorted.length + 1];
      for (int i = 0; i < sorted.length; i++) {
        prefix[i + 1] = prefix[i] + sorted[i];
      }
      this.mean = prefix[sorted.length] / sorted.length;
    }

    /** Number of samples {@code <= x}. */
    int countAtOrBelow(double x) {
      int lo = 0;
      int hi = sorted.length;
      while (lo < hi) {
        int mid = (lo + hi) >>> 1;
        if (sorted[mid] <= x) {
          lo = mid + 1;
        } else {
          hi = mid;
        }
      }
      return lo;
    }

    @Override
    double cdf(double x) {
      return x < 0 ? 0 : (double) countAtOrBelow(x) / sorted.length;
    }

    @Override
    double truncatedMean(double x) {
      if (x <= 0) {
        return 0;
      }
      int k = countAtOrBelow(x);
      return (prefix[k] + x * (sorted.length - k)) / sorted.length;
    }

    @Override
    double mean() {
      return mean;
    }

    @Override
    double sample(double u, RandomGenerator rng) {
      return sorted[(int) (u * sorted.length)];
    }

    @Override
    boolean samplesByUniform() {
      return true;
    }

    @Override
    long sampleCount() {
      return count;
    }
  }

  /** A constant service time (M/D/1). */
  static final class Point extends EngineLaw {
    private final double value;

    Point(double value) {
      this.value = value;
    }

    @Override
    double cdf(double x) {
      return x >= value ? 1 : 0;
    }

    @Override
    double truncatedMean(double x) {
      return x <= 0 ? 0 : Math.min(x, value);
    }

    @Override
    double mean() {
      return value;
    }

    @Override
    double sample(double u, RandomGenerator rng) {
      return value;
    }

    @Override
    boolean samplesByUniform() {
      return true;
    }
  }

  /** A parametric law: Simpson's rule on its CDF. */
  static final class Parametric extends EngineLaw {
    private static final int SIMPSON_STEPS = 8;
    private final LatencyDistribution d;

    Parametric(LatencyDistribution d) {
      this.d = d;
    }

    @Override
    double cdf(double x) {
      return x < 0 ? 0 : d.cdf(x);
    }

    @Override
    double truncatedMean(double x) {
      if (x <= 0) {
        return 0;
      }
      int steps = 256;
      return simpson(0, x, steps);
    }

    private double simpson(double a, double b, int steps) {
      double h = (b - a) / steps;
      double sum = (1 - cdf(a)) + (1 - cdf(b));
      for (int i = 1; i < steps; i++) {
        sum += (i % 2 == 1 ? 4 : 2) * (1 - cdf(a + i * h));
      }
      return sum * h / 3;
    }

    @Override
    double[] truncatedMeanOnGrid(double h, int g) {
      double[] out = new double[g + 1];
      double[] survival = new double[SIMPSON_STEPS + 1];
      double previousEnd = 1 - cdf(0);
      for (int k = 1; k <= g; k++) {
        double a = (k - 1) * h;
        double step = h / SIMPSON_STEPS;
        survival[0] = previousEnd;
        for (int i = 1; i <= SIMPSON_STEPS; i++) {
          survival[i] = 1 - cdf(a + i * step);
        }
        double sum = survival[0] + survival[SIMPSON_STEPS];
        for (int i = 1; i < SIMPSON_STEPS; i++) {
          sum += (i % 2 == 1 ? 4 : 2) * survival[i];
        }
        out[k] = out[k - 1] + sum * step / 3;
        previousEnd = survival[SIMPSON_STEPS];
      }
      return out;
    }

    @Override
    double mean() {
      return d.meanMs();
    }

    @Override
    double sample(double u, RandomGenerator rng) {
      return d.sample(rng);
    }

    @Override
    boolean samplesByUniform() {
      return false;
    }
  }

  /** A copy of the values sorted ascending, for {@link EmpiricalLatency}. */
  static double[] expand(double[] values, long[] cumulative) {
    double[] out = new double[(int) cumulative[cumulative.length - 1]];
    int from = 0;
    for (int i = 0; i < values.length; i++) {
      int to = (int) cumulative[i];
      Arrays.fill(out, from, to, values[i]);
      from = to;
    }
    return out;
  }
}
