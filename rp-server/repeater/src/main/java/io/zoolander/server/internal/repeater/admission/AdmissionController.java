package io.zoolander.server.internal.repeater.admission;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.zoolander.model.Admission;
import io.zoolander.model.EmpiricalLatency;
import io.zoolander.model.SlaEngine;
import io.zoolander.server.jmx.MeterNames;
import io.zoolander.server.repeater.AdmissionSettings;
import io.zoolander.server.repeater.AdmissionState;
import io.zoolander.wire.Ticker;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.HdrHistogram.Histogram;

/**
 * The repeater's admission control: measures, asks the model, and sheds WRITEs above the admitted
 * rate limit. See {@link AdmissionSettings} for the control law. Internal.
 *
 * <p>Threads: every method but {@link #target} and {@link #state} runs on the repeater's sequencer
 * thread (the repeater calls {@link #tryAdmit}, {@link #sequenced} and {@link #acked} per write and
 * ack, and schedules {@link #tick} every control period there); {@link #target} and {@link #state}
 * may be called from any thread.
 *
 * <p>The model ({@link Admission} with the {@link io.zoolander.model.SlaEngine}: the live service
 * times pooled, every write applied by every duplicate, the duplicates sharing the arrivals) takes
 * milliseconds to tens of milliseconds, too long for the sequencer thread: {@link #withModelThread}
 * runs it on a thread of its own, one question at a time, and each period uses the latest answer
 * (from the period before, or older while a question is still being answered). The plain
 * constructor runs it on the thread that calls {@link #tick} (tests, with an injected clock).
 *
 * <p>Meters, in the registry given: counters {@code zoolander.repeater.admission.admitted} and
 * {@code .shed}; gauges {@code zoolander.repeater.admission.rate.limit} (writes per second,
 * +Infinity when not limiting), {@code .offered.rate}, {@code .predicted.sla} and {@code
 * .observed.sla}.
 */
public final class AdmissionController implements AutoCloseable {
  /**
   * Sequencing times are kept for this many recent seqs (a power of two); older writes are not
   * sampled.
   */
  static final int SEQ_RING_SIZE = 1 << 16;

  private final AdmissionSettings settings;
  private final Ticker ticker;
  private final long periodNanos;
  private final ServiceTimes[] duplicates;

  // Confined to the sequencer thread.
  private final long[] ringSeq = new long[SEQ_RING_SIZE];
  private final long[] ringNanos = new long[SEQ_RING_SIZE];
  private long lastSequenced = -1;
  private long firstAcked = -1;
  private final PeriodCounts offered;
  private final PeriodCounts admittedCounts;
  private final PeriodCounts slaWithin;
  private final PeriodCounts slaTotal;
  private final PeriodCounts firstAcks = new PeriodCounts(1);
  private long servicePeriods;
  private final long periodsPerServiceWindow;
  private boolean limiting;
  private double limitPerSec = Double.POSITIVE_INFINITY;
  private double tokens;
  private long refilledNanos;
  private int calmPeriods;
  private long shedThisPeriod;
  private long admittedTotal;
  private long shedTotal;
  private long retryAfterMs;

  private volatile double targetSla;
  private volatile double tauMs;
  private volatile AdmissionState state;

  /** What the model's runs are configured with: no bootstrap (the interval is not used here). */
  private static final SlaEngine.Builder ENGINE = SlaEngine.builder().bootstrapReplicates(0);

  private final Executor modelExecutor;
  private final ExecutorService modelThread; // null: the caller's thread runs the model
  private final AtomicBoolean modelRunning = new AtomicBoolean();
  private volatile ModelAnswer model; // the latest answer; null before one or with too few samples

  /** The model's answer to one period's question. */
  private record ModelAnswer(double predictedSla, double maxRatePerSec) {}

  private final List<Meter> meters = new ArrayList<>();
  private final Counter admittedCounter;
  private final Counter shedCounter;

  /**
   * @param duplicates how many duplicates the repeater streams to (indexes 0 to duplicates - 1 in
   *     {@link #acked})
   * @param registry where the admission meters go; null for none kept beyond this controller
   */
  public AdmissionController(
      AdmissionSettings settings, int duplicates, Ticker ticker, MeterRegistry registry) {
    this(settings, duplicates, ticker, registry, null);
  }

