package io.zoolander.model;

import static io.zoolander.model.internal.Preconditions.checkProbability;

import java.util.function.ToDoubleFunction;
import org.apache.commons.math3.distribution.RealDistribution;
import org.apache.commons.math3.random.RandomGenerator;

/**
 * A latency distribution backed by a commons-math3 {@link RealDistribution}. Sampling uses a
 * dedicated algorithm per family driven by the caller's generator, so a seeded simulation is
 * deterministic and fast.
 */
final class ParametricLatency implements LatencyDistribution {
  private final String name;
  private final RealDistribution distribution;
  private final ToDoubleFunction<RandomGenerator> sampler;

  ParametricLatency(
      String name, RealDistribution distribution, ToDoubleFunction<RandomGenerator> sampler) {
    this.name = name;
    this.distribution = distribution;
    this.sampler = sampler;
  }

  @Override
  public double cdf(double xMs) {
    return xMs < 0 ? 0 : distribution.cumulativeProbability(xMs);
  }

  @Override
  public double quantile(double p) {
    checkProbability(p, "p");
    return Math.max(0, distribution.inverseCumulativeProbability(p));
  }

  @Override
  public double meanMs() {
    return distribution.getNumericalMean();
  }

  @Override
  public double varianceMs2() {
    return distribution.getNumericalVariance();
  }

  @Override
  public double sample(RandomGenerator rng) {
    return sampler.applyAsDouble(rng);
  }

  @Override
  public String toString() {
    return name;
  }
}
