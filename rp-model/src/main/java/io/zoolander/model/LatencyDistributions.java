package io.zoolander.model;

import static io.zoolander.model.internal.Preconditions.checkNonNegative;
import static io.zoolander.model.internal.Preconditions.checkNotNull;
import static io.zoolander.model.internal.Preconditions.checkPositive;
import static io.zoolander.model.internal.Preconditions.checkProbability;

import org.apache.commons.math3.distribution.ExponentialDistribution;
import org.apache.commons.math3.distribution.GammaDistribution;
import org.apache.commons.math3.distribution.LogNormalDistribution;
import org.apache.commons.math3.distribution.NormalDistribution;
import org.apache.commons.math3.distribution.ParetoDistribution;
import org.apache.commons.math3.random.RandomGenerator;

/**
 * Factories for parametric latency distributions (all in milliseconds). The commons-math3
 * distributions are built without their own random generator: sampling always takes the caller's,
 * so simulations are reproducible.
 */
public final class LatencyDistributions {
  private LatencyDistributions() {}

  /** Every access takes exactly {@code latencyMs} (e.g. a fixed network delay). */
  public static LatencyDistribution constant(double latencyMs) {
    checkNonNegative(latencyMs, "latencyMs");
    return new LatencyDistribution() {
      @Override
      public double cdf(double xMs) {
        return xMs >= latencyMs ? 1 : 0;
      }

      @Override
      public double quantile(double p) {
        checkProbability(p, "p");
        return latencyMs;
      }

      @Override
      public double meanMs() {
        return latencyMs;
      }

      @Override
      public double varianceMs2() {
        return 0;
      }

      @Override
      public double sample(RandomGenerator rng) {
        return latencyMs;
      }

      @Override
      public String toString() {
        return "Constant[" + latencyMs + "ms]";
      }
    };
  }

  /** Exponential with the given mean (the M in M/M/1). */
  public static LatencyDistribution exponential(double meanMs) {
    checkPositive(meanMs, "meanMs");
    return new ParametricLatency(
        "Exponential[mean=" + meanMs + "ms]",
        new ExponentialDistribution(null, meanMs),
        rng -> -meanMs * Math.log(1 - rng.nextDouble()));
  }

  /** Log-normal: {@code ln L ~ Normal(mu, sigma)}. */
  public static LatencyDistribution logNormal(double mu, double sigma) {
    if (!Double.isFinite(mu)) {
      throw new IllegalArgumentException("mu must be finite, was " + mu);
    }
    checkPositive(sigma, "sigma");
    return new ParametricLatency(
        "LogNormal[mu=" + mu + ", sigma=" + sigma + "]",
        new LogNormalDistribution(null, mu, sigma),
        rng -> Math.exp(mu + sigma * rng.nextGaussian()));
  }

  /** Log-normal with the given mean and squared coefficient of variation. */
  public static LatencyDistribution logNormalWithMean(double meanMs, double scv) {
    checkPositive(meanMs, "meanMs");
    checkPositive(scv, "scv");
    double sigma2 = Math.log1p(scv);
    return logNormal(Math.log(meanMs) - sigma2 / 2, Math.sqrt(sigma2));
  }

  /**
   * Gamma with shape {@code k} and scale {@code theta} (mean {@code k * theta}, SCV {@code 1/k}).
   */
  public static LatencyDistribution gamma(double shape, double scaleMs) {
    checkPositive(shape, "shape");
    checkPositive(scaleMs, "scaleMs");
    return new ParametricLatency(
        "Gamma[shape=" + shape + ", scale=" + scaleMs + "ms]",
        new GammaDistribution(
            null, shape, scaleMs, GammaDistribution.DEFAULT_INVERSE_ABSOLUTE_ACCURACY),
        rng -> scaleMs * sampleStandardGamma(rng, shape));
  }

  /** Pareto (type I) with minimum {@code scaleMs} and tail index {@code shape}. */
  public static LatencyDistribution pareto(double scaleMs, double shape) {
    checkPositive(scaleMs, "scaleMs");
    checkPositive(shape, "shape");
    return new ParametricLatency(
        "Pareto[scale=" + scaleMs + "ms, shape=" + shape + "]",
        new ParetoDistribution(null, scaleMs, shape),
        rng -> scaleMs / Math.pow(1 - rng.nextDouble(), 1 / shape));
  }

