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
 * <p>Two predictors: by default the thesis baseline ({@link ThesisModel}, or any {@link SlaModel}
 * given to {@link Builder#model}); or, with {@link Builder#engine()}, the {@link SlaEngine}: every
 * access (a write) applied by every duplicate and done at the first reply, the duplicates sharing
 * one Poisson arrival stream, waits as distributions. The engine's highest admissible rate is a
 * bisection of short simulations (exact for one duplicate) to {@value #RATE_TOLERANCE} of the rate.
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

  /** The engine's capacity search stops when its bracket is this narrow, relative to its top. */
  static final double RATE_TOLERANCE = 0.01;

  /** Simulated accesses per step of the engine's capacity search. */
  private static final long QUICK_ACCESSES = 20_000;

  private final SlaModel model;
  private final SlaEngine.Builder engine; // null: use model
  private final double targetSla;
  private final double tauMs;
  private final int duplicates;
  private final LatencyDistribution networkDelay;

  private Admission(
      SlaModel model,
      SlaEngine.Builder engine,
      double targetSla,
      double tauMs,
      int duplicates,
      LatencyDistribution networkDelay) {
    this.model = model;
    this.engine = engine;
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
    if (engine != null) {
      return engineDecision(liveServiceTime, recentArrivalRatePerSec);
    }
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

  /** Whether this admission predicts with the {@link SlaEngine} (else the thesis baseline). */
  public boolean usesEngine() {
    return engine != null;
  }

  private Decision engineDecision(LatencyDistribution live, double rate) {
    SlaEngine.Builder writes =
        engine
            .copy()
            .strategy(Strategy.predictability(duplicates))
            .serviceTime(live)
            .networkDelay(networkDelay)
            .writeFraction(1)
            .prepare();
    SlaEstimate expected = writes.copy().arrivalRatePerSec(rate).build().predict(tauMs);
    SlaEngine.Builder quick = writes.copy().accesses(QUICK_ACCESSES).bootstrapReplicates(0);
    double max = 0;
    if (meets(quick, 0)) {
      double lo = expected.meets(targetSla) ? rate : 0;
      double hi = 1000 / live.meanMs(); // every node serves every write: utilisation 1
      while (hi - lo > RATE_TOLERANCE * hi) {
        double mid = (lo + hi) / 2;
        if (meets(quick, mid)) {
          lo = mid;
        } else {
          hi = mid;
        }
      }
      max = lo;
    }
    // Each duplicate's own on-time probability: one node of the same queue (exact).
    double single =
        duplicates == 1
            ? expected.sla()
            : quick
                .copy()
                .strategy(Strategy.predictability(1))
                .arrivalRatePerSec(rate)
                .build()
                .predict(tauMs)
                .sla();
    double[] onTime = new double[duplicates];
    java.util.Arrays.fill(onTime, single);
    SlaPrediction prediction =
        expected.isStable()
            ? new SlaPrediction(
                SlaPrediction.Status.STABLE, expected.sla(), tauMs, expected.utilisation(), onTime)
            : SlaPrediction.unstable(tauMs, expected.utilisation(), duplicates);
    return new Decision(expected.meets(targetSla), prediction, max);
  }

  private boolean meets(SlaEngine.Builder quick, double rate) {
    return quick.copy().arrivalRatePerSec(rate).build().predict(tauMs).meets(targetSla);
  }

  /** Builds an {@link Admission}. */
  public static final class Builder {
    private SlaModel model = ThesisModel.create();
    private SlaEngine.Builder engine;
    private double targetSla = Double.NaN;
    private double tauMs = Double.NaN;
    private int duplicates = 1;
    private LatencyDistribution networkDelay = LatencyDistributions.constant(0);

    private Builder() {}

    /** The predictor; the thesis model with M/G/1 queueing by default. Turns the engine off. */
    public Builder model(SlaModel model) {
      this.model = checkNotNull(model, "model");
      this.engine = null;
      return this;
    }

    /** Predict with the {@link SlaEngine} (default settings) instead of the thesis baseline. */
    public Builder engine() {
      return engine(SlaEngine.builder());
    }

    /**
     * Predict with the {@link SlaEngine} configured like {@code template} (seed, dependence,
     * bootstrap replicates; the admission sets the strategy, service time, network delay, write mix
     * and rate).
     */
    public Builder engine(SlaEngine.Builder template) {
      this.engine = checkNotNull(template, "template").copy();
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
      return new Admission(model, engine, targetSla, tauMs, duplicates, networkDelay);
    }
  }
}
