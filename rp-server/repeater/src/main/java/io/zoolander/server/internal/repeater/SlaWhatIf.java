package io.zoolander.server.internal.repeater;

import io.zoolander.model.Admission;
import io.zoolander.model.EmpiricalLatency;
import io.zoolander.model.SlaEngine;
import io.zoolander.model.SlaEstimate;
import io.zoolander.model.Strategy;
import java.util.Arrays;
import java.util.List;

/**
 * The repeater's question to rp-model: the SLA at tau of {@code d} duplicates at a write rate, with
 * its interval, from the live per-duplicate service-time samples. The {@link SlaEngine} takes the
 * duplicates as alike, so the samples of every measured duplicate are pooled into one service time;
 * every write is applied by every duplicate and completes on the first reply. The samples are the
 * repeater's ACK latencies of writes sent while the duplicate owed no ACK, which include the
 * network both ways (the network delay is 0) but no queueing, which the engine adds at the rate
 * asked about, with the duplicates' shared arrival stream. The last answer is kept: the same
 * question on the same samples (a gauge and the MBean read together) costs one prediction.
 * Internal; thread-safe.
 */
final class SlaWhatIf {
  private double[] lastSamples;
  private int lastDuplicates;
  private double lastRate;
  private double lastTau;
  private SlaEstimate lastAnswer;

  /**
   * Every sample of {@code samplesMs} pooled, in the order given.
   *
   * @param samplesMs per measured duplicate, its samples in ms
   */
  private static double[] pooled(List<double[]> samplesMs) {
    return samplesMs.stream().flatMapToDouble(Arrays::stream).toArray();
  }

  /**
   * @param samplesMs per measured duplicate, its samples in ms; duplicates without samples add none
   * @return the prediction, or null when no duplicate has samples
   */
  synchronized SlaEstimate predict(
      List<double[]> samplesMs, int duplicates, double arrivalRatePerSec, double tauMs) {
    if (duplicates < 1) {
      throw new IllegalArgumentException("duplicates must be >= 1, was " + duplicates);
    }
    if (!(arrivalRatePerSec >= 0) || Double.isInfinite(arrivalRatePerSec)) {
      throw new IllegalArgumentException(
          "arrivalRatePerSec must be finite and >= 0, was " + arrivalRatePerSec);
    }
    double[] pooled = pooled(samplesMs);
    if (pooled.length == 0) {
      return null;
    }
    if (lastAnswer != null
        && duplicates == lastDuplicates
        && Double.compare(arrivalRatePerSec, lastRate) == 0
        && Double.compare(tauMs, lastTau) == 0
        && Arrays.equals(pooled, lastSamples)) {
      return lastAnswer;
    }
    SlaEstimate answer =
        SlaEngine.builder()
            .strategy(Strategy.predictability(duplicates))
            .serviceTime(EmpiricalLatency.of(pooled))
            .writeFraction(1)
            .arrivalRatePerSec(arrivalRatePerSec)
            .build()
            .predict(tauMs);
    lastSamples = pooled;
    lastDuplicates = duplicates;
    lastRate = arrivalRatePerSec;
    lastTau = tauMs;
    lastAnswer = answer;
    return answer;
  }

  /**
   * The highest write rate at which {@code duplicates} duplicates with these samples are predicted
   * to meet {@code targetSla} at {@code tauMs}: the {@link Admission} engine's bisection, to 1% of
   * the rate.
   *
   * @param samplesMs per measured duplicate, its samples in ms
   * @return writes per second (0 if not even an idle deployment meets the target), or NaN when no
   *     duplicate has samples
   */
  double writeCapacityPerSec(
      List<double[]> samplesMs, int duplicates, double targetSla, double tauMs) {
    double[] pooled = pooled(samplesMs);
    if (pooled.length == 0) {
      return Double.NaN;
    }
    return Admission.builder()
        .engine(SlaEngine.builder().bootstrapReplicates(0))
        .targetSla(targetSla)
        .tauMs(tauMs)
        .duplicates(duplicates)
        .build()
        .decide(EmpiricalLatency.of(pooled), 0)
        .maxArrivalRatePerSec();
  }
}
