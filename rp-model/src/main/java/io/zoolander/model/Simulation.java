package io.zoolander.model;

import static io.zoolander.model.internal.Preconditions.checkNotNull;
import static io.zoolander.model.internal.Preconditions.checkPositive;
import static io.zoolander.model.internal.Preconditions.checkProbability;

import io.zoolander.model.internal.SplittableRandomGenerator;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.commons.math3.random.RandomGenerator;

/**
 * A seeded discrete-event simulation of a {@link Strategy}: the reference the model's formulas are
 * checked against.
 *
 * <p>What is simulated:
 *
 * <ul>
 *   <li>One arrival stream: Poisson at {@link Builder#arrivalRatePerSec(double)}, or a renewal
 *       process whose gaps follow {@link Builder#interArrivalTime(LatencyDistribution)}.
 *   <li>Each arrival goes to one of the strategy's {@link Strategy#replicaSets() replica sets},
 *       chosen uniformly at random, so with Poisson arrivals each set sees a Poisson stream of rate
 *       {@code lambda / replicaSets}.
 *   <li>Every {@link Strategy#duplicatesPerSet() duplicate} of that set serves the access. Each
 *       duplicate is a FIFO single server (Lindley's recursion: {@code start = max(arrival,
 *       freeAt)}, {@code finish = start + service}); a duplicate keeps serving an access even after
 *       another duplicate has answered it (no cancellation).
 *   <li>A duplicate's reply arrives {@code finish - arrival + network} after the access was issued,
 *       the network round trip drawn independently per duplicate; the access's response time is the
 *       first reply (the minimum).
 *   <li>Optionally ({@link Builder#commonMode}) an access is slowed on every duplicate of its set
 *       at once by the same extra service time: the shared-hardware slowdowns replication for
 *       predictability cannot mask.
 *   <li>The first {@link Builder#warmupAccesses(long) warm-up} accesses are simulated but not
 *       recorded.
 * </ul>
 *
 * <p>Node {@code n} is duplicate {@code n % duplicatesPerSet} of set {@code n / duplicatesPerSet}.
 *
 * <p><b>Reproducibility.</b> {@link #run()} is a pure function of the configuration: the same seed
 * gives bit-identical results, every call (on a given JDK: Gaussian draws use the JDK's algorithm).
 * Each random source (arrival gaps, set choice, common mode, and each node's service time and
 * network delay) has its own generator, split in a fixed order from one {@link
 * java.util.SplittableRandom} seeded with {@link Builder#seed(long)}; a node's generators depend
 * only on its index. So simulations that differ in one input share the draws of the others (common
 * random numbers): changing the network delay leaves every service time unchanged, and RP with 3
 * duplicates serves the same accesses with the same service times as RP with 2 on its first two
 * nodes. This makes comparisons between configurations far less noisy than independent runs.
 *
 * <p>Instances are immutable and thread-safe; {@link #run()} may be called concurrently. A run
 * allocates nothing per access: a million accesses to 4 duplicates take about 0.2 s, half of it
 * sorting the response times. It keeps {@code 8 * accesses} bytes of response times plus {@code 8 *
 * duplicatesPerSet * min(accesses, pairedSampleLimit)} bytes of paired service times.
 *
 * <pre>{@code
 * SimulationResult r = Simulation.builder()
 *     .strategy(Strategy.predictability(4))
 *     .serviceTime(LatencyDistributions.logNormalWithMean(0.4, 2))
 *     .arrivalRatePerSec(1000)
 *     .networkDelay(LatencyDistributions.constant(0.05))
 *     .accesses(1_000_000)
 *     .seed(42)
 *     .build()
 *     .run();
 * double sla = r.sla(1.0);
 * }</pre>
 */
public final class Simulation {
  /** Largest number of recorded accesses: their response times are kept in one array. */
  public static final long MAX_ACCESSES = Integer.MAX_VALUE - 8;

