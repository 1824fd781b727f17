package io.zoolander.server.internal.repeater;

import io.zoolander.model.Deployment;
import io.zoolander.model.DistributionModel;
import io.zoolander.model.EmpiricalLatency;
import io.zoolander.model.SlaPrediction;
import java.util.ArrayList;
import java.util.List;

/**
 * The repeater's question to rp-model: the SLA at tau of {@code d} duplicates at an arrival rate,
 * from the live per-duplicate service-time samples. Duplicate {@code i} of the what-if deployment
 * takes the samples of the {@code i mod n}-th measured duplicate (so {@code d <= n} uses the first
 * {@code d} measured ones, and more duplicates than run reuse them in turn). The samples are the
 * repeater's ACK latencies of writes sent while the duplicate owed no ACK, which include the
 * network both ways (the network delay is 0) but no queueing, which the model adds. {@link
 * DistributionModel} (Poisson arrivals). Internal.
 */
final class SlaWhatIf {
  private SlaWhatIf() {}

  /**
   * @param samplesMs per measured duplicate, its samples in ms; duplicates without samples are left
   *     out
   * @return the prediction, or null when no duplicate has samples
   */
  static SlaPrediction predict(
      List<double[]> samplesMs, int duplicates, double arrivalRatePerSec, double tauMs) {
    if (duplicates < 1) {
      throw new IllegalArgumentException("duplicates must be >= 1, was " + duplicates);
    }
    if (!(arrivalRatePerSec >= 0) || Double.isInfinite(arrivalRatePerSec)) {
      throw new IllegalArgumentException(
          "arrivalRatePerSec must be finite and >= 0, was " + arrivalRatePerSec);
    }
    List<EmpiricalLatency> measured = new ArrayList<>();
    for (double[] s : samplesMs) {
      if (s.length > 0) {
        measured.add(EmpiricalLatency.of(s));
      }
    }
    if (measured.isEmpty()) {
      return null;
    }
    Deployment.Builder deployment = Deployment.builder().arrivalRatePerSec(arrivalRatePerSec);
    for (int i = 0; i < duplicates; i++) {
      deployment.duplicate(measured.get(i % measured.size()));
    }
    return DistributionModel.create().predict(deployment.build(), tauMs);
  }
}
