package io.zoolander.model;

/**
 * What {@link SlaEngine} predicts at one bound tau, with its interval.
 *
 * <p>The interval combines the engine's own Monte-Carlo standard error (0 for {@link Method#EXACT})
 * and the uncertainty that comes from the size of the service-time sample (a bootstrap over the
 * sample; none for a parametric law), on the log scale of the miss ratio, at {@link #confidence()}.
 * See {@code docs/model.md}, "The engine".
 *
 * @param tauMs the bound
 * @param sla predicted fraction of accesses completing within tau
 * @param low lower end of the interval of the SLA
 * @param high upper end of the interval of the SLA
 * @param confidence the interval's confidence level, e.g. 0.95
 * @param monteCarloStandardError the engine's simulation standard error on the SLA (0 when exact)
 * @param samplingRelativeError the relative standard error of the miss ratio due to the input
 *     sample's size (0 for a parametric law)
 * @param method how the value was computed
 * @param utilisation the busiest node's utilisation
 */
public record SlaEstimate(
    double tauMs,
    double sla,
    double low,
    double high,
    double confidence,
    double monteCarloStandardError,
    double samplingRelativeError,
    Method method,
    double utilisation) {

  /** How an estimate was computed. */
  public enum Method {
    /** Numerically exact M/G/1 (Pollaczek-Khinchine): each access is served by one node. */
    EXACT,
    /** Shared-arrival simulation with conditional Monte Carlo and a control variate. */
    SIMULATED,
    /** A node's utilisation is {@code >= 1}: the SLA is 0. */
    UNSTABLE
  }

  /** {@code 1 - sla}. */
  public double missRatio() {
    return 1 - sla;
  }

  /** Lower end of the miss ratio's interval ({@code 1 - high}). */
  public double missLow() {
    return 1 - high;
  }

  /** Upper end of the miss ratio's interval ({@code 1 - low}). */
  public double missHigh() {
    return 1 - low;
  }

  /** Whether the queues are stable. */
  public boolean isStable() {
    return method != Method.UNSTABLE;
  }

  /** Whether the predicted SLA reaches {@code targetSla} (never when unstable). */
  public boolean meets(double targetSla) {
    return isStable() && sla >= targetSla;
  }

  @Override
  public String toString() {
    return String.format(
        "SlaEstimate[tau=%.4gms, sla=%.6f (%.0f%%: %.6f..%.6f), %s, utilisation=%.3f]",
        tauMs, sla, 100 * confidence, low, high, method, utilisation);
  }
}