  /**
   * A controller whose model runs on a daemon thread of its own ({@code
   * zoolander-admission-model}), stopped by {@link #close()}: the repeater's.
   */
  public static AdmissionController withModelThread(
      AdmissionSettings settings, int duplicates, Ticker ticker, MeterRegistry registry) {
    ExecutorService thread =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "zoolander-admission-model");
              t.setDaemon(true);
              return t;
            });
    return new AdmissionController(settings, duplicates, ticker, registry, thread);
  }

  private AdmissionController(
      AdmissionSettings settings,
      int duplicates,
      Ticker ticker,
      MeterRegistry registry,
      ExecutorService modelThread) {
    this.modelThread = modelThread;
    this.modelExecutor = modelThread != null ? modelThread : Runnable::run;
    if (settings == null || ticker == null) {
      throw new NullPointerException(
          settings == null ? "settings must not be null" : "ticker must not be null");
    }
    if (duplicates < 1) {
      throw new IllegalArgumentException("duplicates must be positive, was " + duplicates);
    }
    this.settings = settings;
    this.ticker = ticker;
    this.periodNanos = TimeUnit.MILLISECONDS.toNanos(settings.controlPeriodMs());
    this.duplicates = new ServiceTimes[duplicates];
    for (int i = 0; i < duplicates; i++) {
      this.duplicates[i] = new ServiceTimes();
    }
    int ratePeriods = periods(settings.rateWindowMs());
    this.offered = new PeriodCounts(ratePeriods);
    this.admittedCounts = new PeriodCounts(ratePeriods);
    int slaPeriods = periods(settings.slaWindowMs());
    this.slaWithin = new PeriodCounts(slaPeriods);
    this.slaTotal = new PeriodCounts(slaPeriods);
    this.periodsPerServiceWindow = periods(settings.serviceWindowMs());
    this.targetSla = settings.targetSla();
    this.tauMs = settings.tauMs();
    this.retryAfterMs = settings.minRetryAfterMs();
    this.refilledNanos = ticker.nanoTime();
    MeterRegistry into = registry == null ? new SimpleMeterRegistry() : registry;
    this.admittedCounter =
        register(
            Counter.builder(MeterNames.REPEATER_ADMISSION_ADMITTED)
                .description("WRITEs admitted by admission control")
                .register(into));
    this.shedCounter =
        register(
            Counter.builder(MeterNames.REPEATER_ADMISSION_SHED)
                .description(
                    "WRITEs shed by admission control (ERROR OVERLOADED with a retry-after hint)")
                .register(into));
    gauge(
        into,
        MeterNames.REPEATER_ADMISSION_RATE_LIMIT,
        "admitted rate limit, writes/s (+Inf: not limiting)",
        AdmissionState::rateLimitPerSec);
    gauge(
        into,
        MeterNames.REPEATER_ADMISSION_OFFERED_RATE,
        "WRITEs offered per second",
        AdmissionState::offeredRatePerSec);
    gauge(
        into,
        MeterNames.REPEATER_ADMISSION_PREDICTED_SLA,
        "the model's SLA at tau at the offered rate",
        AdmissionState::predictedSla);
    gauge(
        into,
        MeterNames.REPEATER_ADMISSION_OBSERVED_SLA,
        "fraction of recent writes first acked within tau",
        AdmissionState::observedSla);
    this.state =
        new AdmissionState(
            targetSla,
            tauMs,
            false,
            limitPerSec,
            0,
            0,
            Double.NaN,
            Double.NaN,
            Double.NaN,
            0,
            0,
            "not limiting: no control period yet");
  }

  private int periods(long windowMs) {
    return (int)
        Math.max(1, (windowMs + settings.controlPeriodMs() - 1) / settings.controlPeriodMs());
  }

  private void gauge(
      MeterRegistry into,
      String name,
      String description,
      java.util.function.ToDoubleFunction<AdmissionState> value) {
    register(
        Gauge.builder(name, this, c -> value.applyAsDouble(c.state))
            .description(description)
            .strongReference(true)
            .register(into));
  }

  private <M extends Meter> M register(M meter) {
    meters.add(meter);
    return meter;
  }

  /**
   * The meters this controller registered, so that the repeater removes them from the registry when
   * it closes.
   */
  public List<Meter> meters() {
    return List.copyOf(meters);
  }

  /** The control period, in nanoseconds: the repeater calls {@link #tick} this often. */
  public long periodNanos() {
    return periodNanos;
  }

  /**
   * Changes the target SLA and tau from the next control period on.
   *
   * @throws IllegalArgumentException if {@code targetSla} is not in (0, 1) or {@code tauMs} not
   *     positive and finite
   */
  public void target(double targetSla, double tauMs) {
    AdmissionSettings.builder().targetSla(targetSla).tauMs(tauMs); // validates, naming the argument
    this.tauMs = tauMs;
    this.targetSla = targetSla;
  }

  public AdmissionState state() {
    return state;
  }

  // ------------------------------------------------------------------ per write and ack (sequencer
  // thread)

  /**
   * Whether to admit one more WRITE now; false to shed it (refuse with OVERLOADED and {@link
   * #retryAfterMs()}).
   */
  public boolean tryAdmit() {
    offered.add(1);
    if (limiting) {
      long now = ticker.nanoTime();
      double burst = Math.max(1, limitPerSec * settings.burstMs() / 1000.0);
      tokens = Math.min(burst, tokens + (now - refilledNanos) * limitPerSec / 1e9);
      refilledNanos = now;
      if (tokens < 1) {
        shedThisPeriod++;
        shedTotal++;
        shedCounter.increment();
        return false;
      }
      tokens -= 1;
    }
    admittedCounts.add(1);
    admittedTotal++;
    admittedCounter.increment();
    return true;
  }

  /**
   * The retry-after hint for a shed write, in milliseconds: a control period scaled by how far the
   * offered rate is above the limit (the heavier the overload, the further apart the retries),
   * within the configured bounds.
   */
  public long retryAfterMs() {
    return retryAfterMs;
  }

  /** Write {@code seq} was sequenced now. */
  public void sequenced(long seq) {
    int i = (int) (seq & (SEQ_RING_SIZE - 1));
    ringSeq[i] = seq;
    ringNanos[i] = ticker.nanoTime();
    lastSequenced = seq;
  }

  private long sequencedNanos(long seq) {
    int i = (int) (seq & (SEQ_RING_SIZE - 1));
    return ringSeq[i] == seq && seq > 0 ? ringNanos[i] : -1;
  }

  /**
   * Duplicate {@code index} (0-based, configuration order) has acked every seq up to {@code seq}.
   */
  public void acked(int index, long seq) {
    ServiceTimes d = duplicates[index];
    if (seq <= d.ackedSeq()) {
      return;
    }
    long now = ticker.nanoTime();
    d.acked(seq, now, d.ackedSeq() < 0 ? -1 : sequencedNanos(d.ackedSeq() + 1));
    if (seq > firstAcked) {
      long tauNanos = (long) (tauMs * 1e6);
      for (long s = Math.max(firstAcked + 1, seq - SEQ_RING_SIZE + 1); s <= seq; s++) {
        long t = sequencedNanos(s);
        if (t >= 0) {
          slaTotal.add(1);
          firstAcks.add(1);
          if (now - t <= tauNanos) {
            slaWithin.add(1);
          }
        }
      }
      firstAcked = seq;
    }
  }

  // ------------------------------------------------------------------ control (sequencer thread)

  /** One control period: measures, asks the model, adjusts the limit. */
  public void tick() {
    long now = ticker.nanoTime();
    double target = targetSla;
    double tau = tauMs;
    offered.close();
    admittedCounts.close();
    slaWithin.close();
    slaTotal.close();
    firstAcks.close();
    if (++servicePeriods % periodsPerServiceWindow == 0) {
      for (ServiceTimes d : duplicates) {
        d.rotate();
      }
    }
    double offeredRate = offered.ratePerSec(settings.controlPeriodMs());
    double admittedRate = admittedCounts.ratePerSec(settings.controlPeriodMs());
    double ackRate = firstAcks.ratePerSec(settings.controlPeriodMs());
    long overdue = overdue(now, (long) (tau * 1e6));
    long total = slaTotal.sum() + overdue;
    double observed = total == 0 ? Double.NaN : slaWithin.sum() / (double) total;

    Histogram pooled = new Histogram(2);
    int sampled = 0;
    for (ServiceTimes d : duplicates) {
      if (d.count() > 0) {
        d.addTo(pooled);
        sampled++;
      }
    }
    if (pooled.getTotalCount() >= settings.minServiceSamples()) {
      ask(EmpiricalLatency.of(pooled, 1000), sampled, offeredRate, target, tau);
    } else {
      model = null;
    }
    ModelAnswer answer = model;
    double predicted = answer == null ? Double.NaN : answer.predictedSla();
    double modelMax = answer == null ? Double.NaN : answer.maxRatePerSec();
    boolean observedMisses = !Double.isNaN(observed) && observed < target;
    boolean modelMisses = !Double.isNaN(predicted) && predicted < target;
    String why;
    if (!limiting) {
      if (observedMisses || modelMisses) {
        limiting = true;
        calmPeriods = 0;
        double start =
            Math.min(
                offeredRate, modelMisses && modelMax > 0 ? modelMax : Double.POSITIVE_INFINITY);
        limitPerSec =
            clampLimit(
                start * (1 - settings.maxStepFraction()), offeredRate, modelMisses ? modelMax : 0);
        tokens = 0;
        refilledNanos = now;
        why =
            String.format(
                "limiting from %.1f/s: %s",
                limitPerSec, reason(observed, predicted, target, modelMax));
      } else {
        why = "not limiting: " + reason(observed, predicted, target, modelMax);
      }
    } else {
      double error = Double.isNaN(observed) ? 0 : observed - target;
      double step =
          Math.max(
              -settings.maxStepFraction(),
              Math.min(settings.maxStepFraction(), settings.integralGain() * error));
      if (step < 0 && limitPerSec < ackRate) {
        // Anti-windup, downwards: the duplicates already complete more than is admitted, so the
        // backlog that makes the
        // observed SLA miss is draining; lowering the limit further would only show up after it
        // drained (undershoot).
        step = 0;
      }
      limitPerSec = clampLimit(limitPerSec * (1 + step), offeredRate, modelMisses ? modelMax : 0);
      calmPeriods = shedThisPeriod == 0 && !observedMisses && !modelMisses ? calmPeriods + 1 : 0;
      if (calmPeriods >= settings.openAfterPeriods()) {
        limiting = false;
        limitPerSec = Double.POSITIVE_INFINITY;
        why =
            "stopped limiting: "
                + calmPeriods
                + " periods without shedding; "
                + reason(observed, predicted, target, modelMax);
      } else {
        why =
            String.format(
                "limit %.1f/s (step %+.1f%%): %s",
                limitPerSec, step * 100, reason(observed, predicted, target, modelMax));
      }
    }
    shedThisPeriod = 0;
    retryAfterMs =
        limiting && offeredRate > limitPerSec
            ? Math.max(
                settings.minRetryAfterMs(),
                Math.min(
                    settings.maxRetryAfterMs(),
                    Math.round(settings.controlPeriodMs() * offeredRate / limitPerSec)))
            : settings.minRetryAfterMs();
    state =
        new AdmissionState(
            target,
            tau,
            limiting,
            limitPerSec,
            offeredRate,
            admittedRate,
            observed,
            predicted,
            modelMax,
            admittedTotal,
            shedTotal,
            why);
  }

  /**
   * Asks the model this period's question, unless it is still answering an earlier one (then the
   * latest answer stands until it is done).
   */
  private void ask(
      EmpiricalLatency live, int sampled, double offeredRate, double target, double tau) {
    if (!modelRunning.compareAndSet(false, true)) {
      return;
    }
    Runnable question =
        () -> {
          try {
            Admission.Decision decision =
                Admission.builder()
                    .engine(ENGINE)
                    .targetSla(target)
                    .tauMs(tau)
                    .duplicates(sampled)
                    .build()
                    .decide(live, offeredRate);
            model = new ModelAnswer(decision.expected().sla(), decision.maxArrivalRatePerSec());
          } finally {
            modelRunning.set(false);
          }
        };
    try {
      modelExecutor.execute(question);
    } catch (RejectedExecutionException e) {
      modelRunning.set(false); // closed: no more answers
    }
  }

  /** Stops the model's thread, if this controller has one. */
  @Override
  public void close() {
    if (modelThread != null) {
      modelThread.shutdownNow();
    }
  }

  /**
   * Anti-windup, upwards: never above the offered rate plus headroom (while the load is below the
   * limit the SLA is met and the integral would otherwise grow without bound, then take as long to
   * come down), nor above the model's highest sustainable rate while the model says the offered
   * rate misses the target ({@code modelMax > 0}): the feedback alone would probe past capacity and
   * let a queue build before the observed SLA shows it. Never below the minimum.
   */
  private double clampLimit(double limit, double offeredRate, double modelMax) {
    double upper = offeredRate * (1 + settings.limitHeadroomFraction());
    if (modelMax > 0) {
      upper = Math.min(upper, modelMax);
    }
    return Math.max(settings.minRateLimitPerSec(), Math.min(upper, limit));
  }

  /**
   * Writes sequenced more than tau ago and not acked by any duplicate yet: misses the window does
   * not see yet.
   */
  private long overdue(long now, long tauNanos) {
    long count = 0;
    for (long s = Math.max(firstAcked + 1, lastSequenced - SEQ_RING_SIZE + 1);
        s <= lastSequenced;
        s++) {
      long t = sequencedNanos(s);
      if (t < 0) {
        continue;
      }
      if (now - t <= tauNanos) {
        break; // sequenced in time order: the rest are younger
      }
      count++;
    }
    return count;
  }

  private static String reason(double observed, double predicted, double target, double modelMax) {
    return String.format(
        "observed SLA %.3f, predicted %.3f (max %.1f/s), target %.3f",
        observed, predicted, modelMax, target);
  }
}
