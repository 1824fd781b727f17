package io.zoolander.server.repeater;

import io.zoolander.wire.Membership;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * The repeater's controller that follows the load: every {@link #periodMs()} it asks the model for
 * the SLA at {@link #tauMs()} that the duplicates would give at the measured write rate, and adds a
 * spare duplicate when the current set misses {@link #targetSla()}, or retires one when one fewer
 * would still meet the target with {@link #retireMargin()} to spare for {@link #retirePeriods()}
 * periods in a row; between {@link #minDuplicates()} and {@link #maxDuplicates()} (the node
 * budget), one change at a time, and none within {@link #cooldownMs()} of the last. It adds only
 * from its pool of {@linkplain #spares() spares} (provisioned ensembles that are not members) and
 * retires only members of that pool, the one it added last first. Off unless a repeater is built
 * with {@link Repeater.Builder#controller(ControllerSettings)}; refused together with admission
 * control. See {@code docs/operations.md}, "A controller that follows the load".
 *
 * <p>Immutable; build with {@link #builder()}. Every default is a named constant below; the units
 * are in the names.
 */
public final class ControllerSettings {
  /** Target SLA by default: fraction of writes the model predicts done within tau. */
  public static final double DEFAULT_TARGET_SLA = 0.99;

  /** The SLA's bound by default, in milliseconds (the repeater's predictor's default). */
  public static final double DEFAULT_TAU_MS = RepeaterSettings.DEFAULT_SLA_TAU_MS;

  /** How often the controller decides, in milliseconds. */
  public static final long DEFAULT_PERIOD_MS = 1_000;

  /**
   * How long after a change ends (done or failed) no other is started, in milliseconds: the samples
   * must show the new set before it is judged.
   */
  public static final long DEFAULT_COOLDOWN_MS = 30_000;

  /**
   * How far above the target the prediction for one duplicate fewer must be before one is retired:
   * the gap between the add and the retire thresholds that keeps the controller from flapping.
   */
  public static final double DEFAULT_RETIRE_MARGIN = 0.005;

  /** Consecutive periods one fewer duplicate must be predicted to suffice before one is retired. */
  public static final int DEFAULT_RETIRE_PERIODS = 10;

  /** Fewest duplicates the controller leaves serving. */
  public static final int DEFAULT_MIN_DUPLICATES = 1;

  /**
   * ACK latencies the predictor must hold before the controller decides: a prediction from a
   * handful of samples (the first writes after a start, slowed by a cold JVM) is no reason to add a
   * duplicate.
   */
  public static final int DEFAULT_MIN_SAMPLES = 100;

  /** Longest accepted period and cooldown: one hour. */
  public static final long MAX_MS = 3_600_000;

  private final double targetSla;
  private final double tauMs;
  private final long periodMs;
  private final long cooldownMs;
  private final double retireMargin;
  private final int retirePeriods;
  private final int minDuplicates;
  private final OptionalInt maxDuplicates;
  private final int minSamples;
  private final Map<Integer, String> spares;

  private ControllerSettings(Builder b) {
    this.targetSla = b.targetSla;
    this.tauMs = b.tauMs;
    this.periodMs = b.periodMs;
    this.cooldownMs = b.cooldownMs;
    this.retireMargin = b.retireMargin;
    this.retirePeriods = b.retirePeriods;
    this.minDuplicates = b.minDuplicates;
    this.maxDuplicates = b.maxDuplicates;
    this.minSamples = b.minSamples;
    this.spares = Collections.unmodifiableMap(new LinkedHashMap<>(b.spares));
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The fraction of writes the model must predict done within tau, in (0, 1). */
  public double targetSla() {
    return targetSla;
  }

  /** The SLA's bound, in milliseconds. */
  public double tauMs() {
    return tauMs;
  }

  /** How often the controller decides, in milliseconds. */
  public long periodMs() {
    return periodMs;
  }

  /** How long after a change ends no other starts, in milliseconds. */
  public long cooldownMs() {
    return cooldownMs;
  }

  /** How far above the target one duplicate fewer must be predicted before one is retired. */
  public double retireMargin() {
    return retireMargin;
  }

  /** Consecutive periods one fewer must be predicted to suffice before one is retired. */
  public int retirePeriods() {
    return retirePeriods;
  }

  /** Fewest duplicates the controller leaves serving. */
  public int minDuplicates() {
    return minDuplicates;
  }

  /**
   * Most duplicates the controller lets serve (the node budget, in duplicates); empty: the
   * configured duplicates plus the spares that are not configured.
   */
  public OptionalInt maxDuplicates() {
    return maxDuplicates;
  }

  /** ACK latencies the predictor must hold before the controller decides. */
  public int minSamples() {
    return minSamples;
  }

  /**
   * The pool: duplicates the controller may add (those that are not members) and retire (those that
   * are), by id, with their connect strings, in the order they were given: the first free one is
   * added first.
   */
  public Map<Integer, String> spares() {
    return spares;
  }

  @Override
  public String toString() {
    return "ControllerSettings[targetSla="
        + targetSla
        + ", tauMs="
        + tauMs
        + ", periodMs="
        + periodMs
        + ", cooldownMs="
        + cooldownMs
        + ", retireMargin="
        + retireMargin
        + ", retirePeriods="
        + retirePeriods
        + ", duplicates="
        + minDuplicates
        + ".."
        + (maxDuplicates.isPresent() ? maxDuplicates.getAsInt() : "configured+spares")
        + ", minSamples="
        + minSamples
        + ", spares="
        + spares
        + "]";
  }

  /** Builds {@link ControllerSettings}; every setter validates its argument, naming it. */
  public static final class Builder {
    private double targetSla = DEFAULT_TARGET_SLA;
    private double tauMs = DEFAULT_TAU_MS;
    private long periodMs = DEFAULT_PERIOD_MS;
    private long cooldownMs = DEFAULT_COOLDOWN_MS;
    private double retireMargin = DEFAULT_RETIRE_MARGIN;
    private int retirePeriods = DEFAULT_RETIRE_PERIODS;
    private int minDuplicates = DEFAULT_MIN_DUPLICATES;
    private OptionalInt maxDuplicates = OptionalInt.empty();
    private int minSamples = DEFAULT_MIN_SAMPLES;
    private final Map<Integer, String> spares = new LinkedHashMap<>();

    private Builder() {}

    /** The target SLA at tau, in (0, 1) (default {@value #DEFAULT_TARGET_SLA}). */
    public Builder targetSla(double targetSla) {
      if (!(targetSla > 0 && targetSla < 1)) {
        throw new IllegalArgumentException("targetSla must be in (0, 1), was " + targetSla);
      }
      this.targetSla = targetSla;
      return this;
    }

    /** The SLA's bound in milliseconds, positive and finite (default {@value #DEFAULT_TAU_MS}). */
    public Builder tauMs(double tauMs) {
      if (!(tauMs > 0) || Double.isInfinite(tauMs)) {
        throw new IllegalArgumentException("tauMs must be positive and finite, was " + tauMs);
      }
      this.tauMs = tauMs;
      return this;
    }

    /** How often it decides, 1 to {@value #MAX_MS} ms (default {@value #DEFAULT_PERIOD_MS}). */
    public Builder periodMs(long ms) {
      this.periodMs = range(ms, 1, MAX_MS, "periodMs");
      return this;
    }

    /**
     * Quiet time after each change, 0 to {@value #MAX_MS} ms (default {@value
     * #DEFAULT_COOLDOWN_MS}).
     */
    public Builder cooldownMs(long ms) {
      this.cooldownMs = range(ms, 0, MAX_MS, "cooldownMs");
      return this;
    }

    /**
     * Margin above the target for retiring, in [0, 1) (default {@value #DEFAULT_RETIRE_MARGIN}); a
     * target plus margin of 1 or more never retires.
     */
    public Builder retireMargin(double margin) {
      if (!(margin >= 0 && margin < 1)) {
        throw new IllegalArgumentException("retireMargin must be in [0, 1), was " + margin);
      }
      this.retireMargin = margin;
      return this;
    }

    /**
     * Consecutive periods before a retirement, 1 to 1,000,000 (default {@value
     * #DEFAULT_RETIRE_PERIODS}).
     */
    public Builder retirePeriods(int periods) {
      this.retirePeriods = (int) range(periods, 1, 1_000_000, "retirePeriods");
      return this;
    }

    /** Fewest duplicates serving, 1 or more (default {@value #DEFAULT_MIN_DUPLICATES}). */
    public Builder minDuplicates(int duplicates) {
      this.minDuplicates = (int) range(duplicates, 1, Integer.MAX_VALUE, "minDuplicates");
      return this;
    }

    /**
     * Most duplicates serving, the node budget in duplicates, 1 or more and at least {@code
     * minDuplicates} (default: the configured duplicates plus the spares that are not configured).
     */
    public Builder maxDuplicates(int duplicates) {
      this.maxDuplicates =
          OptionalInt.of((int) range(duplicates, 1, Integer.MAX_VALUE, "maxDuplicates"));
      return this;
    }

    /**
     * ACK latencies the predictor must hold before the controller decides, 1 to 1,000,000 (default
     * {@value #DEFAULT_MIN_SAMPLES}); fewer hold every decision ({@code no_samples}).
     */
    public Builder minSamples(int samples) {
      this.minSamples = (int) range(samples, 1, 1_000_000, "minSamples");
      return this;
    }

    /**
     * Adds duplicate {@code duplicateId} (its ensemble's {@code zoolander.duplicateId}, 1 or more)
     * at {@code connectString} to the pool. A configured duplicate may be given too: it may then be
     * retired (and added back).
     *
     * @throws IllegalArgumentException if the id is below 1, already in the pool, or the connect
     *     string is empty or holds spaces
     * @throws NullPointerException if {@code connectString} is null
     */
    public Builder spare(int duplicateId, String connectString) {
      Objects.requireNonNull(connectString, "spare connectString must not be null");
      try {
        new Membership.Member(duplicateId, Membership.State.JOINING, connectString);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("spare " + duplicateId + ": " + e.getMessage(), e);
      }
      if (spares.containsKey(duplicateId)) {
        throw new IllegalArgumentException(
            "spare: duplicate " + duplicateId + " is already in the pool");
      }
      spares.put(duplicateId, connectString);
      return this;
    }

    /**
     * The settings.
     *
     * @throws IllegalArgumentException if {@code maxDuplicates} is below {@code minDuplicates}
     */
    public ControllerSettings build() {
      if (maxDuplicates.isPresent() && maxDuplicates.getAsInt() < minDuplicates) {
        throw new IllegalArgumentException(
            "maxDuplicates must be at least minDuplicates ("
                + minDuplicates
                + "), was "
                + maxDuplicates.getAsInt());
      }
      return new ControllerSettings(this);
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