  static final long DEFAULT_ACCESSES = 100_000;
  static final long DEFAULT_WARMUP_ACCESSES = 1_000;
  static final int DEFAULT_PAIRED_SAMPLE_LIMIT = 100_000;
  static final long DEFAULT_SEED = 1;
  private static final LatencyDistribution NO_NETWORK_DELAY = LatencyDistributions.constant(0);

  /**
   * Simulated time after which the clock is rebased to 0 (keeps about 1e-10 ms of precision on
   * every duration).
   */
  private static final double REBASE_AFTER_MS = 1e6;

  private final Strategy strategy;
  private final LatencyDistribution serviceTime; // null when serviceTimes is used
  private final List<LatencyDistribution> serviceTimes; // null when serviceTime is used
  private final LatencyDistribution[] perNodeService; // resolved: one per node
  private final double arrivalRatePerSec; // NaN when interArrivalTime is used
  private final LatencyDistribution interArrivalTime; // null when arrivalRatePerSec is used
  private final LatencyDistribution networkDelay;
  private final double commonModeProbability;
  private final LatencyDistribution commonModeExtraDelay; // null when no common mode
  private final long accesses;
  private final long warmupAccesses;
  private final int pairedSampleLimit;
  private final long seed;

  private Simulation(Builder b) {
    this.strategy = b.strategy;
    this.serviceTime = b.serviceTime;
    this.serviceTimes = b.serviceTimes;
    this.arrivalRatePerSec = b.arrivalRatePerSec;
    this.interArrivalTime = b.interArrivalTime;
    this.networkDelay = b.networkDelay;
    this.commonModeProbability = b.commonModeProbability;
    this.commonModeExtraDelay = b.commonModeExtraDelay;
    this.accesses = b.accesses;
    this.warmupAccesses = b.warmupAccesses;
    this.pairedSampleLimit = b.pairedSampleLimit;
    this.seed = b.seed;
    this.perNodeService = new LatencyDistribution[strategy.nodes()];
    for (int n = 0; n < perNodeService.length; n++) {
      perNodeService[n] = serviceTime != null ? serviceTime : serviceTimes.get(n);
    }
  }

  /**
   * A builder with the defaults: no network delay, no common mode, 100 000 accesses after 1 000
   * warm-up, seed 1.
   */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder holding this simulation's configuration, e.g. to sweep one parameter. */
  public Builder toBuilder() {
    return new Builder(this);
  }

  /** The strategy simulated. */
  public Strategy strategy() {
    return strategy;
  }

  /** Recorded accesses per run (warm-up excluded). */
  public long accesses() {
    return accesses;
  }

  /** Accesses simulated before recording starts. */
  public long warmupAccesses() {
    return warmupAccesses;
  }

  /** The seed every random source of a run is derived from. */
  public long seed() {
    return seed;
  }

