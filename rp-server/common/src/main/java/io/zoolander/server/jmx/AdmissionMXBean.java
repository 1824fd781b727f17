package io.zoolander.server.jmx;

/**
 * The repeater's admission control, as an MXBean: {@link ZoolanderJmx#ADMISSION}, registered only
 * while admission control is on ({@code admission.enabled=true}). Attributes are as of the last
 * control period; the operation changes the target from the next one.
 */
public interface AdmissionMXBean {
  /** The fraction of writes to be first acknowledged within tau. */
  double getTargetSla();

  /** The SLA's bound, in ms. */
  double getTauMs();

  /** Whether WRITEs are being limited (and the excess shed). */
  boolean isLimiting();

  /** The admitted rate limit, writes/s; +Inf while not limiting. */
  double getRateLimitPerSec();

  /** WRITEs offered per second. */
  double getOfferedRatePerSec();

  /** WRITEs admitted per second. */
  double getAdmittedRatePerSec();

  /** Fraction of recent writes first acknowledged within tau. */
  double getObservedSla();

  /** The model's SLA at tau at the offered rate. */
  double getPredictedSla();

  /** WRITEs admitted since start. */
  long getAdmitted();

  /** WRITEs shed since start. */
  long getShed();

  /** Why the last control period decided as it did. */
  String getLastDecision();

  /**
   * Sets the target SLA and tau, from the next control period on.
   *
   * @throws IllegalArgumentException unless {@code 0 < targetSla < 1} and {@code tauMs > 0}
   */
  void setTarget(double targetSla, double tauMs);
}
