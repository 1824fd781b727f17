package io.zoolander.model;

import static io.zoolander.model.internal.Preconditions.checkNonNegative;

/**
 * What one {@link Simulation#run()} observed over its recorded accesses (warm-up excluded).
 * Immutable.
 *
 * <p>Per-node statistics use the node numbering of {@link Simulation}: node {@code n} is duplicate
 * {@code n % duplicatesPerSet} of set {@code n / duplicatesPerSet}.
 */
public final class SimulationResult {
  private final Strategy strategy;
  private final double[] responses; // recorded accesses' response times, in arrival order
  private volatile EmpiricalLatency responseTime; // built (sorted) on first use
  private final double[] paired; // row-major [row * d + duplicate]
  private final int pairedRows;
  private final double[] waitMs; // summed per node
  private final double[] busyMs; // summed per node
  private final long[] served;
  private final double windowMs;

  SimulationResult(
      Strategy strategy,
      double[] responses,
      double[] paired,
      int pairedRows,
      double[] waitMs,
      double[] busyMs,
      long[] served,
      double windowMs) {
    this.strategy = strategy;
    this.responses = responses;
    this.paired = paired;
    this.pairedRows = pairedRows;
    this.waitMs = waitMs;
    this.busyMs = busyMs;
    this.served = served;
    this.windowMs = windowMs;
  }

  /** The strategy that was simulated. */
  public Strategy strategy() {
    return strategy;
  }

  /**
   * The distribution of the recorded accesses' response times (first reply, network delay
   * included).
   */
  public EmpiricalLatency responseTime() {
    EmpiricalLatency built = responseTime;
    if (built == null) {
      // Benign race: two threads may both build it; they build equal distributions.
      built = EmpiricalLatency.of(responses);
      responseTime = built;
    }
    return built;
  }

  /**
   * The fraction of recorded accesses whose response time is {@code <= tauMs}.
   *
   * @throws IllegalArgumentException if {@code tauMs} is negative, NaN or infinite
   */
  public double sla(double tauMs) {
    checkNonNegative(tauMs, "tauMs");
    EmpiricalLatency built = responseTime;
    if (built != null) {
      return built.cdf(tauMs);
    }
    // Without sorting: the same fraction, counted (a caller that asks for a few bounds of a long
    // run, as the accuracy test's reference does, does not pay for a sort).
    long onTime = 0;
    for (double r : responses) {
      if (r <= tauMs) {
        onTime++;
      }
    }
    return (double) onTime / responses.length;
  }

  /** Number of recorded accesses (the configured {@code accesses}). */
  public long recordedAccesses() {
    return responses.length;
  }

  /**
   * The service time each duplicate drew for the first {@code min(accesses, pairedSampleLimit)}
   * recorded accesses, common-mode extra included: {@code [access][duplicate within the access's
   * set]}. The paired samples from which to estimate the dependence between duplicates. A fresh
   * copy on every call.
   */
  public double[][] pairedServiceMs() {
    int d = strategy.duplicatesPerSet();
    double[][] rows = new double[pairedRows][];
    for (int r = 0; r < pairedRows; r++) {
      double[] row = new double[d];
      System.arraycopy(paired, r * d, row, 0, d);
      rows[r] = row;
    }
    return rows;
  }

  /**
   * Mean time the recorded accesses served by {@code node} waited in its queue before service
   * started (response time minus service minus network); {@code NaN} if the node served none of
   * them.
   *
   * @throws IllegalArgumentException if {@code node} is not in {@code [0, strategy().nodes())}
   */
  public double meanWaitMs(int node) {
    checkNode(node);
    return served[node] == 0 ? Double.NaN : waitMs[node] / served[node];
  }

  /**
   * The fraction of the measurement window during which {@code node} was busy: busy time /
   * simulated time. The window runs from the first recorded arrival until every node has finished
   * its work; busy time is the node's service of the recorded accesses plus whatever warm-up
   * backlog it still had when the window opened. So the utilisation is in {@code [0, 1]}, 1 for an
   * overloaded node, and for a stable queue it estimates {@code rho}.
   *
   * @throws IllegalArgumentException if {@code node} is not in {@code [0, strategy().nodes())}
   */
  public double utilisation(int node) {
    checkNode(node);
    return windowMs > 0 ? busyMs[node] / windowMs : 0;
  }

  /**
   * How many recorded accesses {@code node} served.
   *
   * @throws IllegalArgumentException if {@code node} is not in {@code [0, strategy().nodes())}
   */
  public long accessesServed(int node) {
    checkNode(node);
    return served[node];
  }

  /**
   * Length of the measurement window in ms: from the first recorded arrival until every node was
   * idle.
   */
  public double simulatedTimeMs() {
    return windowMs;
  }

  private void checkNode(int node) {
    if (node < 0 || node >= served.length) {
      throw new IllegalArgumentException("node must be in [0, " + served.length + "), was " + node);
    }
  }

  @Override
  public String toString() {
    return String.format(
        "SimulationResult[%s, accesses=%d, response=%s, window=%.1fms]",
        strategy, recordedAccesses(), responseTime(), windowMs);
  }
}
