package io.zoolander.model;

import static io.zoolander.model.internal.Preconditions.checkNotNull;
import static io.zoolander.model.internal.Preconditions.checkPairedSamples;
import static io.zoolander.model.internal.Preconditions.checkProbability;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Partially dependent duplicates, described by how many of them are late together. Where {@link
 * CommonShock} has one number (a shock makes every duplicate late at once), this model keeps the
 * whole distribution of {@code K}, the number of duplicates late on the same access ({@link
 * LateCount}), so it also expresses a slowdown that hits some duplicates and not others, as
 * scheduling delays on a shared host do.
 *
 * <p>Duplicates are taken as exchangeable: every set of {@code N} duplicates behaves alike. From
 * paired samples (one row per access, one column per measured duplicate, {@code M} columns) and a
 * bound, the chance that all of {@code N} given duplicates are late is {@code E[C(K, N) / C(M, N)]}
 * for {@code N <= M}. A prediction keeps the model's own marginals (each duplicate's late
 * probability {@code m_n = 1 - onTime_n}) and takes only the dependence from the samples, as a
 * chain of conditional chances: with the duplicates ordered from least to most often late,
 *
 * <pre>P(all late) = m_1 * prod_{i=1}^{N-1} (m_{i+1} (1 - r_i) + i r_i) / (1 + (i - 1) r_i)</pre>
 *
 * where the factor is the beta-binomial's chance that one more duplicate is late given {@code i}
 * are, and {@code r_i} the step correlation. With every {@code r_i = 0} this is exactly the
 * thesis's independence formula; with every {@code r_i = 1} it is {@code min m_n}, a pure common
 * shock (all late or none). {@link #withCorrelation(double)} fixes every step at one intra-class
 * correlation {@code rho} (a beta-binomial). Estimated from samples:
 *
 * <ul>
 *   <li>{@link Estimator#EMPIRICAL} (default): for {@code i < M}, {@code r_i} reproduces the
 *       samples' own step {@code allLate(i + 1) / allLate(i)}, so with the samples' marginal a
 *       prediction for {@code N <= M} is exactly {@code E[C(K, N) / C(M, N)]}; beyond {@code M},
 *       every further step keeps the last measured one, {@code r_{M-1}} (at least 0).
 *   <li>{@link Estimator#BETA_BINOMIAL}: every step is the maximum-likelihood beta-binomial's
 *       {@code rho}. Smoother and two numbers only, but a two-parameter family cannot hold both
 *       many lone late duplicates and a few accesses on which all are late, which is what a shared
 *       host gives.
 * </ul>
 *
 * <p>Because lateness depends on the bound, the counts are taken at the duplicates' mean
 * service-time bound ({@code tau - mu_net - mu_queue}) for every prediction: binary searches over
 * pre-sorted order statistics, so {@code O(M log samples + M^2)} per prediction (plus the
 * likelihood fit for {@link Estimator#BETA_BINOMIAL}).
 *
 * <pre>{@code
 * SlaModel correlated = ThesisModel.builder().dependence(ExchangeableDependence.estimate(pairedMs)).build();
 * double rho = ExchangeableDependence.estimate(pairedMs).correlationAt(tauMs);
 * }</pre>
 *
 * <p>Immutable and thread-safe.
 */
public final class ExchangeableDependence implements AnomalyDependence {

  /** How the step correlations are taken from the samples. */
  public enum Estimator {
    /**
     * The samples' own steps up to {@code M} duplicates, the last one carried beyond. The default.
     */
    EMPIRICAL,
    /** The maximum-likelihood beta-binomial's intra-class correlation at every step. */
    BETA_BINOMIAL
  }

  private final double fixedCorrelation; // NaN when estimated from samples
  private final Estimator estimator;
  private final double[][] sortedOrderStatistics; // [j]: every access's j-th fastest reply, sorted

  private ExchangeableDependence(
      double fixedCorrelation, Estimator estimator, double[][] sortedOrderStatistics) {
    this.fixedCorrelation = fixedCorrelation;
    this.estimator = estimator;
    this.sortedOrderStatistics = sortedOrderStatistics;
  }

  /**
   * A beta-binomial with a known intra-class correlation {@code rho}, whatever the bound: 0 is the
   * thesis's independence, 1 a pure common shock.
   */
  public static ExchangeableDependence withCorrelation(double rho) {
    checkProbability(rho, "rho");
    return new ExchangeableDependence(rho, Estimator.BETA_BINOMIAL, null);
  }

  /**
   * Estimated from paired samples with the {@link Estimator#EMPIRICAL} estimator; see {@link
   * Builder}.
   */
  public static ExchangeableDependence estimate(double[][] pairedServiceMs) {
    return builder().pairedServiceMs(pairedServiceMs).build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The estimator; {@link Estimator#BETA_BINOMIAL} for {@link #withCorrelation(double)}. */
  public Estimator estimator() {
    return estimator;
  }

  /** {@code M}, the duplicates measured per access; 0 for {@link #withCorrelation(double)}. */
  public int measuredDuplicates() {
    return sortedOrderStatistics == null ? 0 : sortedOrderStatistics.length;
  }

  /**
   * How many duplicates exceeded {@code boundMs} together, over the paired samples.
   *
   * @throws IllegalStateException if this dependence was not estimated from samples
   */
  public LateCount lateCountAt(double boundMs) {
    if (sortedOrderStatistics == null) {
      throw new IllegalStateException(
          "no paired samples: this dependence has a fixed correlation " + fixedCorrelation);
    }
    int m = sortedOrderStatistics.length;
    int accesses = sortedOrderStatistics[0].length;
    // K >= k on an access exactly when its (M - k)-th fastest reply (0-based) exceeds the bound.
    long[] counts = new long[m + 1];
    long atLeastPrevious = accesses;
    for (int k = 1; k <= m; k++) {
      long atLeast = countAbove(sortedOrderStatistics[m - k], boundMs);
      counts[k - 1] = atLeastPrevious - atLeast;
      atLeastPrevious = atLeast;
    }
    counts[m] = atLeastPrevious;
    return LateCount.ofCounts(counts);
  }

  /**
   * The intra-class correlation of the duplicates' lateness at {@code boundMs}: the fixed one, or
   * the maximum-likelihood beta-binomial's (see {@link LateCount#betaBinomial()}). The one number
   * that says how dependent the duplicates are at that bound.
   */
  public double correlationAt(double boundMs) {
    return sortedOrderStatistics == null
        ? fixedCorrelation
        : lateCountAt(boundMs).betaBinomial().correlation();
  }

  @Override
  public double firstReplyOnTime(double[] onTime, double[] serviceBoundsMs) {
    int n = onTime.length;
    if (n == 0) {
      return 0;
    }
    double[] late = new double[n];
    double meanBound = 0;
    for (int i = 0; i < n; i++) {
      late[i] = Math.max(0, Math.min(1, 1 - onTime[i]));
      meanBound += serviceBoundsMs[i] / n;
    }
    // Least often late first: when every step correlation is 1, all are late only when that one is.
    Arrays.sort(late);
    double[] steps = steps(meanBound, n);
    double allLate = late[0];
    for (int i = 1; i < n; i++) {
      allLate *= lateGiven(late[i], steps[i], i);
    }
    return Math.max(0, Math.min(1, 1 - allLate));
  }

  /** Step correlations {@code r_1..r_{n-1}} (index 0 unused) at a bound. */
  double[] steps(double boundMs, int n) {
    return sortedOrderStatistics == null ? fixedSteps(n) : steps(lateCountAt(boundMs), n);
  }

  /**
   * As {@link #steps(double, int)}, from a Poisson-bootstrap replicate of the paired samples' late
   * counts at the bound ({@link LateCount#replicate}): the spread of the dependence due to the
   * number of paired samples. The fixed steps when this dependence does not come from samples.
   */
  double[] replicateSteps(double boundMs, int n, SplittableRandom rng) {
    return sortedOrderStatistics == null
        ? fixedSteps(n)
        : steps(lateCountAt(boundMs).replicate(rng), n);
  }

  private double[] fixedSteps(int n) {
    double[] steps = new double[Math.max(n, 1)];
    Arrays.fill(steps, fixedCorrelation);
    return steps;
  }

  private double[] steps(LateCount count, int n) {
    double[] steps = new double[Math.max(n, 1)];
    if (estimator == Estimator.BETA_BINOMIAL) {
      Arrays.fill(steps, count.betaBinomial().correlation());
      return steps;
    }
    double[] measured = count.stepCorrelations();
    int m = measured.length;
    for (int i = 1; i < n; i++) {
      steps[i] = i < m ? measured[i] : Math.max(0, measured[m - 1]);
    }
    return steps;
  }

  /**
   * The beta-binomial's chance that one more duplicate, late with probability {@code m} on its own,
   * is late given {@code i} others are, at step correlation {@code r}: {@code (a + i) / (a + b + i)
   * = (m (1 - r) + i r) / (1 + (i - 1) r)}, clamped to [0, 1] (a negative measured step can push it
   * out).
   */
  static double lateGiven(double m, double r, int i) {
    if (i == 0) {
      return m;
    }
    double p = (m * (1 - r) + i * r) / (1 + (i - 1) * r);
    return Math.max(0, Math.min(1, p));
  }

  private static long countAbove(double[] sorted, double bound) {
    // First index whose value exceeds the bound.
    int lo = 0;
    int hi = sorted.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (sorted[mid] <= bound) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return (long) sorted.length - lo;
  }

  @Override
  public String toString() {
    return sortedOrderStatistics == null
        ? "ExchangeableDependence[rho=" + fixedCorrelation + "]"
        : "ExchangeableDependence["
            + estimator
            + ", estimated from "
            + sortedOrderStatistics[0].length
            + " paired samples x "
            + sortedOrderStatistics.length
            + "]";
  }

  /** Builds an {@link ExchangeableDependence} estimated from paired samples. */
  public static final class Builder {
    private double[][] pairedServiceMs;
    private Estimator estimator = Estimator.EMPIRICAL;

    private Builder() {}

    /**
     * The paired samples (required): {@code pairedServiceMs[access][duplicate]}, the same access
     * timed on each of {@code M >= 2} duplicates, every latency finite and {@code >= 0}. Copied at
     * {@link #build()}.
     */
    public Builder pairedServiceMs(double[][] pairedServiceMs) {
      this.pairedServiceMs = checkNotNull(pairedServiceMs, "pairedServiceMs");
      return this;
    }

    /**
     * How the step correlations are taken from the samples; {@link Estimator#EMPIRICAL} by default.
     */
    public Builder estimator(Estimator estimator) {
      this.estimator = checkNotNull(estimator, "estimator");
      return this;
    }

    /**
     * @throws IllegalStateException if no paired samples were given
     * @throws IllegalArgumentException if there are no rows, fewer than two columns, ragged rows,
     *     or a sample that is negative, NaN or infinite
     */
    public ExchangeableDependence build() {
      if (pairedServiceMs == null) {
        throw new IllegalStateException("pairedServiceMs is required");
      }
      int columns = checkPairedSamples(pairedServiceMs, "pairedServiceMs");
      int rows = pairedServiceMs.length;
      double[][] orderStatistics = new double[columns][rows];
      for (int r = 0; r < rows; r++) {
        double[] sortedRow = pairedServiceMs[r].clone();
        Arrays.sort(sortedRow);
        for (int j = 0; j < columns; j++) {
          orderStatistics[j][r] = sortedRow[j];
        }
      }
      for (double[] column : orderStatistics) {
        Arrays.sort(column);
      }
      return new ExchangeableDependence(Double.NaN, estimator, orderStatistics);
    }
  }
}