  /**
   * Runs the simulation. Deterministic: every call with the same configuration returns identical
   * results.
   *
   * @throws IllegalStateException if a distribution draws a negative, NaN or infinite latency (a
   *     broken custom {@link LatencyDistribution})
   */
  public SimulationResult run() {
    final int d = strategy.duplicatesPerSet();
    final int sets = strategy.replicaSets();
    final int nodes = strategy.nodes();

    // Independent generators per source; a node's seeds depend only on its index (see the class
    // javadoc).
    SplittableRandomGenerator root = new SplittableRandomGenerator(seed);
    final RandomGenerator arrivalRng = root.split();
    final RandomGenerator routingRng = root.split();
    final RandomGenerator commonRng = root.split();
    final RandomGenerator[] serviceRng = new RandomGenerator[nodes];
    final RandomGenerator[] networkRng = new RandomGenerator[nodes];
    for (int n = 0; n < nodes; n++) {
      serviceRng[n] = root.split();
      networkRng[n] = root.split();
    }

    final LatencyDistribution[] service = perNodeService;
    final LatencyDistribution network = networkDelay;
    final boolean poisson = interArrivalTime == null;
    final double meanGapMs = poisson ? 1000.0 / arrivalRatePerSec : Double.NaN;
    final double commonP = commonModeProbability;
    final LatencyDistribution commonExtra = commonModeExtraDelay;

    final double[] freeAt = new double[nodes];
    final double[] busyMs = new double[nodes];
    final double[] waitMs = new double[nodes];
    final long[] served = new long[nodes];
    final int recorded = (int) accesses;
    final double[] responses = new double[recorded];
    final int pairedRows = (int) Math.min(pairedSampleLimit, accesses);
    final double[] paired = new double[pairedRows * d];

    final long total = warmupAccesses + accesses;
    // Times are kept relative to 'origin', rebased now and then, so that finish - arrival keeps
    // full precision
    // however long the simulated time grows.
    double origin = 0;
    double t = 0;
    double windowStart = 0;
    for (long i = 0; i < total; i++) {
      final double gap =
          poisson
              ? -meanGapMs * Math.log(1 - arrivalRng.nextDouble())
              : interArrivalTime.sample(arrivalRng);
      t += checkDraw(gap, "interArrivalTime");
      if (t > REBASE_AFTER_MS) {
        for (int n = 0; n < nodes; n++) {
          freeAt[n] -= t;
        }
        origin += t;
        t = 0;
      }
      final int set = sets == 1 ? 0 : routingRng.nextInt(sets);
      double extra = 0;
      if (commonP > 0 && commonRng.nextDouble() < commonP) {
        extra = checkDraw(commonExtra.sample(commonRng), "commonMode extraDelay");
      }
      final long k = i - warmupAccesses; // index among recorded accesses, negative during warm-up
      if (k == 0) {
        // The measurement window opens: count the warm-up backlog still ahead of each node as busy
        // time in it.
        windowStart = origin + t;
        for (int n = 0; n < nodes; n++) {
          busyMs[n] = Math.max(0, freeAt[n] - t);
        }
      }
      double first = Double.POSITIVE_INFINITY;
      final int base = set * d;
      for (int j = 0; j < d; j++) {
        final int n = base + j;
        final double s = checkDraw(service[n].sample(serviceRng[n]), "serviceTime") + extra;
        final double start = Math.max(t, freeAt[n]);
        final double finish = start + s;
        freeAt[n] = finish;
        final double reply = finish - t + checkDraw(network.sample(networkRng[n]), "networkDelay");
        if (reply < first) {
          first = reply;
        }
        if (k >= 0) {
          waitMs[n] += start - t;
          busyMs[n] += s;
          served[n]++;
          if (k < pairedRows) {
            paired[(int) k * d + j] = s;
          }
        }
      }
      if (k >= 0) {
        responses[(int) k] = first;
      }
    }

    // The window during which all recorded work happens: from the first recorded arrival until
    // every node is idle.
    double end = t;
    for (double f : freeAt) {
      end = Math.max(end, f);
    }
    return new SimulationResult(
        strategy,
        responses,
        paired,
        pairedRows,
        waitMs,
        busyMs,
        served,
        origin + end - windowStart);
  }

  private static double checkDraw(double value, String source) {
    if (!(value >= 0 && value < Double.POSITIVE_INFINITY)) {
      throw new IllegalStateException(
          source + " drew " + value + ": latencies must be finite and >= 0");
    }
    return value;
  }

  @Override
  public String toString() {
    return "Simulation["
        + strategy
        + ", service="
        + (serviceTime != null ? serviceTime : serviceTimes)
        + ", arrivals="
        + (interArrivalTime == null
            ? "Poisson(" + arrivalRatePerSec + "/s)"
            : "renewal(" + interArrivalTime + ")")
        + ", network="
        + networkDelay
        + (commonModeExtraDelay == null
            ? ""
            : ", commonMode=" + commonModeProbability + " x " + commonModeExtraDelay)
        + ", accesses="
        + accesses
        + ", warmup="
        + warmupAccesses
        + ", seed="
        + seed
        + "]";
  }

