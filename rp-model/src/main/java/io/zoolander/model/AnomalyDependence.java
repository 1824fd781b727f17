package io.zoolander.model;

/**
 * How the duplicates' slow events relate, and so how their on-time probabilities combine into the
 * first-reply SLA.
 *
 * <p>{@link #independent()} is the thesis's assumption: {@code s = sum_n p_n prod_{i<n} (1 - p_i)},
 * which equals {@code 1 - prod_n (1 - p_n)}. On shared hardware duplicates slow down together and
 * independence over-predicts; {@link CommonShock} models that.
 */
public interface AnomalyDependence {

  /**
   * The probability that at least one duplicate replies within tau.
   *
   * @param onTime per duplicate, the probability its reply arrives within tau
   * @param serviceBoundsMs per duplicate, the service-time bound that decides it ({@code tau -
   *     mu_net - mu_queue}), which a dependence estimated from samples evaluates at
   */
  double firstReplyOnTime(double[] onTime, double[] serviceBoundsMs);

  /** Independent duplicates: the thesis's heterogeneous formula. */
  static AnomalyDependence independent() {
    return Independent.INSTANCE;
  }

  /** The thesis's combination for independent duplicates. */
  enum Independent implements AnomalyDependence {
    INSTANCE;

    @Override
    public double firstReplyOnTime(double[] onTime, double[] serviceBoundsMs) {
      double sla = 0;
      double allEarlierLate = 1;
      for (double p : onTime) {
        sla += p * allEarlierLate;
        allEarlierLate *= 1 - p;
      }
      return Math.min(1, sla);
    }

    @Override
    public String toString() {
      return "independent";
    }
  }
}
