package io.zoolander.server.bench;

import io.zoolander.server.plugin.AnomalySettings;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;

/**
 * Everything {@code zoolander bench} can be told. Immutable; built by {@link #builder()}, whose
 * setters validate their argument (the message names the setting) and whose {@link Builder#build()}
 * checks the settings together.
 */
public final class BenchSettings {

  /** How the replication-for-throughput system spreads reads over its ensembles. */
  public enum Balance {
    ROUND_ROBIN,
    RANDOM
  }

  public static final int DEFAULT_DUPLICATES = 4;
  public static final List<Integer> DEFAULT_RP_COUNTS = List.of(1, 2, 4);
  public static final double DEFAULT_RATE_PER_SEC = 500;
  public static final double DEFAULT_READ_FRACTION = 0.9;
  public static final int DEFAULT_SECONDS = 15;
  public static final int DEFAULT_WARMUP_SECONDS = 2;
  public static final int DEFAULT_ROUNDS = 15;
  public static final int DEFAULT_JVM_WARMUP_SECONDS = 6;

  /**
   * Accesses (half reads, half writes) each of Zoolander and plain ZooKeeper gets from a closed
   * loop after the open-loop JVM warm-up: at the bench's rate the writes alone (a tenth of 400/s)
   * are too few for the JIT to compile the write path, which plain ZooKeeper's reads share with its
   * writes and Zoolander's do not.
   */
  public static final int DEFAULT_JVM_WARMUP_ACCESSES = 20_000;

  /** Accesses the closed-loop JVM warm-up keeps in flight. */
  public static final int JVM_WARMUP_OUTSTANDING = 16;

  /**
   * Then at most this long of turns through Zoolander and plain ZooKeeper until the JIT compilers
   * of every JVM are quiet ({@link JitWarmup}): on 2 cores the fresh JVMs were still compiling
   * during the first half of the measured rounds, at up to a quarter of a core.
   */
  public static final int DEFAULT_JIT_WARMUP_MAX_SECONDS = 120;

  public static final long DEFAULT_MAX_ACCESSES = 1_000_000;
  public static final int DEFAULT_MAX_OUTSTANDING = 1_000;
  public static final int DEFAULT_KEYS = 100;
  public static final int DEFAULT_VALUE_BYTES = 1_024;
  public static final int DEFAULT_SESSIONS = 4;
  public static final double DEFAULT_HEDGE_PERCENTILE = 95;

  /**
   * The hedge delays, besides {@link #DEFAULT_HEDGE_PERCENTILE}, of the extra hedged systems that
   * put hedging on the cost/benefit frontier at several extra loads.
   */
  public static final List<Double> DEFAULT_FRONTIER_HEDGE_PERCENTILES = List.of(50.0, 90.0);

  public static final int DEFAULT_LOOPBACK_SECONDS = 3;

  /**
   * GC-pause-like: 3% of the accesses of each duplicate, independently, take an extra Exp(20 ms).
   */
  public static final String DEFAULT_ANOMALY =
      "probability=0.03;delayMs=20;distribution=exponential";

  public static final double DEFAULT_HEAP_RATE_PER_SEC = 10_000;
  public static final int DEFAULT_HEAP_SECONDS = 10;
  public static final int DEFAULT_HEAP_SAMPLE_MS = 1_000;

  private final int duplicates;
  private final int serversPerDuplicate;
  private final List<Integer> rpCounts;
  private final double ratePerSec;
  private final double readFraction;
  private final int seconds;
  private final int warmupSeconds;
  private final int rounds;
  private final int jvmWarmupSeconds;
  private final int jvmWarmupAccesses;
  private final int jitWarmupMaxSeconds;
  private final long maxAccesses;
  private final int maxOutstanding;
  private final int keys;
  private final int valueBytes;
  private final int sessions;
  private final Balance balance;
  private final double hedgePercentile;
  private final List<Double> frontierHedgePercentiles;
  private final int loopbackSeconds;
  private final String anomaly;
  private final double heapRatePerSec;
  private final int heapSeconds;
  private final int heapSampleMs;
  private final boolean fsync;
  private final Map<String, String> repeaterSettings;
  private final boolean traceWrites;
  private final long seed;
  private final Path out;

