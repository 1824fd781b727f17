package io.zoolander.server.internal.repeater.control;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.zoolander.model.SlaEstimate;
import io.zoolander.server.internal.repeater.RepeaterMeters;
import io.zoolander.server.jmx.MeterNames;
import io.zoolander.server.repeater.ControllerDecision;
import io.zoolander.server.repeater.ControllerDecision.Action;
import io.zoolander.server.repeater.ControllerDecision.Reason;
import io.zoolander.server.repeater.ControllerSettings;
import io.zoolander.server.repeater.FanOutDecision;
import io.zoolander.wire.Membership;
import io.zoolander.wire.Ticker;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the controller that follows the load: every period, on a thread of its own (the model takes
 * milliseconds to tens of milliseconds, never on the sequencer), it observes the deployment, asks
 * {@link LoadPolicy} and makes the change it decides through the online membership API, then
 * reports its end to the policy. Every decision is counted ({@code
 * zoolander.repeater.controller.decisions}, tagged with its action and reason) and its numbers
 * published as gauges; every change, its end, and every change of reason are logged at INFO with
 * the numbers, the periods that repeat the last reason at DEBUG (a steady deployment would
 * otherwise log a line a period). Internal.
 */
public final class LoadController implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(LoadController.class);

  /** What the controller needs of the repeater. */
  public interface Deployment {
    /** The set now. */
    Membership membership();

    /** Writes sequenced per second, measured. */
    double arrivalRatePerSec();

    /** The ACK latencies the predictions use now. */
    int predictorSamples();

    /**
     * The model's SLA at {@code tauMs} for {@code duplicates} at the rate; null without samples.
     */
    SlaEstimate predict(int duplicates, double arrivalRatePerSec, double tauMs);

    /** The same from the ACK latencies of the duplicates but {@code withoutId}. */
    SlaEstimate predictWithout(
        int withoutId, int duplicates, double arrivalRatePerSec, double tauMs);

    /** Advises clients a read fan-out; completes once the record is written. */
    CompletableFuture<Membership> setReadFanOut(int fanOut);

    /** Adds a duplicate online; completes once it is active. */
    CompletableFuture<Membership> addDuplicate(int duplicateId, String connectString);

    /** Retires a duplicate online; completes once it is fenced and forgotten. */
    CompletableFuture<Membership> retireDuplicate(int duplicateId);
  }

  private final ControllerSettings settings;
  private final LoadPolicy policy;
  private final Deployment deployment;
  private final Map<Reason, Counter> decisions = new EnumMap<>(Reason.class);
  private final Map<Action, Counter> failures = new EnumMap<>(Action.class);
  private final Object lifecycle = new Object();
  private ScheduledExecutorService thread; // null until started
  private boolean closed;
  private final Map<FanOutDecision.Reason, Counter> fanOutDecisions =
      new EnumMap<>(FanOutDecision.Reason.class);
  private final Counter fanOutFailures;
  private volatile ControllerDecision last;
  private volatile FanOutDecision lastFanOut;
  private volatile int freeSpares;
  private Reason lastReason;
  private FanOutDecision.Reason lastFanOutReason;

  /**
   * @param maxDuplicates the budget, resolved
   * @param ticker the clock of cooldowns
   * @param meters where the controller's meters go; removed with the repeater's
   */
  public LoadController(
      ControllerSettings settings,
      int maxDuplicates,
      Deployment deployment,
      Ticker ticker,
      RepeaterMeters meters) {
    this.settings = Objects.requireNonNull(settings, "settings must not be null");
    this.deployment = Objects.requireNonNull(deployment, "deployment must not be null");
    this.policy = new LoadPolicy(settings, maxDuplicates, ticker);
    this.freeSpares = settings.spares().size();
    MeterRegistry registry = meters.registry();
    for (Reason reason : Reason.values()) {
      decisions.put(
          reason,
          meters.register(
              Counter.builder(MeterNames.REPEATER_CONTROLLER_DECISIONS)
                  .tag(MeterNames.TAG_ACTION, reason.action().name().toLowerCase(Locale.ROOT))
                  .tag(MeterNames.TAG_REASON, reason.tag())
                  .description("The load controller's decisions, one per period")
                  .register(registry)));
    }
    for (Action action : new Action[] {Action.ADD, Action.RETIRE}) {
      failures.put(
          action,
          meters.register(
              Counter.builder(MeterNames.REPEATER_CONTROLLER_CHANGES_FAILED)
                  .tag(MeterNames.TAG_ACTION, action.name().toLowerCase(Locale.ROOT))
                  .description("Additions and retirements by the load controller that failed")
                  .register(registry)));
    }
    for (FanOutDecision.Reason reason : FanOutDecision.Reason.values()) {
      fanOutDecisions.put(
          reason,
          meters.register(
              Counter.builder(MeterNames.REPEATER_CONTROLLER_FAN_OUT_DECISIONS)
                  .tag(MeterNames.TAG_ACTION, reason.action().name().toLowerCase(Locale.ROOT))
                  .tag(MeterNames.TAG_REASON, reason.tag())
                  .description(
                      "The load controller's decisions on the read fan-out, one per period")
                  .register(registry)));
    }
    fanOutFailures =
        meters.register(
            Counter.builder(MeterNames.REPEATER_CONTROLLER_CHANGES_FAILED)
                .tag(MeterNames.TAG_ACTION, "fan_out")
                .description("Read fan-out changes by the load controller that failed")
                .register(registry));
    meters.register(
        Gauge.builder(
                MeterNames.REPEATER_CONTROLLER_FAN_OUT,
                this,
                c -> c.lastFanOut == null ? Double.NaN : c.lastFanOut.fanOut())
            .description(
                "The read fan-out the load controller advises as of its last period (0: none)")
            .register(registry));
    meters.register(
        Gauge.builder(
                MeterNames.REPEATER_CONTROLLER_DUPLICATES,
                this,
                c -> c.last == null ? Double.NaN : c.last.duplicates())
            .description("Active duplicates as of the load controller's last period")
            .register(registry));
    meters.register(
        Gauge.builder(MeterNames.REPEATER_CONTROLLER_SPARES_FREE, this, c -> c.freeSpares)
            .description("Spares of the load controller's pool that are not members")
            .register(registry));
    meters.register(
        Gauge.builder(
                MeterNames.REPEATER_CONTROLLER_SLA_CURRENT,
                this,
                c -> c.last == null ? Double.NaN : c.last.predictedSla())
            .description("SLA at the controller's tau predicted for the active duplicates")
            .register(registry));
    meters.register(
        Gauge.builder(
                MeterNames.REPEATER_CONTROLLER_SLA_FEWER,
                this,
                c -> c.last == null ? Double.NaN : c.last.predictedSlaFewer())
            .description("SLA at the controller's tau predicted for one duplicate fewer")
            .register(registry));
    meters.register(
        Gauge.builder(
                MeterNames.REPEATER_CONTROLLER_SLA_MORE,
                this,
                c -> c.last == null ? Double.NaN : c.last.predictedSlaMore())
            .description("SLA at the controller's tau predicted for one duplicate more")
            .register(registry));
  }

  /** Starts deciding every period, the first a period from now. */
  public void start() {
    synchronized (lifecycle) {
      if (closed || thread != null) {
        throw new IllegalStateException(closed ? "controller closed" : "controller started");
      }
      thread =
          Executors.newSingleThreadScheduledExecutor(
              new DefaultThreadFactory("zoolander-repeater-controller", true));
      thread.scheduleWithFixedDelay(
          this::period, settings.periodMs(), settings.periodMs(), TimeUnit.MILLISECONDS);
    }
    LOG.info("load controller on: {}, budget {} duplicates", settings, policy.maxDuplicates());
  }

  /** The last period's decision, null before the first. */
  public ControllerDecision last() {
    return last;
  }

  /** The last period's decision on the read fan-out, null before the first. */
  public FanOutDecision lastFanOut() {
    return lastFanOut;
  }

  /** One period: observe, decide, count, log, and start the changes decided on. */
  void period() {
    ControllerDecision d;
    FanOutDecision f;
    try {
      Membership m = deployment.membership();
      double rate = deployment.arrivalRatePerSec();
      freeSpares = policy.freeSpares(m);
      // The rules ask some questions twice in a period (N for the set and for the fan-out): each
      // is a model run, so each is asked of the model once.
      Map<Integer, SlaEstimate> asked = new HashMap<>();
      LoadPolicy.Observation o =
          new LoadPolicy.Observation(
              m,
              rate,
              deployment.predictorSamples(),
              n -> asked.computeIfAbsent(n, k -> deployment.predict(k, rate, settings.tauMs())),
              (id, n) -> deployment.predictWithout(id, n, rate, settings.tauMs()));
      d = policy.decide(o);
      f = policy.decideFanOut(o);
    } catch (RuntimeException e) {
      // A period that cannot observe (the repeater closing, say) decides nothing; the next tries
      // again. Thrown out of the schedule it would end every later period.
      LOG.warn("load controller: this period decided nothing: {}", e.toString());
      return;
    }
    last = d;
    decisions.get(d.reason()).increment();
    log(d.changes() || d.reason() != lastReason, d.describe());
    lastReason = d.reason();
    lastFanOut = f;
    fanOutDecisions.get(f.reason()).increment();
    log(f.changes() || f.reason() != lastFanOutReason, f.describe());
    lastFanOutReason = f.reason();
    if (d.changes()) {
      change(d);
    }
    if (f.changes()) {
      changeFanOut(f);
    }
  }

  /**
   * A decision at INFO when it changes something or its reason differs from the period before, at
   * DEBUG otherwise: a steady deployment would write a line a period.
   */
  private static void log(boolean news, String decision) {
    if (news) {
      LOG.info("load controller: {}", decision);
    } else {
      LOG.debug("load controller: {}", decision);
    }
  }

  /** Why a change failed, in one line. */
  private static String why(Throwable failure) {
    Throwable cause = failure instanceof CompletionException ? failure.getCause() : failure;
    return cause == null ? failure.toString() : cause.getMessage();
  }

  private void changeFanOut(FanOutDecision f) {
    CompletableFuture<Membership> done;
    try {
      done = deployment.setReadFanOut(f.fanOut());
    } catch (RuntimeException e) {
      done = CompletableFuture.failedFuture(e);
    }
    done.whenComplete(
        (membership, failure) -> {
          policy.fanOutChangeEnded(f);
          if (failure != null) {
            fanOutFailures.increment();
            LOG.warn("load controller: read fan-out not set to {}: {}", f.fanOut(), why(failure));
          }
        });
  }

  private void change(ControllerDecision d) {
    CompletableFuture<Membership> done;
    try {
      done =
          d.action() == Action.ADD
              ? deployment.addDuplicate(d.duplicateId(), settings.spares().get(d.duplicateId()))
              : deployment.retireDuplicate(d.duplicateId());
    } catch (RuntimeException e) {
      done = CompletableFuture.failedFuture(e);
    }
    done.whenComplete(
        (membership, failure) -> {
          policy.changeEnded(d, failure == null);
          String what = d.action() == Action.ADD ? "added" : "retired";
          if (failure == null) {
            LOG.info(
                "load controller: duplicate {} {} (membership version {}, {} active)",
                d.duplicateId(),
                what,
                membership.version(),
                membership.activeCount());
          } else {
            failures.get(d.action()).increment();
            LOG.warn(
                "load controller: duplicate {} not {}: {}; cooldown of {} ms before the next change",
                d.duplicateId(),
                what,
                why(failure),
                settings.cooldownMs());
          }
        });
  }

  /** Stops deciding; a change under way goes on, and its end is still reported. */
  @Override
  public void close() {
    synchronized (lifecycle) {
      closed = true;
      if (thread != null) {
        thread.shutdownNow();
      }
    }
  }
}