  /**
   * A normal body truncated at zero (latencies are never negative), the "fast normal body" of a
   * storage access. {@code meanMs} and {@code sdMs} are those of the untruncated normal; with
   * {@code meanMs >> sdMs} the truncation is negligible.
   */
  public static LatencyDistribution truncatedNormal(double meanMs, double sdMs) {
    checkPositive(meanMs, "meanMs");
    checkPositive(sdMs, "sdMs");
    return new TruncatedNormal(meanMs, sdMs);
  }

  /** {@code base + offsetMs}: e.g. an anomaly that adds a pause to a normal access. */
  public static LatencyDistribution shifted(LatencyDistribution base, double offsetMs) {
    checkNotNull(base, "base");
    checkNonNegative(offsetMs, "offsetMs");
    return new LatencyDistribution() {
      @Override
      public double cdf(double xMs) {
        return base.cdf(xMs - offsetMs);
      }

      @Override
      public double quantile(double p) {
        return base.quantile(p) + offsetMs;
      }

      @Override
      public double meanMs() {
        return base.meanMs() + offsetMs;
      }

      @Override
      public double varianceMs2() {
        return base.varianceMs2();
      }

      @Override
      public double sample(RandomGenerator rng) {
        return base.sample(rng) + offsetMs;
      }

      @Override
      public String toString() {
        return base + "+" + offsetMs + "ms";
      }
    };
  }

  /**
   * The "fast body + heavy-tail anomaly" mixture: an access is anomalous with probability {@code
   * anomalyProbability}.
   *
   * @throws IllegalArgumentException if {@code anomalyProbability} is outside {@code [0, 1]}
   */
  public static AnomalyMixture anomalyMixture(
      LatencyDistribution body, LatencyDistribution anomaly, double anomalyProbability) {
    checkNotNull(body, "body");
    checkNotNull(anomaly, "anomaly");
    checkProbability(anomalyProbability, "anomalyProbability");
    return new AnomalyMixture(body, anomaly, anomalyProbability);
  }

  /** Marsaglia and Tsang's method for Gamma(shape, 1); boosted for shape < 1. */
  private static double sampleStandardGamma(RandomGenerator rng, double shape) {
    if (shape < 1) {
      double u = rng.nextDouble();
      return sampleStandardGamma(rng, shape + 1) * Math.pow(u, 1 / shape);
    }
    double d = shape - 1.0 / 3;
    double c = 1 / Math.sqrt(9 * d);
    while (true) {
      double x;
      double v;
      do {
        x = rng.nextGaussian();
        v = 1 + c * x;
      } while (v <= 0);
      v = v * v * v;
      double u = rng.nextDouble();
      if (u < 1 - 0.0331 * x * x * x * x || Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) {
        return d * v;
      }
    }
  }

  private static final class TruncatedNormal implements LatencyDistribution {
    private final double mu;
    private final double sd;
    private final NormalDistribution normal;
    private final double massBelowZero;

    TruncatedNormal(double mu, double sd) {
      this.mu = mu;
      this.sd = sd;
      this.normal =
          new NormalDistribution(
              null, mu, sd, NormalDistribution.DEFAULT_INVERSE_ABSOLUTE_ACCURACY);
      this.massBelowZero = normal.cumulativeProbability(0);
    }

    @Override
    public double cdf(double xMs) {
      return xMs <= 0
          ? 0
          : (normal.cumulativeProbability(xMs) - massBelowZero) / (1 - massBelowZero);
    }

    @Override
    public double quantile(double p) {
      checkProbability(p, "p");
      if (p == 1) {
        return Double.POSITIVE_INFINITY;
      }
      return Math.max(
          0, normal.inverseCumulativeProbability(massBelowZero + p * (1 - massBelowZero)));
    }

    @Override
    public double meanMs() {
      double alpha = -mu / sd;
      double phi = Math.exp(-0.5 * alpha * alpha) / Math.sqrt(2 * Math.PI);
      return mu + sd * phi / (1 - massBelowZero);
    }

    @Override
    public double varianceMs2() {
      double alpha = -mu / sd;
      double phi = Math.exp(-0.5 * alpha * alpha) / Math.sqrt(2 * Math.PI);
      double lambda = phi / (1 - massBelowZero);
      return sd * sd * (1 + alpha * lambda - lambda * lambda);
    }

    @Override
    public double sample(RandomGenerator rng) {
      double x;
      do {
        x = mu + sd * rng.nextGaussian();
      } while (x < 0);
      return x;
    }

    @Override
    public String toString() {
      return "TruncatedNormal[mu=" + mu + "ms, sd=" + sd + "ms]";
    }
  }
}
