package io.zoolander.client.internal;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * The client's Micrometer meters. Names are stable and documented in {@code docs/client.md}. The
 * per-duplicate meters (tag {@code duplicate}, the duplicate's index) grow by {@link #add} when a
 * duplicate is added while the client runs; a retired duplicate's stay registered, with what they
 * counted. Updated on the client's I/O thread only (the event loop), {@link #add} included; gauges
 * may be read from any thread. Internal: not part of the public API.
 */
final class ClientMetrics {
  static final int SLA_WINDOW = 10_000;

  private final MeterRegistry registry;
  private Timer[] readWin;
  private Timer[] readLose;
  private Counter[] wins;
  private final Counter hedges;
  private final Counter readRequests;
  private final Counter readRetries;
  private final Counter writeRetries;
  private final Counter inconsistencies;
  private final Counter shedWrites;
  private final Counter readRetriesDenied;
  private final Counter plannedSlowness;
  private final Timer writeLatency;
  private final long tauNanos;
  private final boolean[] withinTau = new boolean[SLA_WINDOW];
  private int slaCount;
  private int slaNext;
  private int slaWithin;
  private volatile double observedSla = Double.NaN;

  ClientMetrics(
      MeterRegistry registry, int duplicates, AdaptiveConcurrency concurrency, double slaTauMs) {
    this.registry = registry;
    readWin = new Timer[0];
    readLose = new Timer[0];
    wins = new Counter[0];
    for (int i = 0; i < duplicates; i++) {
      add();
    }
    hedges =
        Counter.builder("zoolander.client.read.hedges")
            .description("Hedged read requests sent")
            .register(registry);
    readRequests =
        Counter.builder("zoolander.client.read.requests")
            .description("READ requests sent to duplicates: first tries, hedges and retries")
            .register(registry);
    readRetries =
        Counter.builder("zoolander.client.retries")
            .tag("op", "read")
            .description("Requests sent again: reads asked of another duplicate, writes re-sent")
            .register(registry);
    writeRetries =
        Counter.builder("zoolander.client.retries").tag("op", "write").register(registry);
    shedWrites =
        Counter.builder("zoolander.client.write.shed")
            .description(
                "Refusals of a write with OVERLOADED (shed by the repeater) or NAME_FROZEN (a name being"
                    + " moved); each is retried within the retry budget")
            .register(registry);
    readRetriesDenied =
        Counter.builder("zoolander.client.read.retries.denied")
            .description("Read retries not sent: the retry budget had no token")
            .register(registry);
    inconsistencies =
        Counter.builder("zoolander.client.inconsistencies")
            .description("Replies for the same seq that differ between duplicates")
            .register(registry);
    plannedSlowness =
        Counter.builder("zoolander.client.read.planned.slowness")
            .description(
                "Planned-slowness announcements received (starts and ends): a duplicate doing background work is"
                    + " left out of the read set")
            .register(registry);
    writeLatency =
        Timer.builder("zoolander.client.write.latency")
            .description("Time to the first reply of a write")
            .publishPercentileHistogram()
            .register(registry);
    Gauge.builder("zoolander.client.read.concurrency", concurrency, AdaptiveConcurrency::current)
        .description("Current degree of concurrency C")
        .register(registry);
    Gauge.builder("zoolander.client.sla.observed", this, m -> m.observedSla)
        .tag("tauMs", Double.toString(slaTauMs))
        .description("Fraction of the last " + SLA_WINDOW + " operations completed within tau")
        .register(registry);
    this.tauNanos = (long) (slaTauMs * 1_000_000);
  }

  /**
   * Registers the meters of one more duplicate (added while the client runs).
   *
   * @return its index
   */
  int add() {
    int i = readWin.length;
    String d = Integer.toString(i);
    readWin = Arrays.copyOf(readWin, i + 1);
    readLose = Arrays.copyOf(readLose, i + 1);
    wins = Arrays.copyOf(wins, i + 1);
    readWin[i] =
        Timer.builder("zoolander.client.read.latency")
            .tag("duplicate", d)
            .tag("reply", "first")
            .description(
                "Latency of read replies per duplicate; 'other' are the losing replies (still model input)")
            .publishPercentileHistogram()
            .register(registry);
    readLose[i] =
        Timer.builder("zoolander.client.read.latency")
            .tag("duplicate", d)
            .tag("reply", "other")
            .publishPercentileHistogram()
            .register(registry);
    wins[i] =
        Counter.builder("zoolander.client.read.wins")
            .tag("duplicate", d)
            .description("Reads this duplicate answered first")
            .register(registry);
    return i;
  }

  void readReply(int duplicate, long latencyNanos, boolean first) {
    (first ? readWin : readLose)[duplicate].record(latencyNanos, TimeUnit.NANOSECONDS);
    if (first) {
      wins[duplicate].increment();
    }
  }

  void readRequestSent() {
    readRequests.increment();
  }

  void hedge() {
    hedges.increment();
  }

  void readRetry() {
    readRetries.increment();
  }

  void writeRetry() {
    writeRetries.increment();
  }

  void writeShed() {
    shedWrites.increment();
  }

  void readRetryDenied() {
    readRetriesDenied.increment();
  }

  void inconsistency() {
    inconsistencies.increment();
  }

  void plannedSlowness() {
    plannedSlowness.increment();
  }

  void writeCompleted(long latencyNanos) {
    writeLatency.record(latencyNanos, TimeUnit.NANOSECONDS);
    completed(latencyNanos);
  }

  /** An operation completed after {@code latencyNanos}: feeds the observed SLA at tau. */
  void completed(long latencyNanos) {
    boolean within = latencyNanos <= tauNanos;
    if (slaCount == SLA_WINDOW) {
      slaWithin -= withinTau[slaNext] ? 1 : 0;
    } else {
      slaCount++;
    }
    withinTau[slaNext] = within;
    slaWithin += within ? 1 : 0;
    slaNext = (slaNext + 1) % SLA_WINDOW;
    observedSla = (double) slaWithin / slaCount;
  }

  double observedSla() {
    return observedSla;
  }
}
