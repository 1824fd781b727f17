package io.zoolander.model;

/**
 * The accuracy test's reference: the project's {@link Simulation}, run separately from the engine
 * in independent replications, as many as the miss ratios at the bounds need.
 *
 * <p>Misses come in bursts (a burst of arrivals makes many consecutive accesses late on every
 * duplicate), so the standard error is that of the replications' mean, from their spread: each
 * replication is long against a burst, so the replications are independent and the spread holds the
 * bursts, which a Poisson error on the misses counted does not. Where the spread is smaller than
 * the Poisson error of the misses counted (of one miss when none was counted), the latter is used:
 * few replications with a miss or two say little about their spread.
 *
 * <p>The number of replications is adaptive, from the simulation's own counts only: after the first
 * {@link #FIRST_REPLICATIONS} (10^6 accesses), the replications double while a bound has counted
 * fewer than {@link #TARGET_MISSES} misses, none included, up to {@link #MAX_ACCESSES}. At {@code
 * TARGET_MISSES} the criterion's 10% relative bound is about three standard errors, so a correct
 * prediction is inside it for its own sake, not for the width of a 2-standard-error band. A bound
 * with no miss is extended too: misses come in bursts (ten or more consecutive accesses late on
 * every duplicate), so no miss in 10^6 accesses does not bound the miss ratio near the one-miss
 * floor below; 8 x 10^6 accesses bound it eight times tighter, whatever the engine predicts there
 * (the rule never looks at the engine). Deterministic: the seeds are a function of the point and of
 * the replication's index.
 */
final class ReferenceSimulation {
  static final int ACCESSES_PER_REPLICATION = 125_000;
  static final int FIRST_REPLICATIONS = 8;
  static final long TARGET_MISSES = 1_000;
  static final long MAX_ACCESSES = 8_000_000;
  private static final int WARMUP_ACCESSES = 10_000;

  /**
   * Simulated miss ratios at each bound, their standard errors, and the accesses they come from.
   */
  @SuppressWarnings("ArrayRecordComponent") // read by index, never compared or hashed
  record Result(double[] missRatio, double[] standardError, long accesses) {}

  private ReferenceSimulation() {}

  /**
   * Simulates RP with {@code duplicates} duplicates at {@code ratePerSec} and measures the miss
   * ratio at each of {@code taus}.
   *
   * @param stream distinguishes the grid's points, so that no two share a replication's draws
   */
  static Result run(
      LatencyDistribution service, double ratePerSec, int duplicates, double[] taus, long stream) {
    int bounds = taus.length;
    double[] sum = new double[bounds];
    double[] sumOfSquares = new double[bounds];
    long[] misses = new long[bounds];
    int replications = 0;
    int target = FIRST_REPLICATIONS;
    while (true) {
      for (; replications < target; replications++) {
        SimulationResult r =
            Simulation.builder()
                .strategy(Strategy.predictability(duplicates))
                .serviceTime(service)
                .arrivalRatePerSec(ratePerSec)
                .accesses(ACCESSES_PER_REPLICATION)
                .warmupAccesses(WARMUP_ACCESSES)
                .pairedSampleLimit(0)
                .seed(1_000_003L * (replications + 1) + 7_919L * stream)
                .build()
                .run();
        for (int i = 0; i < bounds; i++) {
          double miss = 1 - r.sla(taus[i]);
          sum[i] += miss;
          sumOfSquares[i] += miss * miss;
          misses[i] += Math.round(miss * ACCESSES_PER_REPLICATION);
        }
      }
      long accesses = (long) replications * ACCESSES_PER_REPLICATION;
      if (2 * accesses > MAX_ACCESSES || !needsMore(misses)) {
        return result(sum, sumOfSquares, misses, replications);
      }
      target = 2 * replications;
    }
  }

  /** A bound with too few misses to resolve 10% of the miss ratio, none included. */
  private static boolean needsMore(long[] misses) {
    for (long m : misses) {
      if (m < TARGET_MISSES) {
        return true;
      }
    }
    return false;
  }

  private static Result result(
      double[] sum, double[] sumOfSquares, long[] misses, int replications) {
    long accesses = (long) replications * ACCESSES_PER_REPLICATION;
    double[] mean = new double[sum.length];
    double[] error = new double[sum.length];
    for (int i = 0; i < sum.length; i++) {
      mean[i] = sum[i] / replications;
      double variance =
          Math.max(0, (sumOfSquares[i] - replications * mean[i] * mean[i]) / (replications - 1));
      double poisson = Math.sqrt(Math.max(misses[i], 1)) / accesses;
      error[i] = Math.max(Math.sqrt(variance / replications), poisson);
    }
    return new Result(mean, error, accesses);
  }
}
