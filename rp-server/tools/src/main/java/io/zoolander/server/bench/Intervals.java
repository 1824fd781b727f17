package io.zoolander.server.bench;

import java.util.function.DoubleUnaryOperator;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;

/**
 * Confidence intervals for what a bench run measured, so that a verdict against a target can say
 * when the run had too few samples to give one. Pure functions; nothing is timed.
 *
 * <ul>
 *   <li>A percentile: between two order statistics of the samples, chosen from the binomial
 *       distribution of how many samples fall below the true percentile (distribution-free: it
 *       assumes only independent samples). With few samples a high percentile has no upper bound:
 *       at 95%, a p99 needs at least 368 samples for one.
 *   <li>A ratio of two miss rates (misses {@code k1} of {@code n1} against {@code k2} of {@code
 *       n2}): exact, conditional on {@code k1 + k2} (the misses as Poisson counts, given their sum
 *       {@code k1} is binomial), with the Clopper-Pearson interval of the binomial's parameter.
 * </ul>
 */
final class Intervals {

  /** The confidence of every interval the bench reports. */
  static final double CONFIDENCE = 0.95;

  private Intervals() {}

  /**
   * A closed interval; {@code low} may be negative infinity and {@code high} positive infinity when
   * the samples do not bound that side.
   */
  record Interval(double low, double high) {
    Interval {
      if (Double.isNaN(low) || Double.isNaN(high) || low > high) {
        throw new IllegalArgumentException("not an interval: [" + low + ", " + high + "]");
      }
    }

    /** This interval scaled by {@code factor >= 0}, then shifted by {@code plus}. */
    Interval times(double factor, double plus) {
      return new Interval(low * factor + plus, high * factor + plus);
    }
  }

  /**
   * The ranks (1-based, in ascending order) of the order statistics that bound the {@code q}
   * quantile of {@code n} independent samples with at least {@code confidence}: {@code [0]} is 0
   * when no rank bounds it from below, {@code [1]} is {@code n + 1} when none bounds it from above.
   *
   * @throws IllegalArgumentException if {@code n < 0}, {@code q} is not in (0, 1) or {@code
   *     confidence} is not in (0, 1)
   */
  static long[] quantileRanks(long n, double q, double confidence) {
    if (n < 0) {
      throw new IllegalArgumentException("n must be >= 0, was " + n);
    }
    if (!(q > 0 && q < 1)) {
      throw new IllegalArgumentException("q must be in (0, 1), was " + q);
    }
    checkConfidence(confidence);
    if (n > Integer.MAX_VALUE - 1) {
      throw new IllegalArgumentException("n must be < " + Integer.MAX_VALUE + ", was " + n);
    }
    double tail = (1 - confidence) / 2;
    double[] pmf = binomialPmf((int) n, q);
    // X(l) <= the quantile unless fewer than l samples are below it: P(B <= l - 1) <= tail.
    long low = 0;
    double below = 0; // P(B <= k - 1)
    for (int k = 1; k <= n; k++) {
      below += pmf[k - 1];
      if (below > tail) {
        break;
      }
      low = k;
    }
    // X(u) >= the quantile unless u or more samples are below it: P(B >= u) <= tail.
    long high = n + 1;
    double atLeast = 0; // P(B >= k)
    for (int k = (int) n; k >= 1; k--) {
      atLeast += pmf[k];
      if (atLeast > tail) {
        break;
      }
      high = k;
    }
    return new long[] {low, high};
  }

  /**
   * The interval of the {@code q} quantile of the values recorded in {@code histogram}, in the
   * histogram's units divided by {@code unitsPerResult} (1000 for microseconds to milliseconds):
   * the lowest value of the lower rank's bucket and the highest of the upper's, so the histogram's
   * rounding only widens it.
   *
   * @throws IllegalArgumentException if the histogram is empty, or as {@link #quantileRanks}
   */
  static Interval quantile(
      Histogram histogram, double q, double unitsPerResult, double confidence) {
    long n = histogram.getTotalCount();
    if (n == 0) {
      throw new IllegalArgumentException("no samples");
    }
    long[] ranks = quantileRanks(n, q, confidence);
    double low =
        ranks[0] == 0
            ? Double.NEGATIVE_INFINITY
            : histogram.lowestEquivalentValue(valueAtRank(histogram, ranks[0])) / unitsPerResult;
    double high =
        ranks[1] > n
            ? Double.POSITIVE_INFINITY
            : histogram.highestEquivalentValue(valueAtRank(histogram, ranks[1])) / unitsPerResult;
    return new Interval(low, high);
  }

