package io.zoolander.model;

import org.apache.commons.math3.random.RandomGenerator;

/**
 * The distribution of a latency (service time, network delay, response time), in milliseconds.
 *
 * <p>Implementations are immutable and thread-safe. Build them with {@link LatencyDistributions}
 * (parametric and mixtures), {@link EmpiricalLatency} (samples, HdrHistogram) or fit them with
 * {@link LatencyFit}.
 */
public interface LatencyDistribution {

  /** {@code P(L <= xMs)}; 0 for negative arguments. */
  double cdf(double xMs);

  /**
   * The smallest latency {@code x} with {@code cdf(x) >= p}.
   *
   * @throws IllegalArgumentException if {@code p} is outside {@code [0, 1]}
   */
  double quantile(double p);

  /** Mean latency in milliseconds. */
  double meanMs();

  /**
   * Variance in ms squared; may be {@link Double#POSITIVE_INFINITY} for heavy tails (e.g. Pareto
   * with {@code shape <= 2}).
   */
  double varianceMs2();

  /**
   * Squared coefficient of variation {@code Var/mean^2}: 1 for exponential, the {@code Cv^2} of
   * Pollaczek-Khinchine. 0 when the mean is 0; {@link Double#POSITIVE_INFINITY} when the mean is
   * infinite (e.g. Pareto with {@code shape <= 1}).
   */
  default double scv() {
    double mean = meanMs();
    if (mean == 0) {
      return 0;
    }
    // inf/inf would be NaN, which compares false against every threshold; unbounded variability is
    // what it means.
    return Double.isInfinite(mean) ? Double.POSITIVE_INFINITY : varianceMs2() / (mean * mean);
  }

  /**
   * One latency drawn with the given generator (used by the simulator; deterministic for a seeded
   * generator).
   */
  double sample(RandomGenerator rng);
}
