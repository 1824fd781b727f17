package io.zoolander.model;

import static io.zoolander.model.internal.Preconditions.checkNonNegative;
import static io.zoolander.model.internal.Preconditions.checkNotNull;
import static io.zoolander.model.internal.Preconditions.checkPositive;
import static io.zoolander.model.internal.Preconditions.checkProbability;

import java.util.function.DoubleUnaryOperator;

/**
 * SLAs of fan-out requests: a request made of several accesses is as slow as its slowest access.
 *
 * <ul>
 *   <li>{@link #parallel}: {@code k} parallel accesses meet tau together with probability {@code
 *       s^k}.
 *   <li>{@link #phases}: barrier phases (e.g. 30 reads, barrier, 20 reads): the request takes the
 *       sum over phases of the slowest access in each phase. A phase of {@code k} accesses has CDF
 *       {@code F(x)^k}; phases are convolved numerically on a grid over {@code [0, tau]}.
 * </ul>
 *
 * Accesses are taken as independent of each other (each is a separate first-reply race).
 */
public final class FanOut {
  /** Default grid resolution for {@link #phases}. */
  public static final int DEFAULT_GRID_POINTS = 512;

  private FanOut() {}

  /**
   * SLA of a request of {@code accesses} parallel accesses, each meeting tau with probability
   * {@code accessSla}.
   */
  public static double parallel(double accessSla, int accesses) {
    checkProbability(accessSla, "accessSla");
    checkPositive(accesses, "accesses");
    return Math.pow(accessSla, accesses);
  }

  /**
   * SLA at {@code tauMs} of a request made of barrier phases.
   *
   * @param accessCdf {@code x -> P(one access completes within x ms)}
   * @param accessesPerPhase accesses issued in parallel in each phase, in order
   */
  public static double phases(
      DoubleUnaryOperator accessCdf, double tauMs, int... accessesPerPhase) {
    return phases(accessCdf, tauMs, accessesPerPhase, DEFAULT_GRID_POINTS);
  }

  /**
   * As {@link #phases(DoubleUnaryOperator, double, int...)} with a given grid resolution (at least
   * 16).
   */
  public static double phases(
      DoubleUnaryOperator accessCdf, double tauMs, int[] accessesPerPhase, int gridPoints) {
    checkNotNull(accessCdf, "accessCdf");
    checkNonNegative(tauMs, "tauMs");
    checkNotNull(accessesPerPhase, "accessesPerPhase");
    if (accessesPerPhase.length == 0) {
      throw new IllegalArgumentException("accessesPerPhase must name at least one phase");
    }
    for (int i = 0; i < accessesPerPhase.length; i++) {
      checkPositive(accessesPerPhase[i], "accessesPerPhase[" + i + "]");
    }
    if (gridPoints < 16) {
      throw new IllegalArgumentException("gridPoints must be >= 16, was " + gridPoints);
    }
    if (accessesPerPhase.length == 1) {
      return Math.pow(accessCdf.applyAsDouble(tauMs), accessesPerPhase[0]);
    }
    int g = gridPoints;
    double h = tauMs / g;
    // The access CDF at the cell edges, shared by every phase.
    double[] edgeCdf = new double[g + 1];
    for (int j = 0; j <= g; j++) {
      edgeCdf[j] = accessCdf.applyAsDouble((j + 0.5) * h);
    }
    double[] total = phaseMass(edgeCdf, accessesPerPhase[0]);
    for (int p = 1; p < accessesPerPhase.length; p++) {
      double[] phase = phaseMass(edgeCdf, accessesPerPhase[p]);
      double[] next = new double[g + 1];
      for (int k = 0; k <= g; k++) {
        double mass = 0;
        for (int j = 0; j <= k; j++) {
          mass += total[j] * phase[k - j];
        }
        next[k] = mass;
      }
      total = next;
    }
    double sla = 0;
    for (double mass : total) {
      sla += mass;
    }
    return Math.max(0, Math.min(1, sla));
  }

  /**
   * Cell masses of the slowest of {@code k} accesses: the CDF raised to the k-th power,
   * differenced.
   */
  private static double[] phaseMass(double[] edgeCdf, int k) {
    double[] mass = new double[edgeCdf.length];
    double previous = 0;
    for (int j = 0; j < edgeCdf.length; j++) {
      double upper = Math.pow(edgeCdf[j], k);
      mass[j] = Math.max(0, upper - previous);
      previous = upper;
    }
    return mass;
  }
}
