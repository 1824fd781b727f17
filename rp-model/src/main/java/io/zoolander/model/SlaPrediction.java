package io.zoolander.model;

import java.util.Arrays;

/**
 * What a model predicts for one deployment at one bound tau.
 *
 * <p>{@link Status#UNSTABLE} is an explicit outcome rather than NaN: some duplicate's utilisation
 * is {@code >= 1}, so its queue grows without bound. Since every duplicate must apply every write,
 * the deployment cannot sustain the load; {@link #sla()} is then 0.
 *
 * @param status whether every duplicate's queue is stable
 * @param sla predicted fraction of accesses completing within tau, in {@code [0, 1]}
 * @param tauMs the bound the prediction is for
 * @param maxUtilisation the highest utilisation among the duplicates
 * @param onTime per duplicate, the predicted probability that its reply arrives within tau (0 when
 *     unstable)
 */
// onTime is copied in and out (below), and equals and hashCode use its content.
@SuppressWarnings("ArrayRecordComponent")
public record SlaPrediction(
    Status status, double sla, double tauMs, double maxUtilisation, double[] onTime) {

  /** Whether the queues are stable. */
  public enum Status {
    STABLE,
    UNSTABLE
  }

  public SlaPrediction {
    onTime = onTime.clone();
  }

  public boolean isStable() {
    return status == Status.STABLE;
  }

  /** Fraction of accesses predicted to miss tau: {@code 1 - sla}. */
  public double missRatio() {
    return 1 - sla;
  }

  /** Whether the prediction meets {@code targetSla} (never true when unstable). */
  public boolean meets(double targetSla) {
    return isStable() && sla >= targetSla;
  }

  @Override
  public double[] onTime() {
    return onTime.clone();
  }

  static SlaPrediction unstable(double tauMs, double maxUtilisation, int duplicates) {
    return new SlaPrediction(Status.UNSTABLE, 0, tauMs, maxUtilisation, new double[duplicates]);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof SlaPrediction p
        && p.status == status
        && Double.compare(p.sla, sla) == 0
        && Double.compare(p.tauMs, tauMs) == 0
        && Double.compare(p.maxUtilisation, maxUtilisation) == 0
        && Arrays.equals(p.onTime, onTime);
  }

  @Override
  public int hashCode() {
    return 31 * (31 * status.hashCode() + Double.hashCode(sla)) + Arrays.hashCode(onTime);
  }

  @Override
  public String toString() {
    return String.format(
        "SlaPrediction[%s, sla=%.6f, tau=%.3fms, maxUtilisation=%.3f]",
        status, sla, tauMs, maxUtilisation);
  }
}
