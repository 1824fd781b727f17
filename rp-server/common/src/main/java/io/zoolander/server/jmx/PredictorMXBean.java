package io.zoolander.server.jmx;

/**
 * The repeater's SLA predictor, as an MXBean: {@link ZoolanderJmx#PREDICTOR}. It asks rp-model's
 * engine ({@code SlaEngine}: Poisson arrivals shared by the duplicates, waits as distributions,
 * every write applied by every duplicate and done at the first reply) with the live service-time
 * samples: the repeater's ACK latencies of every duplicate that is not fenced, of writes sent while
 * it owed no ACK (send to ACK: the network and the apply are in them, so the model's network delay
 * is 0, but no queueing behind earlier writes, which the model adds at the rate asked about). The
 * engine takes the duplicates as alike: their samples are pooled. Samples older than {@link
 * #getSampleMaxAgeMs()} are left out, so a burst long past does not speak for an idle deployment;
 * every answer is NaN while no sample is left ({@link #getSamplesUsed()} is 0).
 */
public interface PredictorMXBean {
  /** The bound the predicted-SLA meter and {@link #predictSla(int, double)} use, in ms. */
  double getTauMs();

  /** Writes sequenced per second, measured over the last 10 s. */
  double getArrivalRatePerSec();

  /** Duplicates that are not fenced. */
  int getLiveDuplicates();

  /**
   * How many ACK latencies the predictions use now: the live duplicates' samples no older than
   * {@link #getSampleMaxAgeMs()}.
   */
  int getSamplesUsed();

  /** How long an ACK latency stays a sample, in ms. */
  long getSampleMaxAgeMs();

  /** The SLA at tau predicted for the live duplicates at the measured arrival rate. */
  double getPredictedSla();

  /**
   * The low end of {@link #getPredictedSla()}'s 95% interval (its samples' count and the engine's
   * error).
   */
  double getPredictedSlaLow();

  /** The high end of {@link #getPredictedSla()}'s 95% interval. */
  double getPredictedSlaHigh();

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
   * The highest write rate at which the live duplicates are predicted to meet {@code targetSla} at
   * {@code tauMs}: how many writes per second this partition can take. NaN without samples.
   *
   * @throws IllegalArgumentException if {@code targetSla} is not in (0, 1) or {@code tauMs} is not
   *     positive and finite
   */
  double writeCapacityPerSec(double targetSla, double tauMs);

  /**
   * The service-time samples (ms, oldest first) the predictor holds for one duplicate, no older
   * than {@link #getSampleMaxAgeMs()}.
   *
   * @throws IllegalArgumentException if no duplicate has this id
   */
  double[] serviceTimeSamplesMs(int duplicateId);
}
