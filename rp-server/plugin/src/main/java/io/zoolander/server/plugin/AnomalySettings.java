package io.zoolander.server.plugin;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * The settings of the plugin's <b>anomaly injector</b>, a test and demo tool that is off by
 * default: it slows down accesses on purpose, server-side, so that a client measures the slowdown
 * exactly like a real anomaly (a GC pause, an fsync stall). An operator turns it on at run time by
 * writing the {@code <base>/anomaly} znode in a duplicate's own ensemble (absent means off); each
 * duplicate has its own.
 *
 * <p>Syntax: UTF-8 {@code key=value} pairs separated by {@code ;}, for example {@code
 * probability=0.01;delayMs=50;distribution=pareto}. Keys (all optional):
 *
 * <ul>
 *   <li>{@code probability} (0..1, default 0): the chance that an access is slowed, independently
 *       per access and per duplicate;
 *   <li>{@code delayMs} (default 0): the mean extra delay of an independent anomaly, in
 *       milliseconds;
 *   <li>{@code distribution} ({@code fixed} | {@code exponential} | {@code pareto}, default fixed):
 *       how a delay is drawn around its mean; {@code paretoShape} (&gt; 1, default 2.5) is the
 *       Pareto tail index;
 *   <li>{@code commonProbability} (0..1, default 0) and {@code commonDelayMs} (default 0): a
 *       <em>common-mode</em> anomaly. Whether it hits, and how long it lasts, is a deterministic
 *       hash of ({@code seed}, seq) for a write and of ({@code seed}, clientId, requestId) for a
 *       read, so every duplicate with the same settings slows down the same access together (RP
 *       cannot mask it);
 *   <li>{@code seed} (a long, default 0): the seed of that hash;
 *   <li>{@code applies} ({@code reads} | {@code writes} | {@code both}, default both).
 * </ul>
 *
 * When both kinds hit the same access, their delays add up. A single delay is capped at {@link
 * #MAX_DELAY_MS}. A record that does not parse (an unknown key, a value out of range) is logged and
 * ignored: the injector is off.
 *
 * <p>A write that is hit stalls the plugin's applier before it is applied, and writes behind it
 * queue up; a read that is hit has its READ_REPLY sent late, without delaying other reads. Plain
 * ZooKeeper clients connected to the duplicate's leader suffer the same anomalies, so that they can
 * be compared fairly: a request of theirs that is hit (same probability, same delays; the
 * common-mode part keyed on (seed, session, xid)) is held that long before ZooKeeper processes it,
 * and the later requests of its session wait behind it, since ZooKeeper answers a session in order.
 *
 * @param probability chance of an independent anomaly per access
 * @param delayMs mean delay of an independent anomaly
 * @param distribution how delays are drawn
 * @param paretoShape Pareto tail index, used by {@link Distribution#PARETO}
 * @param commonProbability chance of a common-mode anomaly per access
 * @param commonDelayMs mean delay of a common-mode anomaly
 * @param seed seed of the common-mode hash
 * @param applies which accesses are slowed
 */
public record AnomalySettings(
    double probability,
    double delayMs,
    Distribution distribution,
    double paretoShape,
    double commonProbability,
    double commonDelayMs,
    long seed,
    Applies applies) {

  /** The injector off: nothing is slowed. */
  public static final AnomalySettings OFF =
      new AnomalySettings(0, 0, Distribution.FIXED, 2.5, 0, 0, 0, Applies.BOTH);

  /**
   * Upper bound of one injected delay, so that a heavy Pareto tail cannot stall a duplicate for
   * good.
   */
  public static final long MAX_DELAY_MS = 60_000;

  /** How a delay is drawn around its mean. */
  public enum Distribution {
    /** Always the mean. */
    FIXED,
    /** Exponential with that mean. */
    EXPONENTIAL,
    /**
     * Pareto with that mean and shape {@code paretoShape}: scale {@code mean * (shape - 1) /
     * shape}.
     */
    PARETO
  }

  /** Which accesses the injector slows. */
  public enum Applies {
    READS,
    WRITES,
    BOTH
  }

  /** Hash domains, so that a read and a write with equal numbers decide independently. */
  private static final long WRITE_DOMAIN = 0x5772697465L;

  private static final long READ_DOMAIN = 0x52656164L;
  private static final long CLIENT_READ_DOMAIN = 0x5a6b52656164L;
  private static final long CLIENT_WRITE_DOMAIN = 0x5a6b5772697465L;
  private static final long GOLDEN = 0x9E3779B97F4A7C15L;

  /**
   * @throws IllegalArgumentException if a value is out of range; the message names it
   */
  public AnomalySettings {
    unitInterval(probability, "probability");
    unitInterval(commonProbability, "commonProbability");
    delay(delayMs, "delayMs");
    delay(commonDelayMs, "commonDelayMs");
    Objects.requireNonNull(distribution, "distribution");
    Objects.requireNonNull(applies, "applies");
    if (!(paretoShape > 1) || Double.isInfinite(paretoShape)) {
      throw new IllegalArgumentException(
          "paretoShape must be a number > 1 (a finite mean), was " + paretoShape);
    }
  }

  /**
   * Parses a record of the {@code <base>/anomaly} znode.
   *
   * @throws IllegalArgumentException if it is malformed; the message says why
   */
  public static AnomalySettings parse(byte[] record) {
    return parse(new String(Objects.requireNonNull(record, "record"), StandardCharsets.UTF_8));
  }

  /**
   * Parses the text of an anomaly record.
   *
   * @throws IllegalArgumentException if it is malformed; the message says why
   */
  public static AnomalySettings parse(String text) {
    Map<String, String> fields = new HashMap<>();
    for (String part : text.split(";", -1)) { // empty parts are skipped below
      if (part.isBlank()) {
        continue;
      }
      int eq = part.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException("'" + part.trim() + "' is not key=value");
      }
      String key = part.substring(0, eq).trim();
      if (fields.put(key, part.substring(eq + 1).trim()) != null) {
        throw new IllegalArgumentException("key '" + key + "' appears twice");
      }
    }
    AnomalySettings d = OFF;
    double probability = number(fields.remove("probability"), d.probability, "probability");
    double delayMs = number(fields.remove("delayMs"), d.delayMs, "delayMs");
    Distribution distribution =
        choice(fields.remove("distribution"), d.distribution, Distribution.class, "distribution");
    double paretoShape = number(fields.remove("paretoShape"), d.paretoShape, "paretoShape");
    double commonProbability =
        number(fields.remove("commonProbability"), d.commonProbability, "commonProbability");
    double commonDelayMs = number(fields.remove("commonDelayMs"), d.commonDelayMs, "commonDelayMs");
    long seed;
    String seedText = fields.remove("seed");
    try {
      seed = seedText == null ? d.seed : Long.parseLong(seedText);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("seed must be a long, was '" + seedText + "'");
    }
    Applies applies = choice(fields.remove("applies"), d.applies, Applies.class, "applies");
    if (!fields.isEmpty()) {
      throw new IllegalArgumentException("unknown key(s) " + fields.keySet());
    }
    return new AnomalySettings(
        probability,
        delayMs,
        distribution,
        paretoShape,
        commonProbability,
        commonDelayMs,
        seed,
        applies);
  }

  /**
   * @return whether the injector slows anything at all
   */
  public boolean enabled() {
    return (probability > 0 && delayMs > 0) || (commonProbability > 0 && commonDelayMs > 0);
  }

  /**
   * @return whether reads may be slowed
   */
  public boolean appliesToReads() {
    return enabled() && applies != Applies.WRITES;
  }

  /**
   * @return whether writes may be slowed
   */
  public boolean appliesToWrites() {
    return enabled() && applies != Applies.READS;
  }

  /**
   * The common-mode delay of the write sequenced as {@code seq}: the same on every duplicate with
   * these settings.
   *
   * @return the delay in milliseconds, 0 if the write is not hit (or writes are not slowed)
   */
  public long commonWriteDelayMs(long seq) {
    if (!appliesToWrites() || commonProbability == 0) {
      return 0;
    }
    return common(hash(seed, WRITE_DOMAIN, seq, 0));
  }

  /**
   * The common-mode delay of read {@code requestId} of client {@code clientId}: the same on every
   * duplicate with these settings, which a client sends the same read to.
   *
   * @return the delay in milliseconds, 0 if the read is not hit (or reads are not slowed)
   */
  public long commonReadDelayMs(long clientId, long requestId) {
    if (!appliesToReads() || commonProbability == 0) {
      return 0;
    }
    return common(hash(seed, READ_DOMAIN, clientId, requestId));
  }

  /**
   * The common-mode delay of request {@code xid} of a plain ZooKeeper client's session {@code
   * sessionId}. The same on every duplicate with these settings, but a plain client's requests to
   * different ensembles are different sessions, so for them it acts like an independent anomaly of
   * probability {@code commonProbability}.
   *
   * @return the delay in milliseconds, 0 if the request is not hit (or its kind is not slowed)
   */
  public long commonRequestDelayMs(long sessionId, int xid, boolean write) {
    if (!(write ? appliesToWrites() : appliesToReads()) || commonProbability == 0) {
      return 0;
    }
    return common(hash(seed, write ? CLIENT_WRITE_DOMAIN : CLIENT_READ_DOMAIN, sessionId, xid));
  }

  private long common(long hash) {
    if (uniform(hash) >= commonProbability) {
      return 0;
    }
    return delay(commonDelayMs, uniform(mix(hash ^ GOLDEN)));
  }

  /**
   * The independent delay of one access, given two uniform draws in [0, 1).
   *
   * @param hit decides whether the access is hit ({@code hit < probability})
   * @param size draws the delay from the distribution
   * @return the delay in milliseconds, 0 if the access is not hit
   */
  public long independentDelayMs(double hit, double size) {
    return hit < probability ? delay(delayMs, size) : 0;
  }

  /**
   * @param mean the mean delay
   * @param u a uniform draw in [0, 1)
   * @return a delay drawn from {@link #distribution()} with that mean, rounded to milliseconds,
   *     capped at {@link #MAX_DELAY_MS}
   */
  public long delay(double mean, double u) {
    double ms =
        switch (distribution) {
          case FIXED -> mean;
          case EXPONENTIAL -> -mean * Math.log1p(-u);
          case PARETO -> mean * (paretoShape - 1) / paretoShape / Math.pow(1 - u, 1 / paretoShape);
        };
    return Math.min(MAX_DELAY_MS, Math.round(ms));
  }

  /**
   * @return the record in the znode's syntax, every key spelled out
   */
  @Override
  public String toString() {
    return "probability="
        + num(probability)
        + ";delayMs="
        + num(delayMs)
        + ";distribution="
        + distribution.name().toLowerCase(Locale.ROOT)
        + ";paretoShape="
        + num(paretoShape)
        + ";commonProbability="
        + num(commonProbability)
        + ";commonDelayMs="
        + num(commonDelayMs)
        + ";seed="
        + seed
        + ";applies="
        + applies.name().toLowerCase(Locale.ROOT);
  }

  // ---------------------------------------------------------------------------------------------

  /** A SplitMix64-style hash of the inputs: the same on every JVM. */
  static long hash(long seed, long domain, long a, long b) {
    long h = mix(seed + GOLDEN * domain);
    h = mix(h ^ a);
    return mix((h + GOLDEN) ^ b);
  }

  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  /**
   * @return the top 53 bits of {@code hash} as a double in [0, 1)
   */
  static double uniform(long hash) {
    return (hash >>> 11) * 0x1.0p-53;
  }

  private static String num(double value) {
    return value == Math.rint(value) && Math.abs(value) < 1e15
        ? Long.toString((long) value)
        : Double.toString(value);
  }

  private static void unitInterval(double value, String name) {
    if (!(value >= 0 && value <= 1)) {
      throw new IllegalArgumentException(name + " must be in 0..1, was " + value);
    }
  }

  private static void delay(double value, String name) {
    if (!(value >= 0 && value <= MAX_DELAY_MS)) {
      throw new IllegalArgumentException(
          name + " must be in 0.." + MAX_DELAY_MS + " ms, was " + value);
    }
  }

  private static double number(String text, double defaultValue, String name) {
    if (text == null) {
      return defaultValue;
    }
    try {
      return Double.parseDouble(text);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + " must be a number, was '" + text + "'");
    }
  }

  private static <E extends Enum<E>> E choice(
      String text, E defaultValue, Class<E> type, String name) {
    if (text == null) {
      return defaultValue;
    }
    for (E value : type.getEnumConstants()) {
      if (value.name().equalsIgnoreCase(text)) {
        return value;
      }
    }
    StringBuilder allowed = new StringBuilder();
    for (E value : type.getEnumConstants()) {
      allowed
          .append(allowed.length() == 0 ? "" : " | ")
          .append(value.name().toLowerCase(Locale.ROOT));
    }
    throw new IllegalArgumentException(name + " must be " + allowed + ", was '" + text + "'");
  }
}
