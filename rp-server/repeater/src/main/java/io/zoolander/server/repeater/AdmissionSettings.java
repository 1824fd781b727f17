package io.zoolander.server.repeater;

/**
 * Admission control of the repeater: when the duplicates can no longer keep the target SLA at tau,
 * new WRITEs are shed with {@code ERROR(OVERLOADED, retryAfterMillis)} instead of queueing until
 * every duplicate misses tau. Off unless a repeater is built with {@link
 * Repeater.Builder#admission(AdmissionSettings)}. See {@code docs/operations.md}, "Admission
 * control".
 *
 * <p>How it decides, once per control period: the model ({@link io.zoolander.model.Admission}) is
 * fed each duplicate's live service-time distribution (from the acknowledgements) and the offered
 * write rate; when it predicts the target is missed, or the observed SLA (fraction of recent writes
 * first acknowledged within tau) is below the target, the repeater starts limiting the admitted
 * rate (a token bucket), starting from the model's highest sustainable rate. An integral controller
 * on the gap between observed and target SLA then trims the limit each period, by at most {@link
 * #maxStepFraction()} of it, and never above the offered rate (anti-windup). Once the offered load
 * has stayed below the limit for {@link #openAfterPeriods()} periods with the target met, limiting
 * stops.
 *
 * <p>Immutable; build with {@link #builder()}. Every default is a named constant below; the units
 * are in the names.
 */
public final class AdmissionSettings {
  /** Target SLA by default: fraction of writes first acknowledged within tau. */
  public static final double DEFAULT_TARGET_SLA = 0.95;

  /**
   * The SLA's latency bound by default, in milliseconds, from sequencing to the first duplicate's
   * ACK.
   */
  public static final double DEFAULT_TAU_MS = 50;

  /** How often the controller measures and adjusts the admitted rate, in milliseconds. */
  public static final long DEFAULT_CONTROL_PERIOD_MS = 100;

  /** Window of the offered (arrival) rate and the admitted rate, in milliseconds. */
  public static final long DEFAULT_RATE_WINDOW_MS = 1_000;

  /** Window of the observed SLA: writes first acknowledged within this long, in milliseconds. */
  public static final long DEFAULT_SLA_WINDOW_MS = 500;

  /**
   * Window of each duplicate's service-time distribution, in milliseconds: samples older than one
   * to two windows are forgotten (two histograms, rotated every window).
   */
  public static final long DEFAULT_SERVICE_WINDOW_MS = 5_000;

  /** Service-time samples (over all duplicates) the model needs before it is asked. */
  public static final int DEFAULT_MIN_SERVICE_SAMPLES = 100;

  /**
   * Integral gain: per control period the rate limit changes by {@code gain * (observedSla -
   * targetSla)} of itself (before the step bound).
   */
  public static final double DEFAULT_INTEGRAL_GAIN = 0.5;

  /** Largest change of the rate limit in one control period, as a fraction of it. */
  public static final double DEFAULT_MAX_STEP_FRACTION = 0.1;

  /** Anti-windup: the limit never rises above the offered rate times (1 + this). */
  public static final double DEFAULT_LIMIT_HEADROOM_FRACTION = 0.1;

  /**
   * Lowest rate limit, in writes per second: some writes always get through, so the SLA stays
   * observable.
   */
  public static final double DEFAULT_MIN_RATE_LIMIT_PER_SEC = 10;

  /**
   * Control periods with the offered load below the limit and the target met before limiting stops.
   */
  public static final int DEFAULT_OPEN_AFTER_PERIODS = 10;

  /** Burst the token bucket allows, in milliseconds of the rate limit (at least one write). */
  public static final long DEFAULT_BURST_MS = 20;

  /** Smallest retry-after hint sent with a shed write, in milliseconds. */
  public static final long DEFAULT_MIN_RETRY_AFTER_MS = 10;

  /** Largest retry-after hint sent with a shed write, in milliseconds. */
  public static final long DEFAULT_MAX_RETRY_AFTER_MS = 1_000;

  private final double targetSla;
  private final double tauMs;
  private final long controlPeriodMs;
  private final long rateWindowMs;
  private final long slaWindowMs;
  private final long serviceWindowMs;
  private final int minServiceSamples;
  private final double integralGain;
  private final double maxStepFraction;
  private final double limitHeadroomFraction;
  private final double minRateLimitPerSec;
  private final int openAfterPeriods;
  private final long burstMs;
  private final long minRetryAfterMs;
  private final long maxRetryAfterMs;

