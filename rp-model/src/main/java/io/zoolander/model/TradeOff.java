package io.zoolander.model;

import static io.zoolander.model.internal.Preconditions.checkNonNegative;
import static io.zoolander.model.internal.Preconditions.checkNotNull;
import static io.zoolander.model.internal.Preconditions.checkOpenProbability;
import static io.zoolander.model.internal.Preconditions.checkPositive;

import java.util.ArrayList;
import java.util.List;

/**
 * The thesis's trade-off analysis (its Figure 7): for a node count n, replication for
 * predictability (n duplicates, each serving the whole arrival rate) against replication for
 * throughput (n replicas, each serving {@code 1/n} of it), at a given single-node utilisation.
 *
 * <p>Low utilisation favours RP (queueing is negligible, so extra duplicates mask anomalies); high
 * utilisation favours throughput (RP's queueing eats tau and more duplicates cannot help).
 */
public final class TradeOff {

  /**
   * One node count.
   *
   * @param nodes nodes used by both strategies
   * @param utilisation utilisation of a single node serving the whole arrival rate
   * @param predictability SLA of RP with {@code nodes} duplicates
   * @param throughput SLA of replication for throughput with {@code nodes} replicas
   */
  public record Row(
      int nodes, double utilisation, SlaPrediction predictability, SlaPrediction throughput) {
    /** Whether RP predicts a strictly higher SLA. */
    public boolean predictabilityWins() {
      return predictability.sla() > throughput.sla();
    }
  }

  private TradeOff() {}

  /**
   * A service time like the thesis's ZooKeeper writes: a fast normal body (1 ms, sd 0.3 ms) and,
   * with probability 0.5%, an anomaly of 1 ms plus an exponential pause with mean 100 ms. Mean 1.5
   * ms, coefficient of variation about 6.7.
   */
  public static AnomalyMixture thesisLikeWrites() {
    return LatencyDistributions.anomalyMixture(
        LatencyDistributions.truncatedNormal(1.0, 0.3),
        LatencyDistributions.shifted(LatencyDistributions.exponential(100), 1.0),
        0.005);
  }

  /**
   * Compares the two strategies for 1..{@code maxNodes} nodes.
   *
   * @param utilisation utilisation of one node serving the whole arrival rate, in (0, 1)
   */
  public static List<Row> compare(
      SlaModel model,
      LatencyDistribution serviceTime,
      double tauMs,
      double utilisation,
      int maxNodes) {
    checkNotNull(model, "model");
    checkNotNull(serviceTime, "serviceTime");
    checkNonNegative(tauMs, "tauMs");
    checkOpenProbability(utilisation, "utilisation");
    checkPositive(maxNodes, "maxNodes");
    double arrivalRatePerSec = utilisation * 1000 / serviceTime.meanMs();
    Planner planner = Planner.builder().model(model).serviceTime(serviceTime).tauMs(tauMs).build();
    List<Row> rows = new ArrayList<>(maxNodes);
    for (int n = 1; n <= maxNodes; n++) {
      rows.add(
          new Row(
              n,
              utilisation,
              planner.evaluate(Strategy.predictability(n), arrivalRatePerSec).prediction(),
              planner.evaluate(Strategy.throughput(n), arrivalRatePerSec).prediction()));
    }
    return rows;
  }
}
