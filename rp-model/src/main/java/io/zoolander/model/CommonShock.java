package io.zoolander.model;

import static io.zoolander.model.internal.Preconditions.checkPairedSamples;
import static io.zoolander.model.internal.Preconditions.checkProbability;

import java.util.Arrays;

/**
 * Correlated anomalies as a common shock: with probability {@code c} a shock (shared disk, CPU,
 * host) makes every duplicate late at once; otherwise each duplicate is late independently with its
 * residual probability. Marginals are kept: a duplicate late with probability {@code m_n} is late
 * with probability {@code (m_n - c) / (1 - c)} outside a shock, so
 *
 * <pre>P(all late) = c + (1 - c) * prod_n (m_n - c) / (1 - c)</pre>
 *
 * With {@code c = 0} this is exactly the thesis's independence formula.
 *
 * <p>{@code c} is estimated from <em>paired samples</em>: the same access timed on several
 * duplicates (one row per access, one column per duplicate). For every pair of columns, the
 * observed joint slow frequency {@code q} at a bound {@code t} and the marginals {@code p_a, p_b}
 * give {@code c} by solving {@code c + (p_a - c)(p_b - c)/(1 - c) = q}; the estimate is the average
 * over pairs. Because a slow event depends on the bound, {@code c} is evaluated at the duplicates'
 * service-time bound for each prediction. Look-ups are binary searches over pre-sorted columns and
 * pairwise minima, so a prediction costs {@code O(pairs * log samples)}.
 */
public final class CommonShock implements AnomalyDependence {
  private final double fixedProbability; // NaN when estimated from samples
  private final double[][] sortedColumns;
  private final double[][] sortedPairMinima;

  private CommonShock(
      double fixedProbability, double[][] sortedColumns, double[][] sortedPairMinima) {
    this.fixedProbability = fixedProbability;
    this.sortedColumns = sortedColumns;
    this.sortedPairMinima = sortedPairMinima;
  }

  /** A shock with a known probability {@code c}, whatever the bound. */
  public static CommonShock withProbability(double probability) {
    checkProbability(probability, "probability");
    return new CommonShock(probability, null, null);
  }

  /**
   * Estimates the common shock from paired samples: {@code pairedServiceMs[access][duplicate]}, at
   * least two duplicates (columns) and one access.
   *
   * @throws IllegalArgumentException if there are no rows, fewer than two columns, ragged rows, or
   *     a sample that is negative, NaN or infinite
   */
  public static CommonShock estimate(double[][] pairedServiceMs) {
    int columns = checkPairedSamples(pairedServiceMs, "pairedServiceMs");
    int rows = pairedServiceMs.length;
    double[][] sortedColumns = new double[columns][rows];
    for (int r = 0; r < rows; r++) {
      for (int c = 0; c < columns; c++) {
        sortedColumns[c][r] = pairedServiceMs[r][c];
      }
    }
    double[][] pairMinima = new double[columns * (columns - 1) / 2][];
    int pair = 0;
    for (int a = 0; a < columns; a++) {
      for (int b = a + 1; b < columns; b++) {
        double[] minima = new double[rows];
        for (int r = 0; r < rows; r++) {
          minima[r] = Math.min(sortedColumns[a][r], sortedColumns[b][r]);
        }
        Arrays.sort(minima);
        pairMinima[pair++] = minima;
      }
    }
    for (double[] column : sortedColumns) {
      Arrays.sort(column);
    }
    return new CommonShock(Double.NaN, sortedColumns, pairMinima);
  }

  /** The probability of a shock that makes every duplicate exceed {@code boundMs}. */
  public double probabilityAt(double boundMs) {
    if (!Double.isNaN(fixedProbability)) {
      return fixedProbability;
    }
    int columns = sortedColumns.length;
    double sum = 0;
    int pair = 0;
    for (int a = 0; a < columns; a++) {
      for (int b = a + 1; b < columns; b++) {
        double pa = fractionAbove(sortedColumns[a], boundMs);
        double pb = fractionAbove(sortedColumns[b], boundMs);
        double both = fractionAbove(sortedPairMinima[pair++], boundMs);
        sum += solveShock(pa, pb, both);
      }
    }
    return sum / pair;
  }

  @Override
  public double firstReplyOnTime(double[] onTime, double[] serviceBoundsMs) {
    double meanBound = 0;
    double minLate = 1;
    for (int i = 0; i < onTime.length; i++) {
      meanBound += serviceBoundsMs[i] / onTime.length;
      minLate = Math.min(minLate, 1 - onTime[i]);
    }
    // A shock cannot be likelier than the least likely marginal late event.
    double c = Math.min(probabilityAt(meanBound), minLate);
    if (c >= 1) {
      return 0;
    }
    double independentLate = 1;
    for (double p : onTime) {
      independentLate *= (1 - p - c) / (1 - c);
    }
    double allLate = c + (1 - c) * independentLate;
    return Math.max(0, Math.min(1, 1 - allLate));
  }

  private static double fractionAbove(double[] sorted, double bound) {
    int idx = Arrays.binarySearch(sorted, bound);
    int atOrBelow;
    if (idx >= 0) {
      while (idx + 1 < sorted.length && sorted[idx + 1] == bound) {
        idx++;
      }
      atOrBelow = idx + 1;
    } else {
      atOrBelow = -idx - 1;
    }
    return (double) (sorted.length - atOrBelow) / sorted.length;
  }

  /**
   * Solves {@code c + (pa - c)(pb - c)/(1 - c) = q} for c in [0, min(pa, pb)]; 0 for no positive
   * dependence.
   */
  static double solveShock(double pa, double pb, double q) {
    double hi = Math.min(pa, pb);
    if (hi <= 0 || q <= pa * pb) {
      return 0;
    }
    if (q >= hi || hi >= 1) {
      return hi;
    }
    double lo = 0;
    for (int i = 0; i < 60; i++) {
      double c = 0.5 * (lo + hi);
      double joint = c + (pa - c) * (pb - c) / (1 - c);
      if (joint < q) {
        lo = c;
      } else {
        hi = c;
      }
    }
    return 0.5 * (lo + hi);
  }

  @Override
  public String toString() {
    return Double.isNaN(fixedProbability)
        ? "CommonShock[estimated from "
            + sortedColumns[0].length
            + " paired samples x "
            + sortedColumns.length
            + "]"
        : "CommonShock[c=" + fixedProbability + "]";
  }
}
