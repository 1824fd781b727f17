package io.zoolander.model.internal;

import java.util.SplittableRandom;
import java.util.function.DoubleUnaryOperator;

/** Numeric helpers. Internal: not part of the public API. */
public final class Numeric {
  private Numeric() {}

  /**
   * A draw from a Poisson law with {@code mean} (a normal approximation, rounded, above 30): the
   * Poisson bootstrap's weight of a group of {@code mean} samples.
   */
  public static double poisson(double mean, SplittableRandom rng) {
    if (mean <= 0) {
      return 0;
    }
    if (mean > 30) {
      return Math.max(0, Math.rint(mean + Math.sqrt(mean) * rng.nextGaussian()));
    }
    double limit = Math.exp(-mean);
    double p = rng.nextDouble();
    int k = 0;
    while (p > limit) {
      p *= rng.nextDouble();
      k++;
    }
    return k;
  }

  /**
   * Smallest x in {@code [lo, hi]} (to within {@code 1e-12} relative) with {@code cdf(x) >= p}, for
   * a non-decreasing cdf; grows {@code hi} until it brackets {@code p}.
   */
  public static double invertCdf(DoubleUnaryOperator cdf, double p, double lo, double hi) {
    if (p <= 0) {
      return lo;
    }
    if (hi <= lo) {
      hi = lo + 1;
    }
    int guard = 0;
    while (cdf.applyAsDouble(hi) < p && guard++ < 2000) {
      hi = lo + (hi - lo) * 2;
    }
    for (int i = 0; i < 200 && hi - lo > 1e-12 * Math.max(1, Math.abs(hi)); i++) {
      double mid = 0.5 * (lo + hi);
      if (cdf.applyAsDouble(mid) >= p) {
        hi = mid;
      } else {
        lo = mid;
      }
    }
    return hi;
  }
}