  private BenchSettings(Builder b) {
    duplicates = b.duplicates;
    serversPerDuplicate = b.serversPerDuplicate;
    rpCounts = List.copyOf(new TreeSet<>(b.rpCounts));
    ratePerSec = b.ratePerSec;
    readFraction = b.readFraction;
    seconds = b.seconds;
    warmupSeconds = b.warmupSeconds;
    rounds = b.rounds;
    jvmWarmupSeconds = b.jvmWarmupSeconds;
    jvmWarmupAccesses = b.jvmWarmupAccesses;
    jitWarmupMaxSeconds = b.jitWarmupMaxSeconds;
    maxAccesses = b.maxAccesses;
    maxOutstanding = b.maxOutstanding;
    keys = b.keys;
    valueBytes = b.valueBytes;
    sessions = b.sessions;
    balance = b.balance;
    hedgePercentile = b.hedgePercentile;
    frontierHedgePercentiles =
        b.frontierHedgePercentiles.stream()
            .filter(p -> p != b.hedgePercentile)
            .distinct()
            .sorted()
            .toList();
    loopbackSeconds = b.loopbackSeconds;
    anomaly = b.anomaly;
    heapRatePerSec = b.heapRatePerSec;
    heapSeconds = b.heapSeconds;
    heapSampleMs = b.heapSampleMs;
    fsync = b.fsync;
    repeaterSettings = b.repeaterSettings;
    traceWrites = b.traceWrites;
    seed = b.seed;
    out = b.out;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Duplicates started: the ensembles every system uses (plain ZooKeeper uses the first). */
  public int duplicates() {
    return duplicates;
  }

  public int serversPerDuplicate() {
    return serversPerDuplicate;
  }

  /** Duplicate counts Zoolander RP runs with, ascending. */
  public List<Integer> rpCounts() {
    return rpCounts;
  }

  public double ratePerSec() {
    return ratePerSec;
  }

  public double readFraction() {
    return readFraction;
  }

  /** Measured seconds per system and condition (over all rounds). */
  public int seconds() {
    return seconds;
  }

  public int warmupSeconds() {
    return warmupSeconds;
  }

  /**
   * Slices each system's measured time is cut into; every round measures each system for one slice,
   * so that all systems sample the same stretch of the machine's (drifting) background load.
   */
  public int rounds() {
    return rounds;
  }

  /**
   * Seconds of unrecorded load through Zoolander and through plain ZooKeeper, each, before the
   * first run, so that every JVM has compiled its hot paths (0: none).
   */
  public int jvmWarmupSeconds() {
    return jvmWarmupSeconds;
  }

  /** Accesses of the closed-loop JVM warm-up, each system; 0 for none. */
  public int jvmWarmupAccesses() {
    return jvmWarmupAccesses;
  }

  /** The longest JIT warm-up ({@link JitWarmup}) after the JVM warm-up; 0 for none. */
  public int jitWarmupMaxSeconds() {
    return jitWarmupMaxSeconds;
  }

  /**
   * Bound on the measured accesses of one system in one condition, split evenly over the rounds.
   */
  public long maxAccesses() {
    return maxAccesses;
  }

  /**
   * Accesses in flight at most; arrivals beyond are dropped and counted, so an overloaded system
   * sheds load instead of queueing without bound (its requests would time out and be retried).
   */
  public int maxOutstanding() {
    return maxOutstanding;
  }

  public int keys() {
    return keys;
  }

  public int valueBytes() {
    return valueBytes;
  }

  /** Plain ZooKeeper sessions per ensemble. */
  public int sessions() {
    return sessions;
  }

  public Balance balance() {
    return balance;
  }

  /**
   * The percentile of unhedged read latency (measured in warm-up) after which a hedged read asks a
   * second ensemble.
   */
  public double hedgePercentile() {
    return hedgePercentile;
  }

  /**
   * Percentiles of unhedged read latency of the extra hedged systems ({@code hedged-pP}),
   * ascending, without {@link #hedgePercentile()} (that one is {@code hedged}); empty: none.
   */
  public List<Double> frontierHedgePercentiles() {
    return frontierHedgePercentiles;
  }

  /** Seconds of the Netty loopback round-trip measurement; 0 skips it. */
  public int loopbackSeconds() {
    return loopbackSeconds;
  }

  /** The anomaly injector's record for every duplicate, or null: no runs with the injector. */
  public String anomaly() {
    return anomaly;
  }

  public double heapRatePerSec() {
    return heapRatePerSec;
  }

  /** Seconds of the heap phase; 0 skips it. */
  public int heapSeconds() {
    return heapSeconds;
  }

  public int heapSampleMs() {
    return heapSampleMs;
  }

  public boolean fsync() {
    return fsync;
  }

  /**
   * Whether the client, the repeater and the plugins record when sampled writes pass each stage
   * ({@code WriteTrace}); the bench then reports where a write's time goes ({@code
   * --trace-writes}).
   */
  public boolean traceWrites() {
    return traceWrites;
  }

  /** Further entries of the child repeater's properties file ({@code --repeater-setting}). */
  public Map<String, String> repeaterSettings() {
    return repeaterSettings;
  }

  public long seed() {
    return seed;
  }

  /** Where the results go; null: a new temporary directory. */
  public Path out() {
    return out;
  }

  /** Builds {@link BenchSettings}; defaults are the {@code DEFAULT_*} constants. */
  public static final class Builder {
    private int duplicates = DEFAULT_DUPLICATES;
    private int serversPerDuplicate = 1;
    private Map<String, String> repeaterSettings = Map.of();
    private boolean traceWrites;
    private List<Integer> rpCounts = DEFAULT_RP_COUNTS;
    private double ratePerSec = DEFAULT_RATE_PER_SEC;
    private double readFraction = DEFAULT_READ_FRACTION;
    private int seconds = DEFAULT_SECONDS;
    private int warmupSeconds = DEFAULT_WARMUP_SECONDS;
    private int rounds = DEFAULT_ROUNDS;
    private int jvmWarmupSeconds = DEFAULT_JVM_WARMUP_SECONDS;
    private int jvmWarmupAccesses = DEFAULT_JVM_WARMUP_ACCESSES;
    private int jitWarmupMaxSeconds = DEFAULT_JIT_WARMUP_MAX_SECONDS;
    private long maxAccesses = DEFAULT_MAX_ACCESSES;
    private int maxOutstanding = DEFAULT_MAX_OUTSTANDING;
    private int keys = DEFAULT_KEYS;
    private int valueBytes = DEFAULT_VALUE_BYTES;
    private int sessions = DEFAULT_SESSIONS;
    private Balance balance = Balance.ROUND_ROBIN;
    private double hedgePercentile = DEFAULT_HEDGE_PERCENTILE;
    private List<Double> frontierHedgePercentiles = DEFAULT_FRONTIER_HEDGE_PERCENTILES;
    private int loopbackSeconds = DEFAULT_LOOPBACK_SECONDS;
    private String anomaly = DEFAULT_ANOMALY;
    private double heapRatePerSec = DEFAULT_HEAP_RATE_PER_SEC;
    private int heapSeconds = DEFAULT_HEAP_SECONDS;
    private int heapSampleMs = DEFAULT_HEAP_SAMPLE_MS;
    private boolean fsync;
    private long seed = 1;
    private Path out;

    private Builder() {}

    /**
     * Small counts for a smoke run or a test: 200 accesses/s, 1 s and 500 accesses of JVM warm-up
     * and no JIT warm-up, 1 s warm-up and 1 s per system in 2 rounds, heap phase of 2 s at 300/s, 1
     * s of loopback round trips.
     */
    public Builder quick() {
      ratePerSec = 200;
      seconds = 1;
      warmupSeconds = 1;
      jvmWarmupSeconds = 1;
      jvmWarmupAccesses = 500;
      jitWarmupMaxSeconds = 0;
      rounds = 2;
      keys = 10;
      heapRatePerSec = 300;
      heapSeconds = 2;
      heapSampleMs = 500;
      loopbackSeconds = 1;
      return this;
    }

    public Builder duplicates(int duplicates) {
      check(duplicates >= 1 && duplicates <= 8, "duplicates must be in 1..8, was " + duplicates);
      this.duplicates = duplicates;
      return this;
    }

    public Builder serversPerDuplicate(int servers) {
      check(
          servers == 1 || servers == 3 || servers == 5,
          "servers per duplicate must be 1, 3 or 5, was " + servers);
      this.serversPerDuplicate = servers;
      return this;
    }

    public Builder rpCounts(List<Integer> counts) {
      Objects.requireNonNull(counts, "rp counts must not be null");
      check(!counts.isEmpty(), "rp counts must name at least one duplicate count");
      for (Integer n : counts) {
        check(n != null && n >= 1, "every rp count must be >= 1, was " + n);
      }
      this.rpCounts = List.copyOf(counts);
      return this;
    }

    public Builder ratePerSec(double rate) {
      check(rate > 0 && rate <= 100_000, "rate must be in (0, 100000] per second, was " + rate);
      this.ratePerSec = rate;
      return this;
    }

    public Builder readFraction(double fraction) {
      check(fraction > 0 && fraction <= 1, "read fraction must be in (0, 1], was " + fraction);
      this.readFraction = fraction;
      return this;
    }

    public Builder seconds(int seconds) {
      check(seconds >= 1 && seconds <= 3_600, "seconds must be in 1..3600, was " + seconds);
      this.seconds = seconds;
      return this;
    }

    public Builder warmupSeconds(int seconds) {
      check(
          seconds >= 1 && seconds <= 600,
          "warm-up seconds must be in 1..600 (hedging measures its delay then), was " + seconds);
      this.warmupSeconds = seconds;
      return this;
    }

    public Builder rounds(int rounds) {
      check(rounds >= 1 && rounds <= 100, "rounds must be in 1..100, was " + rounds);
      this.rounds = rounds;
      return this;
    }

    public Builder jvmWarmupSeconds(int seconds) {
      check(
          seconds >= 0 && seconds <= 600, "JVM warm-up seconds must be in 0..600, was " + seconds);
      this.jvmWarmupSeconds = seconds;
      return this;
    }

    public Builder jvmWarmupAccesses(int accesses) {
      check(
          accesses >= 0 && accesses <= 10_000_000,
          "JVM warm-up accesses must be in 0..10000000, was " + accesses);
      this.jvmWarmupAccesses = accesses;
      return this;
    }

    public Builder jitWarmupMaxSeconds(int seconds) {
      check(
          seconds >= 0 && seconds <= 3_600,
          "JIT warm-up max seconds must be in 0..3600, was " + seconds);
      this.jitWarmupMaxSeconds = seconds;
      return this;
    }

    public Builder maxAccesses(long max) {
      check(max >= 1, "max accesses must be >= 1, was " + max);
      this.maxAccesses = max;
      return this;
    }

    public Builder maxOutstanding(int max) {
      check(max >= 1 && max <= 100_000, "max outstanding must be in 1..100000, was " + max);
      this.maxOutstanding = max;
      return this;
    }

    public Builder keys(int keys) {
      check(keys >= 1 && keys <= 100_000, "keys must be in 1..100000, was " + keys);
      this.keys = keys;
      return this;
    }

    public Builder valueBytes(int bytes) {
      check(bytes >= 0 && bytes <= 500_000, "value bytes must be in 0..500000, was " + bytes);
      this.valueBytes = bytes;
      return this;
    }

    public Builder sessions(int sessions) {
      check(sessions >= 1 && sessions <= 64, "sessions must be in 1..64, was " + sessions);
      this.sessions = sessions;
      return this;
    }

    public Builder balance(Balance balance) {
      this.balance = Objects.requireNonNull(balance, "balance must not be null");
      return this;
    }

    public Builder hedgePercentile(double percentile) {
      check(
          percentile > 0 && percentile < 100,
          "hedge percentile must be in (0, 100), was " + percentile);
      this.hedgePercentile = percentile;
      return this;
    }

    public Builder frontierHedgePercentiles(List<Double> percentiles) {
      Objects.requireNonNull(percentiles, "frontier hedge percentiles must not be null");
      for (Double p : percentiles) {
        check(
            p != null && p > 0 && p < 100,
            "every frontier hedge percentile must be in (0, 100), was " + p);
      }
      this.frontierHedgePercentiles = List.copyOf(percentiles);
      return this;
    }

    public Builder loopbackSeconds(int seconds) {
      check(seconds >= 0 && seconds <= 600, "loopback seconds must be in 0..600, was " + seconds);
      this.loopbackSeconds = seconds;
      return this;
    }

    /**
     * The anomaly injector's record ({@link AnomalySettings} syntax) for every duplicate in the
     * runs with anomalies; null for no such runs.
     */
    public Builder anomaly(String record) {
      if (record != null) {
        try {
          check(
              AnomalySettings.parse(record).enabled(),
              "anomaly '" + record + "' slows nothing; use 'none' instead");
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException("anomaly: " + e.getMessage(), e);
        }
      }
      this.anomaly = record;
      return this;
    }

    public Builder heapRatePerSec(double rate) {
      check(
          rate > 0 && rate <= 100_000, "heap rate must be in (0, 100000] per second, was " + rate);
      this.heapRatePerSec = rate;
      return this;
    }

    public Builder heapSeconds(int seconds) {
      check(seconds >= 0 && seconds <= 3_600, "heap seconds must be in 0..3600, was " + seconds);
      this.heapSeconds = seconds;
      return this;
    }

    public Builder heapSampleMs(int ms) {
      check(ms >= 100 && ms <= 60_000, "heap sample interval must be in 100..60000 ms, was " + ms);
      this.heapSampleMs = ms;
      return this;
    }

    public Builder fsync(boolean fsync) {
      this.fsync = fsync;
      return this;
    }

    /** Whether to trace where sequenced writes spend their time ({@link #traceWrites()}). */
    public Builder traceWrites(boolean traceWrites) {
      this.traceWrites = traceWrites;
      return this;
    }

    /**
     * Further entries of the child repeater's properties file, e.g. {@code clientIoThreads=0}.
     *
     * @throws IllegalArgumentException if a key is not a repeater setting or is one the bench sets
     */
    public Builder repeaterSettings(Map<String, String> settings) {
      this.repeaterSettings =
          ChildRepeater.checkSettings(
              Objects.requireNonNull(settings, "repeaterSettings must not be null"));
      return this;
    }

    public Builder seed(long seed) {
      this.seed = seed;
      return this;
    }

    public Builder out(Path dir) {
      this.out = Objects.requireNonNull(dir, "out must not be null");
      return this;
    }

    /**
     * @throws IllegalArgumentException if the settings do not fit together
     */
    public BenchSettings build() {
      check(
          seconds * 1000L / rounds >= 100,
          "seconds / rounds must be at least 0.1 s, was " + seconds + " / " + rounds);
      for (int n : rpCounts) {
        check(
            n <= duplicates,
            "every rp count must be in 1.." + duplicates + " (the duplicates started), was " + n);
      }
      return new BenchSettings(this);
    }

    private static void check(boolean ok, String message) {
      if (!ok) {
        throw new IllegalArgumentException(message);
      }
    }
  }
}
