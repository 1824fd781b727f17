package io.zoolander.server.demo;

import java.nio.file.Path;
import java.util.List;

/**
 * Everything the demo can be told; validated by {@link #validate()} so a bad value is one clear
 * message.
 *
 * @param duplicates duplicates the embedded deployment starts (the largest count compared)
 * @param counts duplicate counts to compare, each in 1..duplicates
 * @param ratePerSec open-loop arrival rate of accesses
 * @param readFraction fraction of accesses that are reads (the rest are setData writes)
 * @param runSeconds length of each compared run (its even accesses calibrate, its odd ones are
 *     observed)
 * @param warmupSeconds warm-up before every run, not recorded
 * @param tauMs the SLA bound, or NaN for the measured duplicate's p90
 * @param valueBytes size of the values written
 * @param anomalyProbability per-duplicate independent anomaly probability (0: injector off)
 * @param anomalyDelayMs mean extra delay of an anomaly
 * @param anomalyDistribution fixed, exponential or pareto
 * @param commonProbability probability that an access is slowed on every duplicate at once
 * @param commonDelayMs extra delay of a common-mode slowdown
 * @param chart where to write the PNG chart (null: none)
 * @param fsync whether ZooKeeper fsyncs
 * @param seed seed of arrivals and anomalies
 */
public record DemoSettings(
    int duplicates,
    List<Integer> counts,
    double ratePerSec,
    double readFraction,
    int runSeconds,
    int warmupSeconds,
    double tauMs,
    int valueBytes,
    double anomalyProbability,
    double anomalyDelayMs,
    String anomalyDistribution,
    double commonProbability,
    double commonDelayMs,
    Path chart,
    boolean fsync,
    long seed) {

  public DemoSettings {
    counts = List.copyOf(counts);
  }

  /**
   * @throws IllegalArgumentException naming the first bad setting
   */
  public DemoSettings validate() {
    check(duplicates >= 1 && duplicates <= 16, "duplicates must be in 1..16, was " + duplicates);
    check(!counts.isEmpty(), "counts must name at least one duplicate count");
    for (int n : counts) {
      check(
          n >= 1 && n <= duplicates,
          "every count must be in 1.." + duplicates + " (the duplicates started), was " + n);
    }
    check(
        ratePerSec > 0 && ratePerSec <= 50_000,
        "rate must be in (0, 50000] per second, was " + ratePerSec);
    check(
        readFraction >= 0 && readFraction <= 1,
        "read fraction must be in [0, 1], was " + readFraction);
    check(runSeconds >= 1, "run seconds must be >= 1, was " + runSeconds);
    check(warmupSeconds >= 0, "warm-up seconds must be >= 0, was " + warmupSeconds);
    check(Double.isNaN(tauMs) || tauMs > 0, "tau must be > 0 ms, was " + tauMs);
    check(
        valueBytes >= 0 && valueBytes <= 1_000_000,
        "value bytes must be in 0..1000000, was " + valueBytes);
    check(
        anomalyProbability >= 0 && anomalyProbability <= 1,
        "anomaly probability must be in [0, 1], was " + anomalyProbability);
    check(
        commonProbability >= 0 && commonProbability <= 1,
        "common probability must be in [0, 1], was " + commonProbability);
    check(anomalyDelayMs >= 0 && commonDelayMs >= 0, "anomaly delays must be >= 0 ms");
    check(
        List.of("fixed", "exponential", "pareto").contains(anomalyDistribution),
        "anomaly distribution must be fixed, exponential or pareto, was " + anomalyDistribution);
    return this;
  }

  private static void check(boolean ok, String message) {
    if (!ok) {
      throw new IllegalArgumentException(message);
    }
  }

  /** The anomaly znode's content for every duplicate, or null when nothing is injected. */
  String anomalyRecord() {
    if (anomalyProbability == 0 && commonProbability == 0) {
      return null;
    }
    return "probability="
        + anomalyProbability
        + ";delayMs="
        + anomalyDelayMs
        + ";distribution="
        + anomalyDistribution
        + ";commonProbability="
        + commonProbability
        + ";commonDelayMs="
        + commonDelayMs
        // The seed drives only the common-mode hash: the same on every duplicate, so they slow down
        // together.
        + ";seed="
        + seed
        + ";applies=both";
  }
}
