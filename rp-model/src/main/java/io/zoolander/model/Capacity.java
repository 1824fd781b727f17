package io.zoolander.model;

import static io.zoolander.model.internal.Preconditions.checkNonNegative;
import static io.zoolander.model.internal.Preconditions.checkNotNull;
import static io.zoolander.model.internal.Preconditions.checkOpenProbability;

/**
 * The highest arrival rate a deployment sustains while a model still predicts a target SLA
 * ("goodput").
 *
 * <p>The SLA falls as the arrival rate rises (more queueing), so the rate is found by bisection
 * between 0 and the rate that saturates the slowest duplicate.
 */
public final class Capacity {
  private static final int BISECTION_STEPS = 50;

  private Capacity() {}

  /**
   * @param deployment the duplicates; its own arrival rate is ignored
   * @return the highest arrival rate per second at which {@code model} predicts at least {@code
   *     targetSla} at {@code tauMs}, or 0 if not even an idle deployment meets it
   */
  public static double maxArrivalRatePerSec(
      SlaModel model, Deployment deployment, double tauMs, double targetSla) {
    checkNotNull(model, "model");
    checkNotNull(deployment, "deployment");
    checkNonNegative(tauMs, "tauMs");
    checkOpenProbability(targetSla, "targetSla");
    if (!model.predict(deployment.withArrivalRate(0), tauMs).meets(targetSla)) {
      return 0;
    }
    double maxMeanServiceMs = 0;
    for (Deployment.Duplicate d : deployment.duplicates()) {
      maxMeanServiceMs = Math.max(maxMeanServiceMs, d.serviceTime().meanMs());
    }
    double lo = 0;
    double hi = 1000.0 / maxMeanServiceMs; // utilisation 1 on the slowest duplicate: never meets
    for (int i = 0; i < BISECTION_STEPS; i++) {
      double mid = 0.5 * (lo + hi);
      if (model.predict(deployment.withArrivalRate(mid), tauMs).meets(targetSla)) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    return lo;
  }
}
