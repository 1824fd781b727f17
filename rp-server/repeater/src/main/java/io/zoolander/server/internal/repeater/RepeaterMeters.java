package io.zoolander.server.internal.repeater;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.zoolander.model.SlaEstimate;
import io.zoolander.server.jmx.MeterNames;
import io.zoolander.wire.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * The repeater's meters ({@link MeterNames}, {@code docs/operations.md}) and the live inputs of its
 * SLA predictor. Gauges read the core's volatile views when they are read; the sequencing path
 * records nothing per write (the write count is the next seq), the ACK path one sampled latency at
 * a time. Every meter is removed again on {@link #close()}. Admission-control meters ({@link
 * MeterNames#REPEATER_ADMISSION_PREFIX}) and batching meters ({@link
 * MeterNames#REPEATER_BATCH_PREFIX}) belong here too, registered through {@link #register}.
 * Internal.
 */
public final class RepeaterMeters implements AutoCloseable {
  /** Latencies each duplicate keeps for the predictor. */
  public static final int SERVICE_TIME_WINDOW_SAMPLES = 2_048;

  /**
   * How long a latency sample speaks for the present by default: older ones are left out of the
   * predictor's input.
   */
  public static final long DEFAULT_SAMPLE_MAX_AGE_MS = 60_000;

  /** The span the arrival rate is measured over. */
  public static final long ARRIVAL_RATE_WINDOW_MS = 10_000;

  /** Samples of the running write count per window (one per second). */
  static final int ARRIVAL_RATE_SAMPLES = 10;

  private final MeterRegistry registry;
  private final double slaTauMs;
  private final Ticker ticker;
  private final long sampleMaxAgeNanos;
  private final List<Meter> registered = new CopyOnWriteArrayList<>();

  /** Each duplicate's own meters, removed when it is retired online. */
  private final Map<Integer, List<Meter>> perDuplicate = new ConcurrentHashMap<>();

  private final ArrivalRate arrivalRate =
      new ArrivalRate(TimeUnit.MILLISECONDS.toNanos(ARRIVAL_RATE_WINDOW_MS), ARRIVAL_RATE_SAMPLES);
  private final Counter tlsFailures;
  private final Counter authFailures;

  /**
   * One duplicate's ACK latency: the timer (every probe) and the predictor's samples (only probes
   * sent while the duplicate owed no ACK: they hold no queueing behind this repeater's earlier
   * writes, which the model adds itself at the rate it is asked about; a probe sent to a busy
   * duplicate would count that queueing twice).
   */
  final class Duplicate {
    private final Timer ackLatency;
    private final LatencyWindow samples = new LatencyWindow(SERVICE_TIME_WINDOW_SAMPLES);

    private Duplicate(Timer ackLatency) {
      this.ackLatency = ackLatency;
    }

    /**
     * @param nanos from sending the probed write to the ACK covering it
     * @param fromIdle whether the duplicate owed no ACK when the probed write was sent
     */
    void ackLatency(long nanos, boolean fromIdle) {
      ackLatency.record(nanos, TimeUnit.NANOSECONDS);
      if (fromIdle) {
        samples.record(nanos, ticker.nanoTime());
      }
    }

    /** The predictor's samples (ms, oldest first) not older than the maximum age. */
    double[] samplesMs() {
      return samples.samplesMs(ticker.nanoTime(), sampleMaxAgeNanos);
    }
  }

  /** The clock the predictor's samples are aged by. */
  Ticker ticker() {
    return ticker;
  }

  /**
   * @param registry where the meters go
   * @param slaTauMs the bound of the predicted-SLA gauge and the predictor's default
   */
  public RepeaterMeters(MeterRegistry registry, double slaTauMs) {
    this(registry, slaTauMs, Ticker.system(), Duration.ofMillis(DEFAULT_SAMPLE_MAX_AGE_MS));
  }

  /**
   * @param registry where the meters go
   * @param slaTauMs the bound of the predicted-SLA gauge and the predictor's default
   * @param ticker the clock the predictor's samples are aged by
   * @param sampleMaxAge how long a latency sample stays the predictor's input
   */
  public RepeaterMeters(
      MeterRegistry registry, double slaTauMs, Ticker ticker, Duration sampleMaxAge) {
    this.registry = registry;
    this.slaTauMs = slaTauMs;
    this.ticker = Objects.requireNonNull(ticker, "ticker must not be null");
    if (sampleMaxAge.isNegative() || sampleMaxAge.isZero()) {
      throw new IllegalArgumentException("sampleMaxAge must be positive, was " + sampleMaxAge);
    }
    this.sampleMaxAgeNanos = sampleMaxAge.toNanos();
    tlsFailures =
        register(
            Counter.builder(MeterNames.REPEATER_SECURITY_FAILURES)
                .tag(MeterNames.TAG_KIND, "tls")
                .description(
                    "Client connections refused for TLS (a failed handshake) or authentication")
                .register(registry));
    authFailures =
        register(
            Counter.builder(MeterNames.REPEATER_SECURITY_FAILURES)
                .tag(MeterNames.TAG_KIND, "auth")
                .register(registry));
  }

  /**
   * Keeps {@code meter} to remove it on {@link #close()}: every meter of the repeater goes through
   * here, the admission and batching meters too ({@code
   * register(Counter.builder(...).register(meters.registry()))}).
   */
  public <M extends Meter> M register(M meter) {
    registered.add(meter);
    return meter;
  }

  /** The registry the repeater's meters go to. */
  public MeterRegistry registry() {
    return registry;
  }

  Duplicate duplicate(int id) {
    Timer ackLatency =
        register(
            latencyTimer(MeterNames.REPEATER_ACK_LATENCY)
                .tag(MeterNames.TAG_DUPLICATE, Integer.toString(id))
                .description(
                    "From sending a write to a duplicate's plugin to its ACK; one probe outstanding at a time")
                .register(registry));
    byDuplicate(id).add(ackLatency);
    return new Duplicate(ackLatency);
  }

  /**
   * A latency timer. It publishes no client-side percentiles or buckets of its own: the JMX
   * registry's timers keep their percentiles already, and a registry that wants buckets adds them
   * with a {@code MeterFilter}. Lean on the path that records.
   */
  public static Timer.Builder latencyTimer(String name) {
    return Timer.builder(name);
  }

  /** The gauges over the core's state, once its links exist. */
  void registerGauges(RepeaterCore core, List<DuplicateLink> links) {
    register(
        Gauge.builder(MeterNames.REPEATER_EPOCH, core, RepeaterCore::epoch)
            .description("The repeater's epoch (-1 before start)")
            .register(registry));
    register(
        Gauge.builder(MeterNames.REPEATER_NEXT_SEQ, core, RepeaterCore::nextSeq)
            .description("The seq the next write gets (-1 before start)")
            .register(registry));
    register(
        FunctionCounter.builder(MeterNames.REPEATER_WRITES, core, RepeaterCore::sequencedWrites)
            .description("Writes sequenced since start")
            .register(registry));
    register(
        Gauge.builder(MeterNames.REPEATER_ARRIVAL_RATE, arrivalRate, ArrivalRate::perSecond)
            .description(
                "Writes sequenced per second over the last " + ARRIVAL_RATE_WINDOW_MS + " ms")
            .baseUnit("writes/s")
            .register(registry));
    register(
        Gauge.builder(MeterNames.REPEATER_LOG_SIZE, core, RepeaterCore::logSize)
            .description("Sequenced writes the retransmission log holds")
            .register(registry));
    register(
        Gauge.builder(MeterNames.REPEATER_FENCED, core, c -> c.fencedCount())
            .description("Duplicates fenced")
            .register(registry));
    register(
        Gauge.builder(MeterNames.REPEATER_PREDICTED_SLA, core, c -> predictedSla(c))
            .tag(MeterNames.TAG_TAU_MS, Double.toString(slaTauMs))
            .description(
                "SLA at tau rp-model predicts for the live duplicates at the measured arrival rate (NaN before"
                    + " any ACK latency is measured)")
            .register(registry));
    for (DuplicateLink link : links) {
      registerDuplicate(core, link);
    }
  }

  /** The gauges of one duplicate's link: at start, or when a duplicate is added online. */
  void registerDuplicate(RepeaterCore core, DuplicateLink link) {
    String id = Integer.toString(link.id());
    List<Meter> own = byDuplicate(link.id());
    own.add(
        register(
            Gauge.builder(MeterNames.REPEATER_APPLIED_SEQ, link, DuplicateLink::ackedSeq)
                .tag(MeterNames.TAG_DUPLICATE, id)
                .description("The highest seq the duplicate acknowledged")
                .register(registry)));
    own.add(
        register(
            Gauge.builder(
                    MeterNames.REPEATER_LAG,
                    link,
                    l -> Math.max(0, core.nextSeq() - 1 - l.ackedSeq()))
                .tag(MeterNames.TAG_DUPLICATE, id)
                .description("Writes sequenced that the duplicate has not acknowledged")
                .register(registry)));
    own.add(
        register(
            Gauge.builder(MeterNames.REPEATER_DUPLICATE_FENCED, link, l -> l.fenced() ? 1 : 0)
                .tag(MeterNames.TAG_DUPLICATE, id)
                .description("1 while the duplicate is fenced")
                .register(registry)));
  }

  /** Removes a retired duplicate's meters from the registry. */
  void removeDuplicate(int duplicateId) {
    List<Meter> own = perDuplicate.remove(duplicateId);
    if (own != null) {
      registered.removeAll(own);
      own.forEach(registry::remove);
    }
  }

  private List<Meter> byDuplicate(int duplicateId) {
    return perDuplicate.computeIfAbsent(duplicateId, id -> new CopyOnWriteArrayList<>());
  }

  private double predictedSla(RepeaterCore core) {
    SlaEstimate p =
        core.predict(Math.max(1, core.liveDuplicates()), arrivalRate.perSecond(), slaTauMs);
    return p == null ? Double.NaN : p.sla();
  }

  /** How long a latency sample stays the predictor's input, in ms. */
  long sampleMaxAgeMs() {
    return TimeUnit.NANOSECONDS.toMillis(sampleMaxAgeNanos);
  }

  /**
   * Samples the running write count; called once per {@code ARRIVAL_RATE_WINDOW_MS /
   * ARRIVAL_RATE_SAMPLES}.
   */
  void sampleArrivals(long nowNanos, long sequencedWrites) {
    arrivalRate.sample(nowNanos, sequencedWrites);
  }

  double arrivalRatePerSec() {
    return arrivalRate.perSecond();
  }

  /** A client connection failed its TLS handshake. */
  public void tlsFailure() {
    tlsFailures.increment();
  }

  /** A client connection failed authentication. */
  void authFailure() {
    authFailures.increment();
  }

  /** Removes every meter registered through this object from the registry. */
  @Override
  public void close() {
    List<Meter> meters = new ArrayList<>(registered);
    registered.clear();
    meters.forEach(registry::remove);
  }
}
