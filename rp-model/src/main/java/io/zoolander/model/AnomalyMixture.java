package io.zoolander.model;

import static io.zoolander.model.internal.Preconditions.checkProbability;

import io.zoolander.model.internal.Numeric;
import org.apache.commons.math3.random.RandomGenerator;

/**
 * A "fast body + heavy-tail anomaly" latency: with probability {@code 1 - p} an access follows the
 * body, with probability {@code p} it hits an anomaly (GC pause, fsync stall) and follows the
 * anomaly distribution.
 */
public final class AnomalyMixture implements LatencyDistribution {
  private final LatencyDistribution body;
  private final LatencyDistribution anomaly;
  private final double anomalyProbability;

  AnomalyMixture(LatencyDistribution body, LatencyDistribution anomaly, double anomalyProbability) {
    this.body = body;
    this.anomaly = anomaly;
    this.anomalyProbability = anomalyProbability;
  }

  public LatencyDistribution body() {
    return body;
  }

  public LatencyDistribution anomaly() {
    return anomaly;
  }

  public double anomalyProbability() {
    return anomalyProbability;
  }

  @Override
  public double cdf(double xMs) {
    return (1 - anomalyProbability) * body.cdf(xMs) + anomalyProbability * anomaly.cdf(xMs);
  }

  @Override
  public double quantile(double p) {
    checkProbability(p, "p");
    if (anomalyProbability == 0) {
      return body.quantile(p);
    }
    if (anomalyProbability == 1) {
      return anomaly.quantile(p);
    }
    double lo = Math.min(body.quantile(0), anomaly.quantile(0));
    double hi = Math.max(body.quantile(p), anomaly.quantile(p));
    return Numeric.invertCdf(this::cdf, p, lo, hi);
  }

  @Override
  public double meanMs() {
    return (1 - anomalyProbability) * body.meanMs() + anomalyProbability * anomaly.meanMs();
  }

  @Override
  public double varianceMs2() {
    double mean = meanMs();
    if (Double.isInfinite(mean)) {
      // A component with an infinite mean has an infinite second moment; inf - inf below would give
      // NaN.
      return Double.POSITIVE_INFINITY;
    }
    double secondBody = body.varianceMs2() + body.meanMs() * body.meanMs();
    double secondAnomaly = anomaly.varianceMs2() + anomaly.meanMs() * anomaly.meanMs();
    return (1 - anomalyProbability) * secondBody + anomalyProbability * secondAnomaly - mean * mean;
  }

  @Override
  public double sample(RandomGenerator rng) {
    return rng.nextDouble() < anomalyProbability ? anomaly.sample(rng) : body.sample(rng);
  }

  @Override
  public String toString() {
    return "AnomalyMixture[p="
        + anomalyProbability
        + ", body="
        + body
        + ", anomaly="
        + anomaly
        + "]";
  }
}
