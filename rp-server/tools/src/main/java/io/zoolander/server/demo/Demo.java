package io.zoolander.server.demo;

import io.zoolander.client.ReadPolicy;
import io.zoolander.client.ZoolanderClient;
import io.zoolander.client.ZoolanderClientBuilder;
import io.zoolander.model.EmpiricalLatency;
import io.zoolander.model.ExchangeableDependence;
import io.zoolander.model.SlaEngine;
import io.zoolander.server.testing.EmbeddedCluster;
import io.zoolander.server.workload.InterleavedHalves;
import io.zoolander.server.workload.OpenLoopLoad;
import io.zoolander.server.workload.PairedReplies;
import io.zoolander.wire.Op;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The demo: starts an embedded deployment, warms every JVM up, then runs the same open-loop
 * workload against 1, 2, 4... duplicates and sets what it observed beside what the engine ({@link
 * SlaEngine}) predicted, with the interval the observation should fall in, and the thesis baseline.
 *
 * <p>Every run calibrates itself: every duplicate replies to every access (reads go to all of
 * them), so each access gives one latency per duplicate ({@link PairedReplies}); the even accesses
 * calibrate the engine (one duplicate's latency, and how many duplicates are late together), the
 * odd ones are observed ({@link InterleavedHalves}), reads and writes apart. The prediction for a
 * row thus comes from the same minutes, on the same machine, as its observation. Its output is a
 * progress bar and the table; what it does step by step goes to the log (slf4j, logger {@code
 * io.zoolander.server.demo.Demo}).
 */
public final class Demo {
  private static final Logger LOG = LoggerFactory.getLogger(Demo.class);
  private static final int KEYS = 16;
  private static final int WARMUP_PHASE_SECONDS = 5;
  private static final int PROGRESS_WIDTH = 40;
  private static final Duration STRAGGLERS = Duration.ofSeconds(10);

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
   * @param accesses observed accesses (the run's odd half, reads and writes)
   * @param observed fraction of them whose first reply came within tau
   * @param thesis the thesis baseline's SLA (independent duplicates, the run's calibration)
   * @param predicted the engine's SLA at tau, from the run's calibration half
   * @param low low end of the 95% interval of the observation
   * @param high high end of the 95% interval
   * @param low999 low end of the 99.9% interval
   * @param high999 high end of the 99.9% interval
   * @param curve the prediction over the chart's bounds, with its band
   * @param firstReplies the observed accesses' first-reply latencies (ms)
   */
  public record Row(
      int duplicates,
      double tauMs,
      long accesses,
      double observed,
      double thesis,
      double predicted,
      double low,
      double high,
      double low999,
      double high999,
      List<RunPrediction.Band> curve,
      EmpiricalLatency firstReplies) {

    /** Whether the observation is inside the 95% interval. */
    public boolean inside95() {
      return observed >= low && observed <= high;
    }

    /** Whether the observation is inside the 99.9% interval. */
    public boolean inside999() {
      return observed >= low999 && observed <= high999;
    }
  }

  /**
   * What the demo measured and predicted.
   *
   * @param tauMs the bound
   * @param correlationAtTau how alike the duplicates are late at tau (the largest run's)
   * @param rows one per duplicate count
   */
  public record Outcome(double tauMs, double correlationAtTau, List<Row> rows) {}

  /** One run's paired replies, reads and writes apart, split into halves. */
  private record Run(int duplicates, InterleavedHalves reads, InterleavedHalves writes) {}

  public Outcome run() throws Exception {
    int warmupPhase =
        Math.max(settings.warmupSeconds(), Math.min(WARMUP_PHASE_SECONDS, settings.runSeconds()));
    plannedSeconds =
        warmupPhase
            + (long) settings.counts().size() * (settings.warmupSeconds() + settings.runSeconds());
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

      // Warm up every JVM (JIT, connections) before anything is measured.
      say("warming up for %d s ...", warmupPhase);
      try (ZoolanderClient client =
          client(cluster, settings.duplicates()).readPolicy(ReadPolicy.all()).build()) {
        load(client, warmupPhase, value, "warming up every JVM", 0);
      }

      // Each run: the workload through a client that knows only the first N duplicates, every
      // reply recorded; its own calibration (even accesses) and observation (odd accesses).
      List<Run> runs = new ArrayList<>();
      for (int n : settings.counts()) {
        say("running %d s against %d duplicate%s ...", settings.runSeconds(), n, n == 1 ? "" : "s");
        runs.add(observe(cluster, n, value));
      }

      // tau: one duplicate's p90 in the first run's calibration half, unless given.
      Run first = runs.get(0);
      double tau =
          Double.isNaN(settings.tauMs())
              ? EmpiricalLatency.of(firstColumn(first)).quantile(0.9)
              : settings.tauMs();
      say("tau = %.3f ms", tau);
      Run largest = runs.stream().max(Comparator.comparingInt(Run::duplicates)).orElseThrow();
      double[][] largestCalibration =
          Stream.concat(
                  Arrays.stream(largest.reads().calibration()),
                  Arrays.stream(largest.writes().calibration()))
              .toArray(double[][]::new);
      double correlation =
          largest.duplicates() >= 2 && largestCalibration.length >= 100
              ? ExchangeableDependence.estimate(largestCalibration).correlationAt(tau)
              : 0;
      List<Row> rows = new ArrayList<>();
      for (Run run : runs) {
        rows.add(row(run, tau));
      }
      Outcome outcome = new Outcome(tau, correlation, rows);
      progress(plannedSeconds, "done");
      out.println();
      printTable(outcome);
      return outcome;
    }
  }

  /** One run against the first {@code n} duplicates, every duplicate's reply to every access. */
  private Run observe(EmbeddedCluster cluster, int n, byte[] value) throws InterruptedException {
    String what = "running " + n + " duplicate" + (n == 1 ? "" : "s");
    try (ZoolanderClient client = client(cluster, n).readPolicy(ReadPolicy.all()).build()) {
      PairedReplies paired = new PairedReplies(n);
      client.addReplyListener(paired::record);
      // The new client's connections warm up; their replies are in before recording starts.
      load(client, settings.warmupSeconds(), value, what, 0);
      paired.awaitComplete(STRAGGLERS);
      paired.clear();
      OpenLoopLoad.Result result = load(client, settings.runSeconds(), value, what, 0);
      if (result.dropped() > 0 || result.failed() > 0) {
        say("  (%d arrivals dropped, %d accesses failed)", result.dropped(), result.failed());
      }
      if (!paired.awaitComplete(STRAGGLERS)) {
        say("  %d accesses still lack a duplicate's reply: left out", paired.incomplete());
      }
      return new Run(
          n, InterleavedHalves.of(paired.rows(false)), InterleavedHalves.of(paired.rows(true)));
    }
  }

  private static double[] firstColumn(Run run) {
    return Stream.concat(
            Arrays.stream(run.reads().calibration()), Arrays.stream(run.writes().calibration()))
        .mapToDouble(r -> r[0])
        .toArray();
  }

  private static Row row(Run run, double tau) {
    int n = run.duplicates();
    RunPrediction prediction = RunPrediction.of(n, run.reads(), run.writes());
    RunPrediction.Band atTau = prediction.at(tau);
    double[] firstReplies =
        Stream.concat(
                Arrays.stream(run.reads().observation()), Arrays.stream(run.writes().observation()))
            .mapToDouble(r -> Arrays.stream(r, 0, n).min().orElseThrow())
            .toArray();
    EmpiricalLatency observed = EmpiricalLatency.of(firstReplies);
    say(
        "%d duplicate%s: reads %d calibrating, %d observed (SLA %.4f); writes %d calibrating, %d"
            + " observed (SLA %.4f); predicted %.4f +- %.4f, observed %.4f",
        n,
        n == 1 ? "" : "s",
        run.reads().calibration().length,
        run.reads().observation().length,
        run.reads().observedSla(n, tau),
        run.writes().calibration().length,
        run.writes().observation().length,
        run.writes().observedSla(n, tau),
        atTau.sla(),
        atTau.standardError(),
        observed.cdf(tau));
    double lo = observed.quantile(0.25);
    double hi = Math.max(tau * 2, observed.quantile(0.995));
    return new Row(
        n,
        tau,
        firstReplies.length,
        observed.cdf(tau),
        prediction.thesis(tau),
        atTau.sla(),
        atTau.low(RunPrediction.Z95),
        atTau.high(RunPrediction.Z95),
        atTau.low(RunPrediction.Z999),
        atTau.high(RunPrediction.Z999),
        prediction.curve(lo, hi, CURVE_POINTS),
        observed);
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

  private OpenLoopLoad.Result load(
      ZoolanderClient client, int seconds, byte[] value, String what, int warmupSeconds)
      throws InterruptedException {
    double readFraction = settings.readFraction();
    long before = doneSeconds;
    progress(before, what);
    OpenLoopLoad.Result result =
        OpenLoopLoad.builder()
            .ratePerSec(settings.ratePerSec())
            .duration(Duration.ofSeconds(seconds))
            .warmup(Duration.ofSeconds(warmupSeconds))
            .seed(settings.seed())
            .progress(elapsed -> progress(before + Math.min(elapsed, seconds), what))
            .build()
            .run(
                k -> {
                  String key = "/demo/key-" + (k % KEYS);
                  // A fixed, seed-independent read/write pattern: every run issues the same
                  // sequence of accesses.
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

  private void printTable(Outcome o) {
    out.println();
    out.printf(
        "tau = %.3f ms (p90 of one duplicate unless --tau-ms); SLA = fraction of accesses within tau%n",
        o.tauMs());
    out.printf(
        "%10s %9s %10s %10s %21s %7s %7s %10s %10s %10s %10s%n",
        "duplicates",
        "accesses",
        "observed",
        "predicted",
        "95% interval",
        "in 95%",
        "in 99.9",
        "thesis",
        "p50 ms",
        "p99 ms",
        "p99.9 ms");
    for (Row r : o.rows()) {
      out.printf(
          "%10d %9d %10.4f %10.4f %21s %7s %7s %10.4f %10.3f %10.3f %10.3f%n",
          r.duplicates(),
          r.accesses(),
          r.observed(),
          r.predicted(),
          String.format("%.4f..%.4f", r.low(), r.high()),
          r.inside95() ? "yes" : "no",
          r.inside999() ? "yes" : "no",
          r.thesis(),
          r.firstReplies().quantile(0.5),
          r.firstReplies().quantile(0.99),
          r.firstReplies().quantile(0.999));
    }
    out.println(
        "Every run calibrates itself: every duplicate replies to every access; the even accesses are"
            + " the engine's input");
    out.println(
        "  (one duplicate's latency and how many duplicates are late together, intra-class"
            + " correlation "
            + String.format("%.3f", o.correlationAtTau())
            + " at tau in the largest run),");
    out.println(
        "  the odd ones are observed (first reply), reads and writes predicted apart and combined"
            + " per the run's mix.");
    out.println(
        "  The interval holds the calibration's and the observation's sample sizes. thesis: the"
            + " thesis baseline, independent duplicates, 1 - (1 - F(tau))^N.");
    out.flush();
  }

  private static void say(String format, Object... args) {
    if (LOG.isInfoEnabled()) {
      LOG.info(String.format(format, args));
    }
  }
}
