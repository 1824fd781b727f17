package io.zoolander.model;

import static io.zoolander.model.internal.Preconditions.checkNonNegative;
import static io.zoolander.model.internal.Preconditions.checkNotNull;

import java.util.List;

/**
 * The Zoolander thesis model: each duplicate's effective bound is tau minus its mean network delay
 * and mean queueing delay, {@code tau_n = tau - mu_net - mu_queue,n}, and the SLA is {@code s =
 * sum_n Phi_n(tau_n) prod_{i<n} (1 - Phi_i(tau_i))} where {@code Phi_n} is duplicate n's
 * service-time CDF.
 *
 * <p>Fast (a few CDF look-ups per duplicate) but it subtracts means: it ignores the spread of
 * queueing and network delay. {@link DistributionModel} does not.
 */
public final class ThesisModel implements SlaModel {
  private final QueueingModel queueing;
  private final AnomalyDependence dependence;

  private ThesisModel(QueueingModel queueing, AnomalyDependence dependence) {
    this.queueing = queueing;
    this.dependence = dependence;
  }

  /** The thesis model with M/G/1 queueing and independent duplicates. */
  public static ThesisModel create() {
    return builder().build();
  }

  public static Builder builder() {
    return new Builder();
  }

  public QueueingModel queueing() {
    return queueing;
  }

  public AnomalyDependence dependence() {
    return dependence;
  }

  @Override
  public SlaPrediction predict(Deployment deployment, double tauMs) {
    checkNotNull(deployment, "deployment");
    checkNonNegative(tauMs, "tauMs");
    List<Deployment.Duplicate> duplicates = deployment.duplicates();
    int n = duplicates.size();
    double[] onTime = new double[n];
    double[] bounds = new double[n];
    double maxRho = 0;
    for (int i = 0; i < n; i++) {
      Deployment.Duplicate duplicate = duplicates.get(i);
      double rho =
          QueueingModel.utilisation(deployment.arrivalRatePerSec(), duplicate.serviceTime());
      maxRho = Math.max(maxRho, rho);
      double wait =
          queueing.meanWaitMs(
              deployment.arrivalRatePerSec(), duplicate.serviceTime(), deployment.arrivalScv());
      bounds[i] = tauMs - duplicate.networkDelay().meanMs() - wait;
      onTime[i] = bounds[i] < 0 ? 0 : duplicate.serviceTime().cdf(bounds[i]);
    }
    if (maxRho >= 1) {
      return SlaPrediction.unstable(tauMs, maxRho, n);
    }
    double sla = dependence.firstReplyOnTime(onTime, bounds);
    return new SlaPrediction(SlaPrediction.Status.STABLE, sla, tauMs, maxRho, onTime);
  }

  @Override
  public String toString() {
    return "ThesisModel[" + queueing + ", " + dependence + "]";
  }

  /** Builds a {@link ThesisModel}. */
  public static final class Builder {
    private QueueingModel queueing = QueueingModel.MG1;
    private AnomalyDependence dependence = AnomalyDependence.independent();

    private Builder() {}

    /** The queueing formula for mean waiting time; {@link QueueingModel#MG1} by default. */
    public Builder queueing(QueueingModel queueing) {
      this.queueing = checkNotNull(queueing, "queueing");
      return this;
    }

    /** How duplicates' slow events relate; independent by default. */
    public Builder dependence(AnomalyDependence dependence) {
      this.dependence = checkNotNull(dependence, "dependence");
      return this;
    }

    public ThesisModel build() {
      return new ThesisModel(queueing, dependence);
    }
  }
}
