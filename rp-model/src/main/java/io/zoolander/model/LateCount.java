package io.zoolander.model;

import static io.zoolander.model.internal.Preconditions.checkNotNull;
import static io.zoolander.model.internal.Preconditions.checkPositive;
import static io.zoolander.model.internal.Preconditions.checkProbability;

import io.zoolander.model.internal.Numeric;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * How many of {@code M} duplicates were late together: the distribution of {@code K}, the number of
 * duplicates whose reply to the same access exceeded a bound, counted over paired samples (one row
 * per access, one column per measured duplicate). {@link
 * ExchangeableDependence#lateCountAt(double)} counts it at a bound; {@link #ofCounts(long...)}
 * takes counts from elsewhere.
 *
 * <p>Under exchangeability (every set of {@code N} duplicates behaves alike) the chance that all of
 * {@code N} given duplicates are late is {@link #allLate(int) E[C(K, N) / C(M, N)]} for {@code N <=
 * M}: no assumption on the shape of the dependence, but nothing beyond {@code M}. {@link
 * #betaBinomial()} fits {@code K ~ BetaBinomial(M, a, b)}, two numbers that predict any {@code N}
 * and whose intra-class correlation {@code rho = 1 / (a + b + 1)} summarises the dependence in one:
 * 0 for independent duplicates, 1 when they are always late together.
 *
 * <p>Immutable.
 */
public final class LateCount {
  private final long[] counts;
  private final long accesses;
  private final double[] allLate; // [n] = E[C(K, n) / C(M, n)], n = 0..M

  private LateCount(long[] counts, long accesses) {
    this.counts = counts;
    this.accesses = accesses;
    int m = counts.length - 1;
    this.allLate = new double[m + 1];
    for (int n = 0; n <= m; n++) {
      double sum = 0;
      for (int k = n; k <= m; k++) {
        // C(k, n) / C(M, n) = prod_{i<n} (k - i) / (M - i)
        double share = 1;
        for (int i = 0; i < n; i++) {
          share *= (double) (k - i) / (m - i);
        }
        sum += counts[k] * share;
      }
      allLate[n] = sum / accesses;
    }
  }

  /**
   * From counts: {@code countsByLate[k]} accesses had exactly {@code k} late duplicates, {@code k =
   * 0..M}.
   *
   * @throws IllegalArgumentException if there are fewer than 3 entries (2 duplicates), a negative
   *     count, or no access
   */
  public static LateCount ofCounts(long... countsByLate) {
    checkNotNull(countsByLate, "countsByLate");
    if (countsByLate.length < 3) {
      throw new IllegalArgumentException(
          "countsByLate needs an entry for k = 0..M with M >= 2 duplicates, had "
              + countsByLate.length);
    }
    long total = 0;
    for (int k = 0; k < countsByLate.length; k++) {
      if (countsByLate[k] < 0) {
        throw new IllegalArgumentException(
            "countsByLate[" + k + "] must be >= 0, was " + countsByLate[k]);
      }
      total += countsByLate[k];
    }
    if (total == 0) {
      throw new IllegalArgumentException("countsByLate must count at least one access");
    }
    return new LateCount(countsByLate.clone(), total);
  }

  /**
   * A Poisson-bootstrap replicate of these counts: each access weighted by a Poisson(1) draw, so
   * the count of accesses with {@code k} late duplicates becomes a Poisson draw with that count as
   * its mean. These counts when the draws leave no access.
   */
  LateCount replicate(SplittableRandom rng) {
    long[] drawn = new long[counts.length];
    long total = 0;
    for (int k = 0; k < counts.length; k++) {
      drawn[k] = (long) Numeric.poisson(counts[k], rng);
      total += drawn[k];
    }
    return total == 0 ? this : new LateCount(drawn, total);
  }

  /** {@code M}, the number of duplicates measured per access. */
  public int duplicates() {
    return counts.length - 1;
  }

  /** The number of accesses counted. */
  public long accesses() {
    return accesses;
  }

  /** The number of accesses on which exactly {@code k} duplicates were late. */
  public long count(int k) {
    checkLate(k, "k");
    return counts[k];
  }

  /** {@code P(K = k)}, the fraction of accesses on which exactly {@code k} duplicates were late. */
  public double probability(int k) {
    return (double) count(k) / accesses;
  }

  /**
   * The mean fraction of duplicates late on an access, {@code E[K] / M}: one duplicate's late
   * probability.
   */
  public double meanLate() {
    return allLate(1);
  }

  /**
   * The chance that all of {@code n} given duplicates are late, {@code E[C(K, n) / C(M, n)]},
   * {@code 0 <= n <= M}: over every access, the fraction of the {@code C(M, n)} sets of {@code n}
   * duplicates that were all late.
   */
  public double allLate(int n) {
    checkLate(n, "n");
    return allLate[n];
  }

  /**
   * Per step {@code i = 1..M-1}, the correlation of one more duplicate's lateness with that of
   * {@code i} others: the {@code r} for which a beta-binomial's step from {@code i} late duplicates
   * to {@code i + 1} matches the counts, {@code (m (1 - r) + i r) / (1 + (i - 1) r) = allLate(i +
   * 1) / allLate(i)} with {@code m = meanLate()}. Index 0 is unused. Step 1 is the pairwise
   * correlation; in a beta-binomial every step is {@code rho}; a common shock raises the later
   * steps. 0 when the counts say nothing (no access, or every access, late); carried from the step
   * before when no access had {@code i} late duplicates.
   */
  double[] stepCorrelations() {
    int duplicates = duplicates();
    double[] steps = new double[duplicates];
    double m = meanLate();
    if (m <= 0 || m >= 1) {
      return steps;
    }
    double r = 0;
    for (int i = 1; i < duplicates; i++) {
      if (allLate[i] > 0) {
        double g = allLate[i + 1] / allLate[i];
        r = (g - m) / ((i - 1) * (1 - g) + (1 - m));
      }
      steps[i] = r;
    }
    return steps;
  }

  /**
   * The beta-binomial fitted to these counts: its mean is {@link #meanLate()}, its intra-class
   * correlation the maximum-likelihood one given that mean (1 exactly when every access had either
   * no or every duplicate late, 0 when no or every access was late, or the counts are less spread
   * than a binomial's).
   */
  public BetaBinomial betaBinomial() {
    double m = meanLate();
    int duplicates = duplicates();
    if (m <= 0 || m >= 1) {
      return new BetaBinomial(duplicates, m, 0);
    }
    if (counts[0] + counts[duplicates] == accesses) {
      return new BetaBinomial(duplicates, m, 1);
    }
    return new BetaBinomial(duplicates, m, maximumLikelihoodCorrelation(m));
  }

  /**
   * The likelihood is maximised over {@code logit(rho)}: a coarse grid finds the peak's bracket
   * (the likelihood is not guaranteed unimodal), golden-section search refines it. The binomial
   * ({@code rho = 0}) is the grid's first point, so under-dispersed counts fit 0.
   */
  private double maximumLikelihoodCorrelation(double m) {
    double lo = -16;
    double hi = 16;
    int grid = 129;
    double step = (hi - lo) / (grid - 1);
    double best = binomialLogLikelihood(m);
    int bestIndex = -1;
    for (int i = 0; i < grid; i++) {
      double ll = logLikelihood(m, logistic(lo + i * step));
      if (ll > best) {
        best = ll;
        bestIndex = i;
      }
    }
    if (bestIndex < 0) {
      return 0;
    }
    double a = lo + Math.max(0, bestIndex - 1) * step;
    double b = lo + Math.min(grid - 1, bestIndex + 1) * step;
    double invPhi = (Math.sqrt(5) - 1) / 2;
    double c = b - invPhi * (b - a);
    double d = a + invPhi * (b - a);
    double fc = logLikelihood(m, logistic(c));
    double fd = logLikelihood(m, logistic(d));
    for (int i = 0; i < 80; i++) {
      if (fc >= fd) {
        b = d;
        d = c;
        fd = fc;
        c = b - invPhi * (b - a);
        fc = logLikelihood(m, logistic(c));
      } else {
        a = c;
        c = d;
        fc = fd;
        d = a + invPhi * (b - a);
        fd = logLikelihood(m, logistic(d));
      }
    }
    return logistic(0.5 * (a + b));
  }

  private static double logistic(double x) {
    return 1 / (1 + Math.exp(-x));
  }

  private double binomialLogLikelihood(double m) {
    int duplicates = duplicates();
    double ll = 0;
    for (int k = 0; k <= duplicates; k++) {
      if (counts[k] > 0) {
        ll += counts[k] * (k * Math.log(m) + (duplicates - k) * Math.log1p(-m));
      }
    }
    return ll;
  }

  /**
   * The beta-binomial log-likelihood without the binomial coefficients (the same for every rho):
   * {@code log P(K = k) = sum_{i<k} log(a + i) + sum_{j<M-k} log(b + j) - sum_{l<M} log(a + b +
   * l)}.
   */
  private double logLikelihood(double m, double rho) {
    int duplicates = duplicates();
    double s = (1 - rho) / rho;
    double a = m * s;
    double b = (1 - m) * s;
    double[] lateTerms = new double[duplicates + 1];
    double[] onTimeTerms = new double[duplicates + 1];
    double total = 0;
    for (int i = 0; i < duplicates; i++) {
      lateTerms[i + 1] = lateTerms[i] + Math.log(a + i);
      onTimeTerms[i + 1] = onTimeTerms[i] + Math.log(b + i);
      total += Math.log(a + b + i);
    }
    double ll = -accesses * total;
    for (int k = 0; k <= duplicates; k++) {
      if (counts[k] > 0) {
        ll += counts[k] * (lateTerms[k] + onTimeTerms[duplicates - k]);
      }
    }
    return ll;
  }

  private void checkLate(int k, String name) {
    if (k < 0 || k > duplicates()) {
      throw new IllegalArgumentException(name + " must be in [0, " + duplicates() + "], was " + k);
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof LateCount other && Arrays.equals(counts, other.counts);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(counts);
  }

  @Override
  public String toString() {
    return "LateCount" + Arrays.toString(counts);
  }

  /**
   * {@code K ~ BetaBinomial(M, a, b)}: each access draws a late probability {@code p ~ Beta(a, b)}
   * shared by its duplicates, then each duplicate is late with probability {@code p}. Parameterised
   * by its mean {@code m = a / (a + b)} and intra-class correlation {@code rho = 1 / (a + b + 1)},
   * the correlation of any two duplicates' lateness.
   *
   * <p>The chance that all of {@code n} duplicates are late is {@code E[p^n] = B(a + n, b) / B(a,
   * b) = prod_{i<n} (a + i) / (a + b + i) = prod_{i<n} (m (1 - rho) + i rho) / (1 + (i - 1) rho)}:
   * with {@code rho = 0} it is {@code m^n} (independent duplicates), with {@code rho = 1} it is
   * {@code m} (a pure common shock: all late or none).
   *
   * @param duplicates {@code M}
   * @param meanLate {@code m}, one duplicate's late probability
   * @param correlation {@code rho}, in {@code [0, 1]}
   */
  public record BetaBinomial(int duplicates, double meanLate, double correlation) {
    public BetaBinomial {
      checkPositive(duplicates, "duplicates");
      checkProbability(meanLate, "meanLate");
      checkProbability(correlation, "correlation");
    }

    /** {@code a = m (1 - rho) / rho}; infinite when {@code rho = 0}. */
    public double alpha() {
      return meanLate * (1 - correlation) / correlation;
    }

    /** {@code b = (1 - m) (1 - rho) / rho}; infinite when {@code rho = 0}. */
    public double beta() {
      return (1 - meanLate) * (1 - correlation) / correlation;
    }

    /**
     * The chance that all of {@code n >= 0} duplicates are late, for any {@code n} (also beyond
     * {@code M}).
     */
    public double allLate(int n) {
      if (n < 0) {
        throw new IllegalArgumentException("n must be >= 0, was " + n);
      }
      double p = 1;
      for (int i = 0; i < n; i++) {
        p *= ExchangeableDependence.lateGiven(meanLate, correlation, i);
      }
      return p;
    }
  }
}
