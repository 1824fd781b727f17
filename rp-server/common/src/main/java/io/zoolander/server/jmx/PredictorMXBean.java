package io.zoolander.server.jmx;

/**
 * The repeater's SLA predictor, as an MXBean: {@link ZoolanderJmx#PREDICTOR}. It asks rp-model
 * ({@code DistributionModel}, Poisson arrivals) with the live per-duplicate service-time samples:
 * the repeater's last ACK latencies of every duplicate that is not fenced, of writes sent while it
 * owed no ACK (send to ACK: the network and the apply are in them, so the model's network delay is
 * 0, but no queueing behind earlier writes, which the model adds at the rate asked about). A
 * what-if duplicate {@code i} takes the samples of the {@code i mod n}-th measured duplicate. Every
 * answer is NaN until some ACK latency was measured.
 */
public interface PredictorMXBean {
  /** The bound the predicted-SLA meter and {@link #predictSla(int, double)} use, in ms. */
  double getTauMs();

  /** Writes sequenced per second, measured over the last 10 s. */
  double getArrivalRatePerSec();

  /** Duplicates that are not fenced. */
  int getLiveDuplicates();

  /** The SLA at tau predicted for the live duplicates at the measured arrival rate. */
  double getPredictedSla();

  /**
   * What SLA at tau would {@code duplicates} duplicates give at {@code arrivalRatePerSec} writes
   * per second?
   *
   * @throws IllegalArgumentException if {@code duplicates < 1} or the rate is negative or not
   *     finite
   */
  double predictSla(int duplicates, double arrivalRatePerSec);

  /** As {@link #predictSla(int, double)}, at bound {@code tauMs} instead of {@link #getTauMs()}. */
  double predictSlaAt(int duplicates, double arrivalRatePerSec, double tauMs);

  /**
   * The service-time samples (ms, oldest first) the predictor holds for one duplicate.
   *
   * @throws IllegalArgumentException if no duplicate has this id
   */
  double[] serviceTimeSamplesMs(int duplicateId);
}
