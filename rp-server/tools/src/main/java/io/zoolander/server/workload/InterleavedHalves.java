package io.zoolander.server.workload;

/**
 * One run's accesses in two disjoint halves interleaved in time: the even ones calibrate the model,
 * the odd ones are observed. Both halves see the same machine at the same moments (JIT, page cache,
 * other processes), so slow drift of a shared host does not pose as model error, and the prediction
 * for a run comes from that run.
 *
 * @param calibration the even rows (0, 2, 4...)
 * @param observation the odd rows (1, 3, 5...)
 */
public record InterleavedHalves(double[][] calibration, double[][] observation) {

  /** Splits {@code rows} (in the order of the accesses) into even and odd rows. */
  public static InterleavedHalves of(double[][] rows) {
    double[][] even = new double[(rows.length + 1) / 2][];
    double[][] odd = new double[rows.length / 2][];
    for (int i = 0; i < rows.length; i++) {
      (i % 2 == 0 ? even : odd)[i / 2] = rows[i];
    }
    return new InterleavedHalves(even, odd);
  }

  /**
   * Fraction of the observed accesses whose first reply among the first {@code n} is within tau.
   */
  public double observedSla(int n, double tauMs) {
    if (observation.length == 0) {
      return Double.NaN;
    }
    long met = 0;
    for (double[] row : observation) {
      double first = Double.POSITIVE_INFINITY;
      for (int j = 0; j < n; j++) {
        first = Math.min(first, row[j]);
      }
      if (first <= tauMs) {
        met++;
      }
    }
    return (double) met / observation.length;
  }
}