  private AdmissionSettings(Builder b) {
    this.targetSla = b.targetSla;
    this.tauMs = b.tauMs;
    this.controlPeriodMs = b.controlPeriodMs;
    this.rateWindowMs = b.rateWindowMs;
    this.slaWindowMs = b.slaWindowMs;
    this.serviceWindowMs = b.serviceWindowMs;
    this.minServiceSamples = b.minServiceSamples;
    this.integralGain = b.integralGain;
    this.maxStepFraction = b.maxStepFraction;
    this.limitHeadroomFraction = b.limitHeadroomFraction;
    this.minRateLimitPerSec = b.minRateLimitPerSec;
    this.openAfterPeriods = b.openAfterPeriods;
    this.burstMs = b.burstMs;
    this.minRetryAfterMs = b.minRetryAfterMs;
    this.maxRetryAfterMs = b.maxRetryAfterMs;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The defaults. */
  public static AdmissionSettings defaults() {
    return builder().build();
  }

  public double targetSla() {
    return targetSla;
  }

  public double tauMs() {
    return tauMs;
  }

  public long controlPeriodMs() {
    return controlPeriodMs;
  }

  public long rateWindowMs() {
    return rateWindowMs;
  }

  public long slaWindowMs() {
    return slaWindowMs;
  }

  public long serviceWindowMs() {
    return serviceWindowMs;
  }

  public int minServiceSamples() {
    return minServiceSamples;
  }

  public double integralGain() {
    return integralGain;
  }

  public double maxStepFraction() {
    return maxStepFraction;
  }

  public double limitHeadroomFraction() {
    return limitHeadroomFraction;
  }

  public double minRateLimitPerSec() {
    return minRateLimitPerSec;
  }

  public int openAfterPeriods() {
    return openAfterPeriods;
  }

  public long burstMs() {
    return burstMs;
  }

  public long minRetryAfterMs() {
    return minRetryAfterMs;
  }

  public long maxRetryAfterMs() {
    return maxRetryAfterMs;
  }

  @Override
  public String toString() {
    return "AdmissionSettings[targetSla="
        + targetSla
        + ", tauMs="
        + tauMs
        + ", controlPeriodMs="
        + controlPeriodMs
        + ", rateWindowMs="
        + rateWindowMs
        + ", slaWindowMs="
        + slaWindowMs
        + ", serviceWindowMs="
        + serviceWindowMs
        + ", minServiceSamples="
        + minServiceSamples
        + ", integralGain="
        + integralGain
        + ", maxStepFraction="
        + maxStepFraction
        + ", limitHeadroomFraction="
        + limitHeadroomFraction
        + ", minRateLimitPerSec="
        + minRateLimitPerSec
        + ", openAfterPeriods="
        + openAfterPeriods
        + ", burstMs="
        + burstMs
        + ", retryAfterMs="
        + minRetryAfterMs
        + ".."
        + maxRetryAfterMs
        + "]";
  }

  /**
   * @throws IllegalArgumentException if {@code targetSla} is not in (0, 1) or {@code tauMs} is not
   *     positive and finite
   */
  static void checkTarget(double targetSla, double tauMs) {
    if (!(targetSla > 0 && targetSla < 1)) {
      throw new IllegalArgumentException("targetSla must be in (0, 1), was " + targetSla);
    }
    if (!(tauMs > 0) || Double.isInfinite(tauMs)) {
      throw new IllegalArgumentException("tauMs must be positive and finite, was " + tauMs);
    }
  }

  /** Builds {@link AdmissionSettings}; every setter validates its argument, naming it. */
  public static final class Builder {
    private double targetSla = DEFAULT_TARGET_SLA;
    private double tauMs = DEFAULT_TAU_MS;
    private long controlPeriodMs = DEFAULT_CONTROL_PERIOD_MS;
    private long rateWindowMs = DEFAULT_RATE_WINDOW_MS;
    private long slaWindowMs = DEFAULT_SLA_WINDOW_MS;
    private long serviceWindowMs = DEFAULT_SERVICE_WINDOW_MS;
    private int minServiceSamples = DEFAULT_MIN_SERVICE_SAMPLES;
    private double integralGain = DEFAULT_INTEGRAL_GAIN;
    private double maxStepFraction = DEFAULT_MAX_STEP_FRACTION;
    private double limitHeadroomFraction = DEFAULT_LIMIT_HEADROOM_FRACTION;
    private double minRateLimitPerSec = DEFAULT_MIN_RATE_LIMIT_PER_SEC;
    private int openAfterPeriods = DEFAULT_OPEN_AFTER_PERIODS;
    private long burstMs = DEFAULT_BURST_MS;
    private long minRetryAfterMs = DEFAULT_MIN_RETRY_AFTER_MS;
    private long maxRetryAfterMs = DEFAULT_MAX_RETRY_AFTER_MS;

    private Builder() {}

    /** The target SLA at tau, in (0, 1) (default {@value #DEFAULT_TARGET_SLA}). */
    public Builder targetSla(double targetSla) {
      checkTarget(targetSla, 1);
      this.targetSla = targetSla;
      return this;
    }

    /** The SLA's bound in milliseconds, positive (default {@value #DEFAULT_TAU_MS}). */
    public Builder tauMs(double tauMs) {
      checkTarget(0.5, tauMs);
      this.tauMs = tauMs;
      return this;
    }

    /**
     * Control period in milliseconds, 1 to 60,000 (default {@value #DEFAULT_CONTROL_PERIOD_MS}).
     */
    public Builder controlPeriodMs(long ms) {
      this.controlPeriodMs = range(ms, 1, 60_000, "controlPeriodMs");
      return this;
    }

    /**
     * Window of the offered and admitted rates in milliseconds (default {@value
     * #DEFAULT_RATE_WINDOW_MS}).
     */
    public Builder rateWindowMs(long ms) {
      this.rateWindowMs = range(ms, 1, 600_000, "rateWindowMs");
      return this;
    }

    /** Window of the observed SLA in milliseconds (default {@value #DEFAULT_SLA_WINDOW_MS}). */
    public Builder slaWindowMs(long ms) {
      this.slaWindowMs = range(ms, 1, 600_000, "slaWindowMs");
      return this;
    }

    /**
     * Window of the service-time distributions in milliseconds (default {@value
     * #DEFAULT_SERVICE_WINDOW_MS}).
     */
    public Builder serviceWindowMs(long ms) {
      this.serviceWindowMs = range(ms, 1, 3_600_000, "serviceWindowMs");
      return this;
    }

    /**
     * Samples the model needs before it is asked, 1 or more (default {@value
     * #DEFAULT_MIN_SERVICE_SAMPLES}).
     */
    public Builder minServiceSamples(int samples) {
      this.minServiceSamples = (int) range(samples, 1, Integer.MAX_VALUE, "minServiceSamples");
      return this;
    }

    /** Integral gain, in (0, 10] (default {@value #DEFAULT_INTEGRAL_GAIN}). */
    public Builder integralGain(double gain) {
      if (!(gain > 0 && gain <= 10)) {
        throw new IllegalArgumentException("integralGain must be in (0, 10], was " + gain);
      }
      this.integralGain = gain;
      return this;
    }

    /**
     * Largest change of the limit per period, a fraction in (0, 1] (default {@value
     * #DEFAULT_MAX_STEP_FRACTION}).
     */
    public Builder maxStepFraction(double fraction) {
      if (!(fraction > 0 && fraction <= 1)) {
        throw new IllegalArgumentException("maxStepFraction must be in (0, 1], was " + fraction);
      }
      this.maxStepFraction = fraction;
      return this;
    }

    /**
     * How far above the offered rate the limit may go, a fraction in [0, 10] (default {@value
     * #DEFAULT_LIMIT_HEADROOM_FRACTION}).
     */
    public Builder limitHeadroomFraction(double fraction) {
      if (!(fraction >= 0 && fraction <= 10)) {
        throw new IllegalArgumentException(
            "limitHeadroomFraction must be in [0, 10], was " + fraction);
      }
      this.limitHeadroomFraction = fraction;
      return this;
    }

    /**
     * Lowest rate limit, in writes per second, positive (default {@value
     * #DEFAULT_MIN_RATE_LIMIT_PER_SEC}).
     */
    public Builder minRateLimitPerSec(double perSec) {
      if (!(perSec > 0) || Double.isInfinite(perSec)) {
        throw new IllegalArgumentException(
            "minRateLimitPerSec must be positive and finite, was " + perSec);
      }
      this.minRateLimitPerSec = perSec;
      return this;
    }

    /**
     * Calm periods before limiting stops, 1 or more (default {@value #DEFAULT_OPEN_AFTER_PERIODS}).
     */
    public Builder openAfterPeriods(int periods) {
      this.openAfterPeriods = (int) range(periods, 1, 1_000_000, "openAfterPeriods");
      return this;
    }

    /** Token bucket burst, in milliseconds of the limit (default {@value #DEFAULT_BURST_MS}). */
    public Builder burstMs(long ms) {
      this.burstMs = range(ms, 1, 60_000, "burstMs");
      return this;
    }

    /** Bounds of the retry-after hint in milliseconds, {@code 1 <= min <= max <= 60,000}. */
    public Builder retryAfterMs(long minMs, long maxMs) {
      range(minMs, 1, 60_000, "minRetryAfterMs");
      range(maxMs, minMs, 60_000, "maxRetryAfterMs");
      this.minRetryAfterMs = minMs;
      this.maxRetryAfterMs = maxMs;
      return this;
    }

    public AdmissionSettings build() {
      return new AdmissionSettings(this);
    }

    private static long range(long value, long min, long max, String name) {
      if (value < min || value > max) {
        throw new IllegalArgumentException(
            name + " must be in [" + min + ", " + max + "], was " + value);
      }
      return value;
    }
  }
}
