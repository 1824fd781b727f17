package io.zoolander.model;

import static io.zoolander.model.internal.Preconditions.checkNonNegative;
import static io.zoolander.model.internal.Preconditions.checkNotNull;
import static io.zoolander.model.internal.Preconditions.checkOpenProbability;
import static io.zoolander.model.internal.Preconditions.checkPositive;

/**
 * Admission from the model: given the live service-time distribution and the recent arrival rate,
 * says whether the deployment still meets its target SLA (so more load can be admitted), what SLA
 * to expect, and the highest arrival rate that keeps the target. The repeater uses it to shed
 * writes; the client to choose its degree of concurrency.
 *
 * <p>Stateless and thread-safe: the caller supplies fresh measurements for every decision.
 */
public final class Admission {

  /**
   * One admission decision.
   *
   * @param admit whether the current load (and so more of it, up to {@link #maxArrivalRatePerSec})
   *     meets the target
   * @param expected the model's prediction at the current arrival rate
   * @param maxArrivalRatePerSec the highest arrival rate that still meets the target (0 if none)
   */
  public record Decision(boolean admit, SlaPrediction expected, double maxArrivalRatePerSec) {
    /** Arrivals per second that can still be added; negative when already over capacity. */
    public double headroomPerSec(double currentArrivalRatePerSec) {
      return maxArrivalRatePerSec - currentArrivalRatePerSec;
    }
  }

  private final SlaModel model;
  private final double targetSla;
  private final double tauMs;
  private final int duplicates;
  private final LatencyDistribution networkDelay;

  private Admission(
      SlaModel model,
      double targetSla,
      double tauMs,
      int duplicates,
      LatencyDistribution networkDelay) {
    this.model = model;
    this.targetSla = targetSla;
    this.tauMs = tauMs;
    this.duplicates = duplicates;
    this.networkDelay = networkDelay;
  }

  public static Builder builder() {
    return new Builder();
  }

  public double targetSla() {
    return targetSla;
  }

  public double tauMs() {
    return tauMs;
  }

  /**
   * Decides for the current measurements.
   *
   * @param liveServiceTime the recent service-time distribution of a duplicate (e.g. an {@link
   *     EmpiricalLatency} over a sliding window)
   * @param recentArrivalRatePerSec the recent arrival rate
   */
  public Decision decide(LatencyDistribution liveServiceTime, double recentArrivalRatePerSec) {
    checkNotNull(liveServiceTime, "liveServiceTime");
    checkNonNegative(recentArrivalRatePerSec, "recentArrivalRatePerSec");
    Deployment deployment =
        Deployment.builder()
            .networkDelay(networkDelay)
            .duplicates(duplicates, liveServiceTime)
            .arrivalRatePerSec(recentArrivalRatePerSec)
            .build();
    SlaPrediction expected = model.predict(deployment, tauMs);
    double max = Capacity.maxArrivalRatePerSec(model, deployment, tauMs, targetSla);
    return new Decision(expected.meets(targetSla), expected, max);
  }

  /** Builds an {@link Admission}. */
  public static final class Builder {
    private SlaModel model = ThesisModel.create();
    private double targetSla = Double.NaN;
    private double tauMs = Double.NaN;
    private int duplicates = 1;
    private LatencyDistribution networkDelay = LatencyDistributions.constant(0);

    private Builder() {}

    /** The predictor; the thesis model with M/G/1 queueing by default. */
    public Builder model(SlaModel model) {
      this.model = checkNotNull(model, "model");
      return this;
    }

    /** Target fraction of accesses within tau, in (0, 1) (required). */
    public Builder targetSla(double targetSla) {
      this.targetSla = checkOpenProbability(targetSla, "targetSla");
      return this;
    }

    /** The SLA's latency bound (required). */
    public Builder tauMs(double tauMs) {
      this.tauMs = checkNonNegative(tauMs, "tauMs");
      return this;
    }

    /** Duplicates every access goes to; 1 by default. */
    public Builder duplicates(int duplicates) {
      this.duplicates = checkPositive(duplicates, "duplicates");
      return this;
    }

    /** Round-trip network delay; none by default. */
    public Builder networkDelay(LatencyDistribution networkDelay) {
      this.networkDelay = checkNotNull(networkDelay, "networkDelay");
      return this;
    }

    /**
     * @throws IllegalStateException if the target SLA or tau is missing
     */
    public Admission build() {
      if (Double.isNaN(targetSla)) {
        throw new IllegalStateException("targetSla must be set");
      }
      if (Double.isNaN(tauMs)) {
        throw new IllegalStateException("tauMs must be set");
      }
      return new Admission(model, targetSla, tauMs, duplicates, networkDelay);
    }
  }
}
