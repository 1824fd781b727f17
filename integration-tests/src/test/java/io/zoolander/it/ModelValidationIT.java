package io.zoolander.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.zoolander.client.ReadPolicy;
import io.zoolander.client.ZoolanderClient;
import io.zoolander.model.EmpiricalLatency;
import io.zoolander.model.ExchangeableDependence;
import io.zoolander.server.demo.RunPrediction;
import io.zoolander.server.testing.EmbeddedCluster;
import io.zoolander.server.workload.InterleavedHalves;
import io.zoolander.server.workload.OpenLoopLoad;
import io.zoolander.server.workload.PairedReplies;
import io.zoolander.testsupport.Slow;
import io.zoolander.wire.Op;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The thesis's validation (its Figures 10 and 11) on real ensembles, for reads and writes: predict
 * the SLA of 1 to 8 duplicates from a measurement and observe it, with independent anomalies and
 * with common-mode slowdowns.
 *
 * <p>Method. Eight single-server duplicates; a client that knows all eight sends every read to
 * every duplicate ({@link ReadPolicy#all()}) and every duplicate applies and answers every write,
 * so each access gives eight reply latencies ({@link PairedReplies}). The accesses are open-loop
 * (Poisson, half reads). The even accesses calibrate the model, the odd ones are observed ({@link
 * InterleavedHalves}): per access, the first reply among the first N duplicates, which is what a
 * client of an N-duplicate deployment sees. The two halves are disjoint samples interleaved in
 * time, so slow drift of a shared machine (JIT, page cache, other processes) does not pose as model
 * error. 10,000 accesses are observed (for every N) and 10,000 calibrate. Each run's paired samples
 * are kept in {@code target/model-validation/run-<seed>-<reads|writes>.csv} (one row per access,
 * one column per duplicate, ms).
 *
 * <p>Model. What the project ships: the engine ({@link RunPrediction}, as the demo uses it), from
 * the calibration half's latencies (no queueing added: they hold this load's) with how many
 * duplicates are late together fitted on its paired samples ({@link ExchangeableDependence}), reads
 * and writes apart. It is held, for every N from 1 to 8 and every tau from one duplicate's p75 to
 * its p99.5, to 3 standard errors of the difference between observation and prediction (the
 * observation's binomial error and the prediction's, from the engine's interval, which holds the
 * calibration's size). The thesis baseline (independent duplicates) is printed beside it, not
 * asserted. 16 duplicates are not run: 16 ZooKeeper JVMs on 2 cores make CPU contention the
 * dominant, common-mode anomaly.
 */
@Timeout(value = 20, unit = TimeUnit.MINUTES)
@Slow
class ModelValidationIT {
  private static final int DUPLICATES = 8;
  private static final int ACCESSES = 20_000;
  private static final double RATE_PER_SEC = 80;
  private static final double READ_FRACTION = 0.5;
  private static final double[] QUANTILES = {0.75, 0.9, 0.95, 0.99, 0.995};
  private static final double STANDARD_ERRORS = 3;
  private static final String INDEPENDENT =
      "probability=0.1;delayMs=15;distribution=exponential;applies=both";

  /**
   * A median above this means the duplicates fell behind the arrivals (unloaded, the median write
   * is about 5 ms): the run then measures a backlog that each duplicate drains at its own pace, not
   * the anomalies the model is about.
   */
  private static final double MAX_MEDIAN_MS = 100;

  private static final String HEADER =
      "\n| class | tau | N | observed | engine | error | bound | thesis | error |\n"
          + "|---|---|---|---|---|---|---|---|---|\n";
  private static EmbeddedCluster cluster;

  @BeforeAll
  static void start() throws Exception {
    cluster = EmbeddedCluster.builder().duplicates(DUPLICATES).start();
    try (ZoolanderClient client = cluster.newClient()) {
      client.writeAll(List.of(Op.create("/v", new byte[0]))).get(60, TimeUnit.SECONDS);
    }
  }

  @AfterAll
  static void stop() {
    cluster.close();
  }

  /** One run: every duplicate's reply latency to every access, reads and writes apart. */
  private static PairedReplies run(long seed) throws Exception {
    double loadAtStart = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    PairedReplies paired = new PairedReplies(DUPLICATES);
    try (ZoolanderClient client =
        cluster
            .clientBuilder()
            .readPolicy(ReadPolicy.all())
            .requestTimeout(Duration.ofSeconds(60))
            .build()) {
      byte[] value = new byte[128];
      client.addReplyListener(paired::record);
      // Warm the client's connections and the JIT up; their replies are in before recording.
      load(client, value, Duration.ofSeconds(5), seed + 1);
      paired.awaitComplete(Duration.ofSeconds(10));
      paired.clear();
      load(client, value, Duration.ofSeconds((long) (ACCESSES / RATE_PER_SEC)), seed);
      // Every duplicate has applied (and so replied to) every write before the client goes.
      client.barrier(cluster.repeater().nextSeq() - 1).get(120, TimeUnit.SECONDS);
      paired.awaitComplete(Duration.ofSeconds(10));
    }
    // The host's load says how much the duplicates competed for its cores during the run.
    System.out.printf(
        "run %d: %d reads and %d writes with every duplicate's reply; host load average %.1f at"
            + " start, %.1f at end%n",
        seed,
        paired.rows(false).length,
        paired.rows(true).length,
        loadAtStart,
        ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    writeRows(seed, "reads", paired.rows(false));
    writeRows(seed, "writes", paired.rows(true));
    return paired;
  }

  private static void load(ZoolanderClient client, byte[] value, Duration duration, long seed)
      throws InterruptedException {
    OpenLoopLoad.builder()
        .ratePerSec(RATE_PER_SEC)
        .duration(duration)
        .warmup(Duration.ZERO)
        .seed(seed)
        .build()
        .run(
            k -> {
              // A fixed read/write pattern, independent of the seed.
              boolean read = ((k * 0x9E3779B97F4A7C15L) >>> 40) % 1000 < READ_FRACTION * 1000;
              return read ? client.getData("/v") : client.setData("/v", value, -1);
            });
  }

  /** Keeps a run's paired samples (one row per access, one column per duplicate) for analysis. */
  private static void writeRows(long seed, String kind, double[][] rows) throws IOException {
    Path dir = Path.of("target", "model-validation");
    Files.createDirectories(dir);
    Files.write(
        dir.resolve("run-" + seed + "-" + kind + ".csv"),
        Arrays.stream(rows)
            .map(
                r ->
                    Arrays.stream(r)
                        .mapToObj(v -> String.format(Locale.ROOT, "%.3f", v))
                        .collect(Collectors.joining(",")))
            .toList());
  }

  private static void assertKeptUp(String kind, EmpiricalLatency one) {
    assertThat(one.quantile(0.5))
        .as(
            "duplicate 1's median %s %.1f ms: the duplicates fell behind the arrivals (host load"
                + " average %.1f), so this run measures a backlog, not anomalies; rerun on a quieter"
                + " host",
            kind,
            one.quantile(0.5),
            ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage())
        .isLessThan(MAX_MEDIAN_MS);
  }

  /**
   * Holds the engine to the bound for one class at every N and tau; appends the rows to {@code
   * table} and returns how many rows there were.
   */
  private static int checkClass(String kind, double[][] rows, StringBuilder table) {
    InterleavedHalves halves = InterleavedHalves.of(rows);
    InterleavedHalves none = InterleavedHalves.of(new double[0][]);
    // Half of this class's accesses are observed; nearly all must have every duplicate's reply.
    double expected = ACCESSES * (kind.equals("reads") ? READ_FRACTION : 1 - READ_FRACTION) / 2;
    assertThat((double) halves.observation().length)
        .as("%s observed with every duplicate's reply (of about %.0f)", kind, expected)
        .isGreaterThan(0.9 * expected);
    EmpiricalLatency one =
        EmpiricalLatency.of(Arrays.stream(halves.calibration()).mapToDouble(r -> r[0]).toArray());
    assertKeptUp(kind, one);
    int checked = 0;
    for (int n = 1; n <= DUPLICATES; n++) {
      RunPrediction prediction =
          RunPrediction.of(
              n, kind.equals("reads") ? halves : none, kind.equals("reads") ? none : halves);
      for (double q : QUANTILES) {
        double tau = one.quantile(q);
        double observed = halves.observedSla(n, tau);
        RunPrediction.Band band = prediction.at(tau);
        double bound = STANDARD_ERRORS * band.standardError();
        double error = band.sla() - observed;
        double thesis = prediction.thesis(tau);
        table.append(
            String.format(
                Locale.ROOT,
                "| %s | %.2f ms (p%s) | %d | %.5f | %.5f | %+.5f | %.5f | %.5f | %+.5f |%n",
                kind,
                tau,
                Double.toString(q * 100).replaceAll("\\.0$", ""),
                n,
                observed,
                band.sla(),
                error,
                bound,
                thesis,
                thesis - observed));
        assertThat(Math.abs(error))
            .as(
                "%s, N=%d, tau=p%.1f: engine error %+.5f, bound %.5f%s",
                kind, n, q * 100, error, bound, table)
            .isLessThanOrEqualTo(bound);
        checked++;
      }
    }
    return checked;
  }

  /** Fitted on the first 4 duplicates only, 8 predicted: printed, not asserted. */
  private static void beyondTheMeasured(String kind, double[][] rows, StringBuilder table) {
    InterleavedHalves halves = InterleavedHalves.of(rows);
    double[][] four =
        Arrays.stream(halves.calibration()).map(r -> Arrays.copyOf(r, 4)).toArray(double[][]::new);
    InterleavedHalves fromFour = new InterleavedHalves(four, halves.observation());
    InterleavedHalves none = InterleavedHalves.of(new double[0][]);
    RunPrediction eight =
        kind.equals("reads")
            ? RunPrediction.of(8, fromFour, none)
            : RunPrediction.of(8, none, fromFour);
    double tau =
        EmpiricalLatency.of(Arrays.stream(four).mapToDouble(r -> r[0]).toArray()).quantile(0.9);
    table.append(
        String.format(
            Locale.ROOT,
            "%s, N = 8 fitted on 4 duplicates, tau p90: observed %.5f, engine %.5f (interval"
                + " %.5f..%.5f at 3 standard errors), thesis %.5f%n",
            kind,
            halves.observedSla(8, tau),
            eight.at(tau).sla(),
            eight.at(tau).low(STANDARD_ERRORS),
            eight.at(tau).high(STANDARD_ERRORS),
            eight.thesis(tau)));
  }

  private static void validate(String title, long seed) throws Exception {
    PairedReplies paired = run(seed);
    StringBuilder table = new StringBuilder(HEADER);
    int checked = 0;
    for (String kind : List.of("reads", "writes")) {
      double[][] rows = paired.rows(kind.equals("writes"));
      checked += checkClass(kind, rows, table);
    }
    table.append('\n');
    for (String kind : List.of("reads", "writes")) {
      beyondTheMeasured(kind, paired.rows(kind.equals("writes")), table);
    }
    System.out.println(title + ": " + checked + " points within the bound" + table);
  }

  @Test
  void withIndependentAnomaliesTheEnginePredictsEveryDuplicateCountAndBound() throws Exception {
    cluster.injectAnomalyEverywhere(INDEPENDENT);
    validate("Independent anomalies (Figures 10 and 11)", 11);
  }

  @Test
  void withCommonModeSlowdownsTheEnginePredictsEveryDuplicateCountAndBound() throws Exception {
    // Slowdowns that hit every duplicate at once: independence over-predicts what N duplicates
    // buy; the thesis baseline's error is printed beside the engine's.
    cluster.injectAnomalyEverywhere(
        INDEPENDENT + ";commonProbability=0.03;commonDelayMs=25;seed=5");
    validate("Common-mode slowdowns", 21);
  }
}