  /** The {@code rank}-th smallest recorded value (1-based). */
  private static long valueAtRank(Histogram histogram, long rank) {
    long seen = 0;
    for (HistogramIterationValue v : histogram.recordedValues()) {
      seen += v.getCountAtValueIteratedTo();
      if (seen >= rank) {
        return v.getValueIteratedTo();
      }
    }
    throw new IllegalArgumentException("rank " + rank + " > " + histogram.getTotalCount());
  }

  /**
   * The interval of the ratio of two miss rates, {@code (k1 / n1) / (k2 / n2)}. Misses are taken as
   * rare (Poisson counts): given {@code k = k1 + k2}, {@code k1} is binomial with parameter {@code
   * p = n1 r / (n1 r + n2)} for the ratio {@code r}, so the Clopper-Pearson interval of {@code p}
   * gives {@code r = p / (1 - p) * n2 / n1}. No misses at all: {@code [0, infinity]}.
   *
   * @throws IllegalArgumentException if a count is negative, a sample size is not positive, a count
   *     exceeds its sample size, or {@code confidence} is not in (0, 1)
   */
  static Interval rateRatio(long k1, long n1, long k2, long n2, double confidence) {
    if (k1 < 0 || k2 < 0) {
      throw new IllegalArgumentException("miss counts must be >= 0, were " + k1 + " and " + k2);
    }
    if (n1 <= 0 || n2 <= 0) {
      throw new IllegalArgumentException("sample sizes must be > 0, were " + n1 + " and " + n2);
    }
    if (k1 > n1 || k2 > n2) {
      throw new IllegalArgumentException(
          "miss counts exceed their samples: " + k1 + " of " + n1 + ", " + k2 + " of " + n2);
    }
    checkConfidence(confidence);
    long k = k1 + k2;
    if (k == 0) {
      return new Interval(0, Double.POSITIVE_INFINITY);
    }
    if (k > Integer.MAX_VALUE - 1) {
      throw new IllegalArgumentException("too many misses: " + k);
    }
    double tail = (1 - confidence) / 2;
    int total = (int) k;
    int hits = (int) k1;
    // Lower: the p at which P(X >= k1) = tail (it grows with p); upper: P(X <= k1) = tail.
    double pLow = hits == 0 ? 0 : solve(p -> 1 - cdf(total, p, hits - 1), tail, true);
    double pHigh = hits == total ? 1 : solve(p -> cdf(total, p, hits), tail, false);
    return new Interval(odds(pLow, n1, n2), odds(pHigh, n1, n2));
  }

  private static double odds(double p, long n1, long n2) {
    return p >= 1 ? Double.POSITIVE_INFINITY : p / (1 - p) * n2 / n1;
  }

  /** The p in (0, 1) at which the monotone {@code f} equals {@code target}, by bisection. */
  private static double solve(DoubleUnaryOperator f, double target, boolean increasing) {
    double lo = 0;
    double hi = 1;
    for (int i = 0; i < 200 && hi - lo > 1e-15; i++) {
      double mid = (lo + hi) / 2;
      boolean below = f.applyAsDouble(mid) < target;
      if (below == increasing) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    return (lo + hi) / 2;
  }

  /** P(X <= k) for X binomial(n, p). */
  private static double cdf(int n, double p, int k) {
    if (k < 0) {
      return 0;
    }
    if (k >= n) {
      return 1;
    }
    double[] pmf = binomialPmf(n, p);
    double sum = 0;
    for (int i = 0; i <= k; i++) {
      sum += pmf[i];
    }
    return Math.min(1, sum);
  }

  /** P(X = k) for k = 0..n, X binomial(n, p), computed in logs so large n does not overflow. */
  private static double[] binomialPmf(int n, double p) {
    double[] pmf = new double[n + 1];
    if (p <= 0 || p >= 1) {
      pmf[p <= 0 ? 0 : n] = 1;
      return pmf;
    }
    double logP = Math.log(p);
    double logQ = Math.log1p(-p);
    double logChoose = 0; // log C(n, k)
    for (int k = 0; k <= n; k++) {
      pmf[k] = Math.exp(logChoose + k * logP + (n - k) * logQ);
      if (k < n) {
        logChoose += Math.log(n - k) - Math.log(k + 1);
      }
    }
    return pmf;
  }

  private static void checkConfidence(double confidence) {
    if (!(confidence > 0 && confidence < 1)) {
      throw new IllegalArgumentException("confidence must be in (0, 1), was " + confidence);
    }
  }
}