  /**
   * Configures a {@link Simulation}. Each setter checks its argument at once ({@link
   * NullPointerException} or {@link IllegalArgumentException} whose message names it); {@link
   * #build()} checks that the arguments fit together. Required: {@link #strategy}, one of {@link
   * #serviceTime}/{@link #serviceTimes}, one of {@link #arrivalRatePerSec}/{@link
   * #interArrivalTime}. Of two alternatives, the one set last wins.
   *
   * <p>Not thread-safe; the {@link Simulation} it builds is immutable and does not see later
   * changes to the builder.
   */
  public static final class Builder {
    private Strategy strategy;
    private LatencyDistribution serviceTime;
    private List<LatencyDistribution> serviceTimes;
    private double arrivalRatePerSec = Double.NaN;
    private LatencyDistribution interArrivalTime;
    private LatencyDistribution networkDelay = NO_NETWORK_DELAY;
    private double commonModeProbability;
    private LatencyDistribution commonModeExtraDelay;
    private long accesses = DEFAULT_ACCESSES;
    private long warmupAccesses = DEFAULT_WARMUP_ACCESSES;
    private int pairedSampleLimit = DEFAULT_PAIRED_SAMPLE_LIMIT;
    private long seed = DEFAULT_SEED;

    private Builder() {}

    private Builder(Simulation s) {
      strategy = s.strategy;
      serviceTime = s.serviceTime;
      serviceTimes = s.serviceTimes;
      arrivalRatePerSec = s.arrivalRatePerSec;
      interArrivalTime = s.interArrivalTime;
      networkDelay = s.networkDelay;
      commonModeProbability = s.commonModeProbability;
      commonModeExtraDelay = s.commonModeExtraDelay;
      accesses = s.accesses;
      warmupAccesses = s.warmupAccesses;
      pairedSampleLimit = s.pairedSampleLimit;
      seed = s.seed;
    }

    /** The strategy to simulate (required). */
    public Builder strategy(Strategy strategy) {
      this.strategy = checkNotNull(strategy, "strategy");
      return this;
    }

    /** The service time of every node (this or {@link #serviceTimes} is required). */
    public Builder serviceTime(LatencyDistribution serviceTime) {
      this.serviceTime = checkNotNull(serviceTime, "serviceTime");
      this.serviceTimes = null;
      return this;
    }

    /**
     * One service time per node, node {@code n} being duplicate {@code n % duplicatesPerSet} of set
     * {@code n / duplicatesPerSet}; {@link #build()} checks that there are {@link Strategy#nodes()}
     * of them. The list is copied.
     */
    public Builder serviceTimes(List<? extends LatencyDistribution> serviceTimes) {
      checkNotNull(serviceTimes, "serviceTimes");
      if (serviceTimes.isEmpty()) {
        throw new IllegalArgumentException("serviceTimes must not be empty");
      }
      List<LatencyDistribution> copy = new ArrayList<>(serviceTimes.size());
      for (int i = 0; i < serviceTimes.size(); i++) {
        copy.add(checkNotNull(serviceTimes.get(i), "serviceTimes[" + i + "]"));
      }
      this.serviceTimes = Collections.unmodifiableList(copy);
      this.serviceTime = null;
      return this;
    }

    /**
     * Poisson arrivals at this total rate, split across the replica sets (this or {@link
     * #interArrivalTime}).
     */
    public Builder arrivalRatePerSec(double arrivalRatePerSec) {
      this.arrivalRatePerSec = checkPositive(arrivalRatePerSec, "arrivalRatePerSec");
      this.interArrivalTime = null;
      return this;
    }

    /**
     * Renewal arrivals: the gaps between consecutive arrivals are independent draws of this
     * distribution, whose mean must be {@code > 0} (this or {@link #arrivalRatePerSec}). E.g.
     * {@link LatencyDistributions#constant} gives D/G/1 queues.
     */
    public Builder interArrivalTime(LatencyDistribution interArrivalTime) {
      checkNotNull(interArrivalTime, "interArrivalTime");
      double mean = interArrivalTime.meanMs();
      if (!(mean > 0 && mean < Double.POSITIVE_INFINITY)) {
        throw new IllegalArgumentException(
            "interArrivalTime must have a finite mean > 0, was " + mean);
      }
      this.interArrivalTime = interArrivalTime;
      this.arrivalRatePerSec = Double.NaN;
      return this;
    }

