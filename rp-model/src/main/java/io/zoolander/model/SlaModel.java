package io.zoolander.model;

/**
 * Predicts the SLA of a {@link Deployment}: the fraction of accesses whose first reply arrives
 * within tau.
 *
 * <p>Implementations: {@link ThesisModel} (means subtracted from tau, as in the Zoolander thesis)
 * and {@link DistributionModel} (network delay, waiting time and service time combined as
 * distributions). Both combine the duplicates through an {@link AnomalyDependence}: independent by
 * default, or correlated ({@link CommonShock}).
 */
public interface SlaModel {

  /**
   * @throws IllegalArgumentException if {@code tauMs} is negative, NaN or infinite
   * @throws NullPointerException if {@code deployment} is null
   */
  SlaPrediction predict(Deployment deployment, double tauMs);
}
