package io.zoolander.model;

/**
 * The exact M/G/1 FIFO waiting and sojourn times, solved numerically: the stationary waiting time
 * {@code W} satisfies the Pollaczek-Khinchine (Benes) renewal equation
 *
 * <pre>P(W <= x) = (1 - rho) + rho int_0^x P(W <= x - y) dR(y)</pre>
 *
 * with {@code R} the residual service time (density {@code (1 - B(y)) / E[S]}). It is a Volterra
 * equation of the second kind, solved on a uniform grid over {@code [0, xMax]} by the product
 * trapezoidal rule ({@code O(g^2)}, second order in the cell width; the residual masses per cell
 * are exact for samples and point masses). The sojourn time of class {@code c} is {@code W + S_c}:
 *
 * <pre>P(W + S_c <= x) = (1 - rho) B_c(x) + int_{0+}^x B_c(x - y) dW(y)</pre>
 *
 * the atom of {@code W} at 0 taken exactly and the rest as cell masses of {@code W} times cell
 * averages of {@code B_c} (from {@code E[min(S, x)]}, exact for samples).
 *
 * <p>Several classes (reads and writes) may share the server: the waiting time is that of their
 * mixture (Poisson streams merge), each class's sojourn adds its own service time.
 */
final class PollaczekKhinchine {
  private final EngineLaw[] laws;
  private final double rho;
  private final double h;
  private final int g;
  private final double[] wait; // P(W <= k h), k = 0..g
  private final double[][] cellAverage; // [class][m]: average of B_c over [m h, (m + 1) h]

  /**
   * @param laws the service law of each class
   * @param ratesPerMs each class's arrival rate at this server, per ms
   * @param xMax the largest bound to evaluate
   * @param g grid cells over {@code [0, xMax]}
   */
  PollaczekKhinchine(EngineLaw[] laws, double[] ratesPerMs, double xMax, int g) {
    this.laws = laws;
    this.g = g;
    this.h = xMax / g;
    double lambda = 0;
    double work = 0;
    for (int c = 0; c < laws.length; c++) {
      lambda += ratesPerMs[c];
      work += ratesPerMs[c] * laws[c].mean();
    }
    this.rho = work;
    double[][] truncated = new double[laws.length][];
    cellAverage = new double[laws.length][g];
    for (int c = 0; c < laws.length; c++) {
      truncated[c] = laws[c].truncatedMeanOnGrid(h, g);
      for (int m = 0; m < g; m++) {
        cellAverage[c][m] = 1 - (truncated[c][m + 1] - truncated[c][m]) / h;
      }
    }
    wait = new double[g + 1];
    if (rho >= 1) {
      return;
    }
    if (rho == 0 || lambda == 0) {
      java.util.Arrays.fill(wait, 1);
      return;
    }
    // Residual mass per cell of the mixture: (I_mix((j + 1) h) - I_mix(j h)) / E[S_mix].
    double meanService = work / lambda;
    double[] residual = new double[g];
    for (int c = 0; c < laws.length; c++) {
      double weight = ratesPerMs[c] / lambda / meanService;
      for (int j = 0; j < g; j++) {
        residual[j] += weight * (truncated[c][j + 1] - truncated[c][j]);
      }
    }
    double[] coefficient = new double[g];
    coefficient[0] = residual[0] / 2;
    for (int i = 1; i < g; i++) {
      coefficient[i] = (residual[i] + residual[i - 1]) / 2;
    }
    double denominator = 1 - rho * coefficient[0];
    wait[0] = 1 - rho;
    for (int k = 1; k <= g; k++) {
      // Four running sums: one sum's chain of dependent additions made this O(g^2) loop a tenth of
      // a simulated prediction's time.
      double s0 = residual[k - 1] / 2 * wait[0];
      double s1 = 0;
      double s2 = 0;
      double s3 = 0;
      int i = 1;
      for (; i + 3 < k; i += 4) {
        s0 += coefficient[i] * wait[k - i];
        s1 += coefficient[i + 1] * wait[k - i - 1];
        s2 += coefficient[i + 2] * wait[k - i - 2];
        s3 += coefficient[i + 3] * wait[k - i - 3];
      }
      for (; i < k; i++) {
        s0 += coefficient[i] * wait[k - i];
      }
      double s = (s0 + s1) + (s2 + s3);
      wait[k] = Math.min(1, ((1 - rho) + rho * s) / denominator);
    }
  }

  double utilisation() {
    return rho;
  }

  boolean stable() {
    return rho < 1;
  }

  /** {@code P(W <= x)} for {@code 0 <= x <= xMax}, linear between grid points. */
  double waitCdf(double x) {
    if (x < 0) {
      return 0;
    }
    double pos = x / h;
    int k = (int) pos;
    if (k >= g) {
      return wait[g];
    }
    double f = pos - k;
    return wait[k] + f * (wait[k + 1] - wait[k]);
  }

  /** {@code P(W + S_c <= x)} for {@code x <= xMax}; 0 when unstable. */
  double sojournCdf(int c, double x) {
    if (!stable() || x < 0) {
      return 0;
    }
    double atom = (1 - rho) * laws[c].cdf(x);
    double pos = Math.min(x / h, g);
    int k = (int) pos;
    double f = pos - k;
    double cont = continuous(c, k);
    if (f > 0 && k < g) {
      cont += f * (continuous(c, k + 1) - cont);
    }
    return Math.max(0, Math.min(1, atom + cont));
  }

  /** {@code int_{0+}^{k h} B_c(k h - y) dW(y)}. */
  private double continuous(int c, int k) {
    double[] average = cellAverage[c];
    double sum = 0;
    for (int i = 0; i < k; i++) {
      sum += (wait[i + 1] - wait[i]) * average[k - 1 - i];
    }
    return sum;
  }
}
