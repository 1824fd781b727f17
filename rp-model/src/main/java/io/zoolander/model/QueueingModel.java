package io.zoolander.model;

import static io.zoolander.model.internal.Preconditions.checkNonNegative;
import static io.zoolander.model.internal.Preconditions.checkNotNull;

/**
 * The queue in front of one duplicate, used to estimate its mean waiting time. Every duplicate is a
 * single FIFO server; {@code rho = lambda * E[S]} is its utilisation.
 *
 * <ul>
 *   <li>{@link #MM1}: Poisson arrivals, exponential service: {@code Wq = rho / (1 - rho) * E[S]}
 *       (uses only the mean);
 *   <li>{@link #MG1}: Poisson arrivals, general service (Pollaczek-Khinchine): {@code Wq = (1 +
 *       Cs^2) / 2 * rho / (1 - rho) * E[S]};
 *   <li>{@link #GG1}: general arrivals and service (Kingman's heavy-traffic approximation): {@code
 *       Wq = (Ca^2 + Cs^2) / 2 * rho / (1 - rho) * E[S]}.
 * </ul>
 *
 * With {@code rho >= 1} the queue grows without bound: {@link #meanWaitMs} returns {@link
 * Double#POSITIVE_INFINITY} and predictors report {@link SlaPrediction.Status#UNSTABLE}.
 */
public enum QueueingModel {
  MM1 {
    @Override
    double variabilityFactor(double arrivalScv, double serviceScv) {
      return 1;
    }
  },
  MG1 {
    @Override
    double variabilityFactor(double arrivalScv, double serviceScv) {
      return (1 + serviceScv) / 2;
    }
  },
  GG1 {
    @Override
    double variabilityFactor(double arrivalScv, double serviceScv) {
      return (arrivalScv + serviceScv) / 2;
    }
  };

  abstract double variabilityFactor(double arrivalScv, double serviceScv);

  /** Utilisation {@code rho = lambda * E[S]} of one server. */
  public static double utilisation(double arrivalRatePerSec, LatencyDistribution serviceTime) {
    checkNonNegative(arrivalRatePerSec, "arrivalRatePerSec");
    checkNotNull(serviceTime, "serviceTime");
    return arrivalRatePerSec * serviceTime.meanMs() / 1000.0;
  }

  /**
   * Mean time an access waits in the queue before its service starts.
   *
   * @param arrivalRatePerSec arrivals per second the server sees
   * @param serviceTime the server's service-time distribution
   * @param arrivalScv squared coefficient of variation of inter-arrival times (1 for Poisson; only
   *     {@link #GG1} uses it)
   * @return the mean wait in ms, or {@link Double#POSITIVE_INFINITY} when utilisation is {@code >=
   *     1}
   */
  public double meanWaitMs(
      double arrivalRatePerSec, LatencyDistribution serviceTime, double arrivalScv) {
    checkNonNegative(arrivalScv, "arrivalScv");
    double rho = utilisation(arrivalRatePerSec, serviceTime);
    if (rho >= 1) {
      return Double.POSITIVE_INFINITY;
    }
    double serviceScv = serviceTime.scv();
    return variabilityFactor(arrivalScv, serviceScv) * rho / (1 - rho) * serviceTime.meanMs();
  }
}