    /**
     * The network round trip added to each reply, drawn independently per duplicate. Default:
     * constant 0.
     */
    public Builder networkDelay(LatencyDistribution networkDelay) {
      this.networkDelay = checkNotNull(networkDelay, "networkDelay");
      return this;
    }

    /**
     * Common-mode slowdowns: with {@code probability}, an access's service time on every duplicate
     * of its set is lengthened by the same {@code extraDelay}, drawn once for the access. Default:
     * none. A probability of 0 turns it off.
     */
    public Builder commonMode(double probability, LatencyDistribution extraDelay) {
      checkProbability(probability, "commonMode probability");
      this.commonModeExtraDelay = checkNotNull(extraDelay, "commonMode extraDelay");
      this.commonModeProbability = probability;
      return this;
    }

    /** Recorded accesses, {@code 1..MAX_ACCESSES}. Default 100 000. */
    public Builder accesses(long accesses) {
      if (accesses <= 0 || accesses > MAX_ACCESSES) {
        throw new IllegalArgumentException(
            "accesses must be in [1, " + MAX_ACCESSES + "], was " + accesses);
      }
      this.accesses = accesses;
      return this;
    }

    /**
     * Accesses simulated, but not recorded, before the recorded ones (to leave the empty start),
     * {@code >= 0}. Default 1 000.
     */
    public Builder warmupAccesses(long warmupAccesses) {
      if (warmupAccesses < 0) {
        throw new IllegalArgumentException("warmupAccesses must be >= 0, was " + warmupAccesses);
      }
      this.warmupAccesses = warmupAccesses;
      return this;
    }

    /** The seed of every random draw. Default 1. */
    public Builder seed(long seed) {
      this.seed = seed;
      return this;
    }

    /**
     * At most this many recorded accesses (the first ones) keep their per-duplicate service times
     * for {@link SimulationResult#pairedServiceMs()}, {@code >= 0}. Default 100 000.
     */
    public Builder pairedSampleLimit(int pairedSampleLimit) {
      if (pairedSampleLimit < 0) {
        throw new IllegalArgumentException(
            "pairedSampleLimit must be >= 0, was " + pairedSampleLimit);
      }
      this.pairedSampleLimit = pairedSampleLimit;
      return this;
    }

    /**
     * The simulation.
     *
     * @throws IllegalStateException if the strategy, the service time or the arrivals were not set
     * @throws IllegalArgumentException if {@code serviceTimes} does not hold one distribution per
     *     node, if {@code warmupAccesses + accesses} overflows, or if the paired samples would not
     *     fit in one array
     */
    public Simulation build() {
      if (strategy == null) {
        throw new IllegalStateException("strategy must be set");
      }
      if (serviceTime == null && serviceTimes == null) {
        throw new IllegalStateException("serviceTime or serviceTimes must be set");
      }
      if (interArrivalTime == null && Double.isNaN(arrivalRatePerSec)) {
        throw new IllegalStateException("arrivalRatePerSec or interArrivalTime must be set");
      }
      if (serviceTimes != null && serviceTimes.size() != strategy.nodes()) {
        throw new IllegalArgumentException(
            "serviceTimes must hold one distribution per node: "
                + strategy
                + " uses "
                + strategy.nodes()
                + " nodes, serviceTimes has "
                + serviceTimes.size());
      }
      if (warmupAccesses > Long.MAX_VALUE - accesses) {
        throw new IllegalArgumentException(
            "warmupAccesses + accesses overflows: " + warmupAccesses + " + " + accesses);
      }
      if (Math.min(pairedSampleLimit, accesses) * strategy.duplicatesPerSet() > MAX_ACCESSES) {
        throw new IllegalArgumentException(
            "pairedSampleLimit too large: "
                + Math.min(pairedSampleLimit, accesses)
                + " rows of "
                + strategy.duplicatesPerSet()
                + " duplicates do not fit in one array");
      }
      return new Simulation(this);
    }
  }
}
