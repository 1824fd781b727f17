package io.zoolander.client.balance;

/**
 * When a {@link PartitionBalancer} moves names: a partition whose write rate is above {@link
 * #highMark()} of its capacity sheds its busiest name that fits elsewhere, and a partition whose
 * whole rate fits under {@link #lowMark()} of another's capacity for {@link #consolidatePeriods()}
 * periods in a row is drained into it, one name per move. Between moves, {@link #cooldownMs()}. The
 * gap between the marks is the hysteresis: a consolidation leaves the partition it fills below the
 * low mark, so well below the high one. A spare (a partition without writes) takes a name only
 * while fewer than {@link #maxServingPartitions()} partitions have writes: the node budget.
 *
 * <p>Immutable; build with {@link #builder()}. Every default is a named constant below; the units
 * are in the names.
 */
public final class BalancerSettings {
  /** The fraction of a partition's capacity above which it sheds names. */
  public static final double DEFAULT_HIGH_MARK = 0.8;

  /** The fraction of a partition's capacity under which another partition's names join it. */
  public static final double DEFAULT_LOW_MARK = 0.5;

  /** How often the balancer decides, in milliseconds. */
  public static final long DEFAULT_PERIOD_MS = 10_000;

  /**
   * How long after a move ends (done or failed) no other starts, in milliseconds: at least two of
   * the repeaters' rate windows (10 s by default), so that the rates show the move before the next
   * one is judged.
   */
  public static final long DEFAULT_COOLDOWN_MS = 30_000;

  /** Consecutive periods a consolidation must be possible before it starts. */
  public static final int DEFAULT_CONSOLIDATE_PERIODS = 6;

  /**
   * Most partitions with writes by default: no limit but the partitions there are. A spare (a
   * partition without writes) takes a name only while fewer partitions than this have writes.
   */
  public static final int DEFAULT_MAX_SERVING_PARTITIONS = Integer.MAX_VALUE;

  /** Longest accepted period and cooldown: one hour. */
  public static final long MAX_MS = 3_600_000;

  private final double highMark;
  private final double lowMark;
  private final long periodMs;
  private final long cooldownMs;
  private final int consolidatePeriods;
  private final int maxServingPartitions;

  private BalancerSettings(Builder b) {
    this.highMark = b.highMark;
    this.lowMark = b.lowMark;
    this.periodMs = b.periodMs;
    this.cooldownMs = b.cooldownMs;
    this.consolidatePeriods = b.consolidatePeriods;
    this.maxServingPartitions = b.maxServingPartitions;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The settings with every default. */
  public static BalancerSettings defaults() {
    return builder().build();
  }

  /** The fraction of a partition's capacity above which it sheds names, in (0, 1]. */
  public double highMark() {
    return highMark;
  }

  /** The fraction of a partition's capacity under which other partitions' names join it. */
  public double lowMark() {
    return lowMark;
  }

  /** How often the balancer decides, in milliseconds. */
  public long periodMs() {
    return periodMs;
  }

  /** How long after a move ends no other starts, in milliseconds. */
  public long cooldownMs() {
    return cooldownMs;
  }

  /** Consecutive periods a consolidation must be possible before it starts. */
  public int consolidatePeriods() {
    return consolidatePeriods;
  }

  /**
   * The node budget, in partitions: a spare takes a name only while fewer partitions than this have
   * writes.
   */
  public int maxServingPartitions() {
    return maxServingPartitions;
  }

  @Override
  public String toString() {
    return "BalancerSettings[highMark="
        + highMark
        + ", lowMark="
        + lowMark
        + ", periodMs="
        + periodMs
        + ", cooldownMs="
        + cooldownMs
        + ", consolidatePeriods="
        + consolidatePeriods
        + (maxServingPartitions == Integer.MAX_VALUE
            ? ""
            : ", maxServingPartitions=" + maxServingPartitions)
        + "]";
  }

  /** Builds {@link BalancerSettings}; every setter validates its argument, naming it. */
  public static final class Builder {
    private double highMark = DEFAULT_HIGH_MARK;
    private double lowMark = DEFAULT_LOW_MARK;
    private long periodMs = DEFAULT_PERIOD_MS;
    private long cooldownMs = DEFAULT_COOLDOWN_MS;
    private int consolidatePeriods = DEFAULT_CONSOLIDATE_PERIODS;
    private int maxServingPartitions = DEFAULT_MAX_SERVING_PARTITIONS;

    private Builder() {}

    /** In (0, 1] (default {@value #DEFAULT_HIGH_MARK}); above the low mark, checked by build. */
    public Builder highMark(double highMark) {
      this.highMark = fraction(highMark, "highMark");
      return this;
    }

    /** In (0, 1) (default {@value #DEFAULT_LOW_MARK}); below the high mark, checked by build. */
    public Builder lowMark(double lowMark) {
      this.lowMark = fraction(lowMark, "lowMark");
      return this;
    }

    /** Positive, at most an hour (default {@value #DEFAULT_PERIOD_MS}). */
    public Builder periodMs(long periodMs) {
      this.periodMs = millis(periodMs, "periodMs", 1);
      return this;
    }

    /** 0 to an hour (default {@value #DEFAULT_COOLDOWN_MS}). */
    public Builder cooldownMs(long cooldownMs) {
      this.cooldownMs = millis(cooldownMs, "cooldownMs", 0);
      return this;
    }

    /** At least 1 (default {@value #DEFAULT_CONSOLIDATE_PERIODS}). */
    public Builder consolidatePeriods(int consolidatePeriods) {
      if (consolidatePeriods < 1) {
        throw new IllegalArgumentException(
            "consolidatePeriods must be >= 1, was " + consolidatePeriods);
      }
      this.consolidatePeriods = consolidatePeriods;
      return this;
    }

    /** At least 1 (default: no limit). */
    public Builder maxServingPartitions(int maxServingPartitions) {
      if (maxServingPartitions < 1) {
        throw new IllegalArgumentException(
            "maxServingPartitions must be >= 1, was " + maxServingPartitions);
      }
      this.maxServingPartitions = maxServingPartitions;
      return this;
    }

    /**
     * @throws IllegalStateException if the low mark is not below the high mark
     */
    public BalancerSettings build() {
      if (!(lowMark < highMark)) {
        throw new IllegalStateException(
            "lowMark (" + lowMark + ") must be below highMark (" + highMark + ")");
      }
      return new BalancerSettings(this);
    }

    private static double fraction(double value, String name) {
      if (!(value > 0 && value <= 1)) {
        throw new IllegalArgumentException(name + " must be in (0, 1], was " + value);
      }
      return value;
    }

    private static long millis(long value, String name, long min) {
      if (value < min || value > MAX_MS) {
        throw new IllegalArgumentException(
            name + " must be " + min + " to " + MAX_MS + " ms, was " + value);
      }
      return value;
    }
  }
}
