package io.zoolander.server.demo;

import io.zoolander.client.ReadPolicy;
import io.zoolander.client.ReplyEvent;
import io.zoolander.client.ZoolanderClient;
import io.zoolander.client.ZoolanderClientBuilder;
import io.zoolander.model.Deployment;
import io.zoolander.model.EmpiricalLatency;
import io.zoolander.model.ExchangeableDependence;
import io.zoolander.model.MissCurve;
import io.zoolander.model.SlaEngine;
import io.zoolander.model.SlaEstimate;
import io.zoolander.model.SlaModel;
import io.zoolander.model.Strategy;
import io.zoolander.model.ThesisModel;
import io.zoolander.server.testing.EmbeddedCluster;
import io.zoolander.server.workload.OpenLoopLoad;
import io.zoolander.wire.Op;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The demo: starts an embedded deployment, measures one duplicate's latency distribution (and
 * paired samples across all duplicates), then runs the same open-loop workload against 1, 2, 4...
 * duplicates and sets what it observed beside what the engine ({@link SlaEngine}, with the
 * duplicates' dependence fitted from the paired samples) predicted from the measurement alone, with
 * its 95% interval, and the thesis baseline. Its output is a progress bar and the table; what it
 * does step by step goes to the log (slf4j, logger {@code io.zoolander.server.demo.Demo}).
 */
public final class Demo {
  private static final Logger LOG = LoggerFactory.getLogger(Demo.class);
  private static final int KEYS = 16;
  private static final int WARMUP_PHASE_SECONDS = 5;
  private static final int PROGRESS_WIDTH = 40;

  /** Bounds of each row's predicted miss curve (the chart's x axis). */
  static final int CURVE_POINTS = 61;

  private final DemoSettings settings;
  private final PrintWriter out;
  private long plannedSeconds;
  private long doneSeconds;

  public Demo(DemoSettings settings, PrintWriter out) {
    this.settings = settings.validate();
    this.out = out;
  }

  /**
   * One compared duplicate count.
   *
   * @param duplicates the duplicate count
   * @param tauMs the bound
   * @param observed fraction of the run's accesses within tau
   * @param thesis the thesis baseline's SLA (independent duplicates, the measured CDF)
   * @param predicted the engine's SLA at tau
   * @param low low end of its 95% interval
   * @param high high end of its 95% interval
   * @param curve the engine's miss curve over the chart's bounds, with its band
   * @param latency what the run measured
   */
  public record Row(
      int duplicates,
      double tauMs,
      double observed,
      double thesis,
      double predicted,
      double low,
      double high,
      MissCurve curve,
      Histogram latency) {}

  /** What the demo measured and predicted. */
  public record Outcome(
      EmpiricalLatency oneDuplicate, double correlationAtTau, double tauMs, List<Row> rows) {}

  public Outcome run() throws Exception {
    int warmupPhase =
        Math.max(settings.warmupSeconds(), Math.min(WARMUP_PHASE_SECONDS, settings.runSeconds()));
    plannedSeconds =
        warmupPhase
            + settings.calibrationSeconds()
            + (long) settings.counts().size() * settings.runSeconds();
    doneSeconds = 0;
    progress(0, "starting the deployment");
    long t0 = System.nanoTime();
    say(
        "starting %d single-server duplicates and a repeater on 127.0.0.1 ...",
        settings.duplicates());
    try (EmbeddedCluster cluster =
        EmbeddedCluster.builder()
            .duplicates(settings.duplicates())
            .fsync(settings.fsync())
            .start()) {
      say("deployment up in %.1f s", (System.nanoTime() - t0) / 1e9);
      String anomaly = settings.anomalyRecord();
      if (anomaly != null) {
        cluster.injectAnomalyEverywhere(anomaly);
      }
      say(
          anomaly == null
              ? "anomaly injector off"
              : "anomaly injector on every duplicate: " + anomaly);
      byte[] value = new byte[settings.valueBytes()];
      try (ZoolanderClient setup = client(cluster, settings.duplicates()).build()) {
        List<Op> creates = new ArrayList<>();
        creates.add(Op.create("/demo", new byte[0]));
        for (int k = 0; k < KEYS; k++) {
          creates.add(Op.create("/demo/key-" + k, value));
        }
        setup.writeAll(creates).get(60, TimeUnit.SECONDS);
      }

      // 0. Warm up every JVM (JIT, connections) so the first measured phase is not the slowest for
      // that reason.
      say("warming up for %d s ...", warmupPhase);
      try (ZoolanderClient client =
          client(cluster, settings.duplicates()).readPolicy(ReadPolicy.all()).build()) {
        load(client, warmupPhase, value, "warming up every JVM");
      }

      // 1. Measure one duplicate: the workload through a client that knows only duplicate 1.
      say(
          "measuring one duplicate's latency for %d s at %.0f accesses/s (%.0f%% reads) ...",
          settings.calibrationSeconds(), settings.ratePerSec(), settings.readFraction() * 100);
      OpenLoopLoad.Result measured;
      try (ZoolanderClient client = client(cluster, 1).build()) {
        measured = load(client, settings.calibrationSeconds(), value, "measuring one duplicate");
      }
      EmpiricalLatency oneDuplicate = EmpiricalLatency.of(measured.histogram(), 1000);
      double tau = Double.isNaN(settings.tauMs()) ? oneDuplicate.quantile(0.9) : settings.tauMs();
      say(
          "one duplicate: p50 %.3f ms, p90 %.3f ms, p99 %.3f ms over %d accesses; tau = %.3f ms",
          oneDuplicate.quantile(0.5),
          oneDuplicate.quantile(0.9),
          oneDuplicate.quantile(0.99),
          oneDuplicate.sampleCount(),
          tau);

      // 2. Observe: the same workload through clients that know only the first N duplicates. Every
      // duplicate replies to every access (reads go to all of them too), so the largest run also
      // yields paired samples (one access timed on every duplicate) for the dependence, as a
      // production client gets them for free.
      int largest = settings.counts().stream().mapToInt(Integer::intValue).max().orElseThrow();
      Map<Long, double[]> paired = new ConcurrentHashMap<>();
      List<OpenLoopLoad.Result> results = new ArrayList<>();
      for (int n : settings.counts()) {
        say("running %d s against %d duplicate%s ...", settings.runSeconds(), n, n == 1 ? "" : "s");
        try (ZoolanderClient client = client(cluster, n).readPolicy(ReadPolicy.all()).build()) {
          if (n == largest && n >= 2) {
            // Reads and writes alike: both go to every duplicate, in the demo's mix.
            client.addReplyListener(e -> record(paired, e, n));
          }
          OpenLoopLoad.Result result =
              load(
                  client,
                  settings.runSeconds(),
                  value,
                  "running " + n + " duplicate" + (n == 1 ? "" : "s"));
          results.add(result);
          if (result.dropped() > 0 || result.failed() > 0) {
            say("  (%d arrivals dropped, %d accesses failed)", result.dropped(), result.failed());
          }
        }
      }

      // 3. Predict from the measurement: the measured CDF already holds this load's queueing.
      double[][] complete =
          paired.values().stream()
              .filter(row -> Arrays.stream(row).allMatch(v -> v >= 0))
              .toArray(double[][]::new);
      // How many duplicates are late together, from the paired samples; too few samples say nothing
      // (independence).
      ExchangeableDependence dependence =
          complete.length >= 100
              ? ExchangeableDependence.estimate(complete)
              : ExchangeableDependence.withCorrelation(0);
      SlaModel thesis = ThesisModel.create();
      // The engine, from the same measurement: its CDF already holds this load's queueing (rate 0
      // adds none), the dependence from the paired samples; intervals from both samples' sizes.
      SlaEngine.Builder engine =
          SlaEngine.builder().serviceTime(oneDuplicate).arrivalRatePerSec(0).dependence(dependence);
      double lo = oneDuplicate.quantile(0.25);
      double hi = Math.max(tau * 2, oneDuplicate.quantile(0.995));
      List<Row> rows = new ArrayList<>();
      for (int i = 0; i < settings.counts().size(); i++) {
        int n = settings.counts().get(i);
        OpenLoopLoad.Result result = results.get(i);
        Deployment deployment = Deployment.homogeneous(n, oneDuplicate, 0);
        SlaEngine predictor = engine.strategy(Strategy.predictability(n)).build();
        SlaEstimate atTau = predictor.predict(tau);
        rows.add(
            new Row(
                n,
                tau,
                result.slaAt((long) (tau * 1000)),
                thesis.predict(deployment, tau).sla(),
                atTau.sla(),
                atTau.low(),
                atTau.high(),
                predictor.missCurve(lo, hi, CURVE_POINTS),
                result.histogram()));
      }
      Outcome outcome = new Outcome(oneDuplicate, dependence.correlationAt(tau), tau, rows);
      progress(plannedSeconds, "done");
      out.println();
      printTable(outcome);
      return outcome;
    }
  }

  private ZoolanderClientBuilder client(EmbeddedCluster cluster, int duplicates) {
    ZoolanderClientBuilder builder =
        ZoolanderClient.builder()
            .repeater(
                cluster.repeater().boundAddress().getHostString(),
                cluster.repeater().boundAddress().getPort())
            .basePath(cluster.znodes().basePath())
            .requestTimeout(Duration.ofSeconds(30));
    for (int id = 1; id <= duplicates; id++) {
      builder.duplicate(cluster.duplicate(id).connectString());
    }
    return builder;
  }

  private OpenLoopLoad.Result load(ZoolanderClient client, int seconds, byte[] value, String what)
      throws InterruptedException {
    double readFraction = settings.readFraction();
    long before = doneSeconds;
    progress(before, what);
    OpenLoopLoad.Result result =
        OpenLoopLoad.builder()
            .ratePerSec(settings.ratePerSec())
            .duration(Duration.ofSeconds(seconds))
            .warmup(Duration.ofSeconds(settings.warmupSeconds()))
            .seed(settings.seed())
            .progress(elapsed -> progress(before + Math.min(elapsed, seconds), what))
            .build()
            .run(
                k -> {
                  String key = "/demo/key-" + (k % KEYS);
                  // A fixed, seed-independent read/write pattern: every run issues the same
                  // sequence of
                  // accesses.
                  boolean read = ((k * 0x9E3779B97F4A7C15L) >>> 40) % 1000 < readFraction * 1000;
                  return read ? client.getData(key) : client.setData(key, value, -1);
                });
    doneSeconds = before + seconds;
    return result;
  }

  /** Redraws the progress bar: {@code done} of the planned seconds, and what runs now. */
  private void progress(long done, String what) {
    int filled =
        plannedSeconds == 0
            ? PROGRESS_WIDTH
            : (int) Math.min(PROGRESS_WIDTH, done * PROGRESS_WIDTH / plannedSeconds);
    out.printf(
        "\r[%s%s] %3d%% %-40s",
        "#".repeat(filled),
        "-".repeat(PROGRESS_WIDTH - filled),
        plannedSeconds == 0 ? 100 : Math.min(100, done * 100 / plannedSeconds),
        what);
    out.flush();
  }

  private static void record(Map<Long, double[]> paired, ReplyEvent e, int duplicates) {
    double[] row =
        paired.computeIfAbsent(
            e.requestId() * 2 + (e.write() ? 1 : 0),
            id -> {
              double[] fresh = new double[duplicates];
              Arrays.fill(fresh, -1);
              return fresh;
            });
    row[e.duplicateIndex()] = e.latencyNanos() / 1e6;
  }

  private void printTable(Outcome o) {
    out.println();
    out.printf(
        "tau = %.3f ms (p90 of one duplicate unless --tau-ms); SLA = fraction of accesses within tau%n",
        o.tauMs());
    out.printf(
        "%10s %10s %10s %21s %7s %10s %10s %10s %10s%n",
        "duplicates",
        "observed",
        "predicted",
        "95% interval",
        "inside",
        "thesis",
        "p50 ms",
        "p99 ms",
        "p99.9 ms");
    for (Row r : o.rows()) {
      out.printf(
          "%10d %10.4f %10.4f %21s %7s %10.4f %10.3f %10.3f %10.3f%n",
          r.duplicates(),
          r.observed(),
          r.predicted(),
          String.format("%.4f..%.4f", r.low(), r.high()),
          r.observed() >= r.low() && r.observed() <= r.high() ? "yes" : "no",
          r.thesis(),
          r.latency().getValueAtPercentile(50) / 1e3,
          r.latency().getValueAtPercentile(99) / 1e3,
          r.latency().getValueAtPercentile(99.9) / 1e3);
    }
    out.println(
        "predicted: the engine from one duplicate's measured latency, with how many duplicates are late"
            + " together fitted from paired samples (intra-class correlation "
            + String.format("%.3f", o.correlationAtTau())
            + " at tau);");
    out.println(
        "  its interval holds the number of samples and of paired accesses. thesis: the thesis"
            + " baseline, independent duplicates, 1 - (1 - F(tau))^N.");
    out.flush();
  }

  private static void say(String format, Object... args) {
    if (LOG.isInfoEnabled()) {
      LOG.info(String.format(format, args));
    }
  }
}
