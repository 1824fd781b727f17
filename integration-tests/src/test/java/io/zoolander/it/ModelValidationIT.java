package io.zoolander.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.zoolander.client.ZoolanderClient;
import io.zoolander.client.ZoolanderClientBuilder;
import io.zoolander.model.CommonShock;
import io.zoolander.model.Deployment;
import io.zoolander.model.EmpiricalLatency;
import io.zoolander.model.ExchangeableDependence;
import io.zoolander.model.SlaModel;
import io.zoolander.model.ThesisModel;
import io.zoolander.server.testing.EmbeddedCluster;
import io.zoolander.server.workload.OpenLoopLoad;
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
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The thesis's validation (its Figures 10 and 11) on real ensembles: measure one duplicate's write
 * latency with independent anomalies injected, predict the SLA of 1, 2, 4 and 8 duplicates from
 * that measurement alone, then observe it.
 *
 * <p>Method. Eight single-server duplicates apply every write. A client connected to all eight
 * records, for every write, the latency of each duplicate's reply. The even writes are the
 * calibration half: duplicate 1's latencies are the thesis model's only input, and all eight
 * columns are the paired samples the correlation-aware models are fitted on. The odd writes are the
 * observation half: per write, the first reply among the first N duplicates, which is what a client
 * of an N-duplicate deployment sees. Writes are open-loop (Poisson, timed from the intended send
 * time). The two halves are disjoint samples interleaved in time, so slow drift of a shared machine
 * (JIT, page cache, other processes) does not pose as model error. Each run's paired samples are
 * kept in {@code target/model-validation/run-<seed>.csv} (one row per write, one column per
 * duplicate, ms).
 *
 * <p>Models. The thesis model assumes independent duplicates; {@link CommonShock} adds one shock
 * probability that makes all of them late at once; {@link ExchangeableDependence} keeps the
 * distribution of how many duplicates are late together, which also holds a slowdown that hits some
 * duplicates and not others (what two shared cores give). The exchangeable model is the one held to
 * the bound; the other two are reported beside it.
 *
 * <p>Error bound. Both the observed SLA and the model's input are estimates from n writes, so the
 * difference has a standard error {@code sqrt(s_obs (1 - s_obs) / n + (dS/dF)^2 F (1 - F) / n)}
 * with {@code S = 1 - (1 - F)^N}; a bound of 4 standard errors plus 0.005 for drift between the two
 * runs on a shared 2-core machine. (The thesis reports under 0.002 with 10,000 writes; these runs
 * use fewer to keep the suite short.) 16 duplicates are not run: 16 ZooKeeper JVMs on 2 cores make
 * CPU contention the dominant, common-mode anomaly.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
@Slow
class ModelValidationIT {
  private static final int DUPLICATES = 8;
  private static final int WRITES = 2_400;
  private static final double RATE_PER_SEC = 40;
  private static final String INDEPENDENT =
      "probability=0.1;delayMs=15;distribution=exponential;applies=writes";

  /**
   * A median write above this means the duplicates fell behind the arrivals (unloaded, the median
   * is about 5 ms): the run then measures a backlog that each duplicate drains at its own pace, not
   * the anomalies the models are about.
   */
  private static final double MAX_MEDIAN_MS = 100;

  private static final String HEADER =
      "\n| tau | N | observed | thesis | error | common shock | error | exchangeable"
          + " | error | bound |\n|---|---|---|---|---|---|---|---|---|---|\n";
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

  /** Per write, each duplicate's reply latency in ms (rows with every duplicate's reply). */
  private static double[][] run(long seed) throws Exception {
    double loadAtStart = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    ZoolanderClientBuilder builder = cluster.clientBuilder().requestTimeout(Duration.ofSeconds(60));
    Map<Long, double[]> rows = new ConcurrentHashMap<>();
    try (ZoolanderClient client = builder.build()) {
      client.addReplyListener(
          e -> {
            if (e.write()) {
              double[] row =
                  rows.computeIfAbsent(
                      e.requestId(),
                      id -> {
                        double[] r = new double[DUPLICATES];
                        Arrays.fill(r, -1);
                        return r;
                      });
              row[e.duplicateIndex()] = e.latencyNanos() / 1e6;
            }
          });
      byte[] value = new byte[128];
      OpenLoopLoad.builder()
          .ratePerSec(RATE_PER_SEC)
          .duration(Duration.ofSeconds((long) (WRITES / RATE_PER_SEC)))
          .warmup(Duration.ofSeconds(2))
          .seed(seed)
          .build()
          .run(k -> client.setData("/v", value, -1));
      // Every duplicate has applied (and so replied to) every write before the client goes.
      client.barrier(cluster.repeater().nextSeq() - 1).get(120, TimeUnit.SECONDS);
      // Replies already sent may still be in flight: wait (bounded) until every write has every
      // duplicate's reply.
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (rows.values().stream().anyMatch(r -> Arrays.stream(r).anyMatch(v -> v < 0))
          && System.nanoTime() < deadline) {
        java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
      }
    }
    // The host's load says how much the duplicates competed for its cores during the run.
    System.out.printf(
        "run %d: %d writes with every duplicate's reply; host load average %.1f at start, %.1f at end%n",
        seed,
        rows.values().stream().filter(r -> Arrays.stream(r).allMatch(v -> v >= 0)).count(),
        loadAtStart,
        ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    double[][] complete =
        new java.util.TreeMap<>(rows)
            .values().stream()
                .filter(r -> Arrays.stream(r).allMatch(v -> v >= 0))
                .toArray(double[][]::new);
    writeRows(seed, complete);
    return complete;
  }

  /**
   * Keeps the paired samples of a run (one row per write, one column per duplicate) for analysis
   * offline.
   */
  private static void writeRows(long seed, double[][] rows) throws IOException {
    Path dir = Path.of("target", "model-validation");
    Files.createDirectories(dir);
    Files.write(
        dir.resolve("run-" + seed + ".csv"),
        Arrays.stream(rows)
            .map(
                r ->
                    Arrays.stream(r)
                        .mapToObj(v -> String.format(Locale.ROOT, "%.3f", v))
                        .collect(Collectors.joining(",")))
            .toList());
  }

  /** Even rows (by request order) and odd rows. */
  private static double[][][] halves(double[][] rows) {
    double[][] even = new double[(rows.length + 1) / 2][];
    double[][] odd = new double[rows.length / 2][];
    for (int i = 0; i < rows.length; i++) {
      (i % 2 == 0 ? even : odd)[i / 2] = rows[i];
    }
    return new double[][][] {even, odd};
  }

  private static double observedSla(double[][] rows, int n, double tau) {
    long met =
        Arrays.stream(rows).filter(r -> Arrays.stream(r, 0, n).min().orElseThrow() <= tau).count();
    return (double) met / rows.length;
  }

  private static double bound(double observed, double f, int n, int samplesObs, int samplesCal) {
    double derivative = n * Math.pow(1 - f, n - 1);
    double variance =
        observed * (1 - observed) / samplesObs + derivative * derivative * f * (1 - f) / samplesCal;
    return 4 * Math.sqrt(variance) + 0.005;
  }

  private static double[] column(double[][] rows, int i) {
    return Arrays.stream(rows).mapToDouble(r -> r[i]).toArray();
  }

  private static double[][] firstColumns(double[][] rows, int n) {
    return Arrays.stream(rows).map(r -> Arrays.copyOf(r, n)).toArray(double[][]::new);
  }

  private static void assertKeptUp(EmpiricalLatency one) {
    assertThat(one.quantile(0.5))
        .as(
            "duplicate 1's median write %.1f ms: the duplicates fell behind the arrivals "
                + "(host load average %.1f), so this run measures a backlog, not anomalies; rerun on a quieter host",
            one.quantile(0.5), ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage())
        .isLessThan(MAX_MEDIAN_MS);
  }

  /** The three models for one Figure 10/11 row. */
  private record Models(SlaModel thesis, SlaModel commonShock, SlaModel exchangeable) {
    static Models fittedOn(double[][] calibration) {
      return new Models(
          ThesisModel.create(),
          ThesisModel.builder().dependence(CommonShock.estimate(calibration)).build(),
          ThesisModel.builder().dependence(ExchangeableDependence.estimate(calibration)).build());
    }
  }

  /** Appends a row and returns the exchangeable model's error. */
  private static double row(
      StringBuilder table,
      String tauLabel,
      String nLabel,
      double observed,
      double thesis,
      double shock,
      double exchangeable,
      double bound) {
    table.append(
        String.format(
            "| %s | %s | %.5f | %.5f | %+.5f | %.5f | %+.5f | %.5f | %+.5f | %.5f |%n",
            tauLabel,
            nLabel,
            observed,
            thesis,
            thesis - observed,
            shock,
            shock - observed,
            exchangeable,
            exchangeable - observed,
            bound));
    return exchangeable - observed;
  }

  /**
   * The dependence at tau, and each duplicate's late fraction: the exchangeable model assumes they
   * are alike.
   */
  private static String dependenceAt(double[][] calibration, double tau) {
    ExchangeableDependence dependence = ExchangeableDependence.estimate(calibration);
    return String.format(
        "rho %.3f, late counts K = 0..8: %s, late fraction per duplicate: %s",
        dependence.correlationAt(tau),
        Arrays.toString(
            LongStream.rangeClosed(0, DUPLICATES)
                .map(k -> dependence.lateCountAt(tau).count((int) k))
                .toArray()),
        Arrays.toString(
            LongStream.range(0, DUPLICATES)
                .mapToObj(
                    i ->
                        String.format(
                            Locale.ROOT,
                            "%.3f",
                            Arrays.stream(calibration).filter(r -> r[(int) i] > tau).count()
                                / (double) calibration.length))
                .toArray()));
  }

  @Test
  void observedSlaRisesWithDuplicatesAsPredicted() throws Exception {
    cluster.injectAnomalyEverywhere(INDEPENDENT);
    double[][][] halves = halves(run(11));
    double[][] calibration = halves[0];
    double[][] observation = halves[1];
    EmpiricalLatency one = EmpiricalLatency.of(column(calibration, 0));
    assertKeptUp(one);
    // The duplicates share two cores and one arrival stream, so a slowdown often hits several of
    // them, though rarely
    // all: the correlation-aware model held to the bound is the exchangeable one (the distribution
    // of how many
    // duplicates are late together, from the calibration half's paired samples); the thesis
    // (independence) and
    // common-shock models are reported beside it.
    Models models = Models.fittedOn(calibration);
    StringBuilder table = new StringBuilder(HEADER);
    double tau = one.quantile(0.9);
    double f = one.cdf(tau);
    String tauLabel = String.format("%.2f ms (p90)", tau);
    double previous = 0;
    for (int n : new int[] {1, 2, 4, 8}) {
      double observed = observedSla(observation, n, tau);
      Deployment d = Deployment.homogeneous(n, one, 0);
      double bound = bound(observed, f, n, observation.length, calibration.length);
      double error =
          row(
              table,
              tauLabel,
              Integer.toString(n),
              observed,
              models.thesis().predict(d, tau).sla(),
              models.commonShock().predict(d, tau).sla(),
              models.exchangeable().predict(d, tau).sla(),
              bound);
      assertThat(Math.abs(error))
          .as("N=%d: exchangeable error %+.5f, bound %.5f%s", n, error, bound, table)
          .isLessThanOrEqualTo(bound);
      assertThat(observed)
          .as("observed SLA rises with N%s", table)
          .isGreaterThanOrEqualTo(previous - 0.005);
      previous = observed;
    }
    // Beyond the measured duplicates: fitted on 4 columns only, predict 8 (reported, not asserted).
    Models fromFour = Models.fittedOn(firstColumns(calibration, 4));
    Deployment eight = Deployment.homogeneous(8, one, 0);
    double observedEight = observedSla(observation, 8, tau);
    row(
        table,
        tauLabel,
        "8 (fitted on 4)",
        observedEight,
        fromFour.thesis().predict(eight, tau).sla(),
        fromFour.commonShock().predict(eight, tau).sla(),
        fromFour.exchangeable().predict(eight, tau).sla(),
        bound(observedEight, f, 8, observation.length, calibration.length));
    table.append("\nAt tau: ").append(dependenceAt(calibration, tau)).append('\n');
    // Figure 11: tau from p75 to p99.5 at a fixed N. Below the tail, duplicates sharing two cores
    // and one arrival
    // stream queue together, so independence over-predicts there; the exchangeable model must hold
    // at every tau.
    int n = 2;
    table.append(HEADER);
    for (double q : new double[] {0.75, 0.9, 0.95, 0.99, 0.995}) {
      double t = one.quantile(q);
      double observed = observedSla(observation, n, t);
      Deployment d = Deployment.homogeneous(n, one, 0);
      double bound = bound(observed, one.cdf(t), n, observation.length, calibration.length);
      double error =
          row(
              table,
              String.format("%.2f ms (p%s)", t, Double.toString(q * 100).replaceAll("\\.0$", "")),
              Integer.toString(n),
              observed,
              models.thesis().predict(d, t).sla(),
              models.commonShock().predict(d, t).sla(),
              models.exchangeable().predict(d, t).sla(),
              bound);
      assertThat(Math.abs(error))
          .as("tau=p%.1f: exchangeable error %+.5f, bound %.5f%s", q * 100, error, bound, table)
          .isLessThanOrEqualTo(bound);
    }
    System.out.printf(
        "one duplicate: p50 %.2f ms, p90 %.2f ms, p99 %.2f ms%n",
        one.quantile(0.5), one.quantile(0.9), one.quantile(0.99));
    System.out.println(
        "Figure 10/11 reproduction ("
            + calibration.length
            + " calibration, "
            + observation.length
            + " observed writes):"
            + table);
  }

  @Test
  void withCommonModeSlowdownsIndependenceOverPredictsAndTheCorrelatedModelDoesNot()
      throws Exception {
    cluster.injectAnomalyEverywhere(
        INDEPENDENT + ";commonProbability=0.03;commonDelayMs=25;seed=5");
    double[][][] halves = halves(run(21));
    double[][] calibration = halves[0];
    double[][] observation = halves[1];
    EmpiricalLatency one = EmpiricalLatency.of(column(calibration, 0));
    assertKeptUp(one);
    double tau = one.quantile(0.9);
    String tauLabel = String.format("%.2f ms (p90)", tau);
    Models models = Models.fittedOn(calibration);
    StringBuilder table = new StringBuilder(HEADER);
    for (int n : new int[] {2, 4, 8}) {
      double observed = observedSla(observation, n, tau);
      Deployment d = Deployment.homogeneous(n, one, 0);
      double independent = models.thesis().predict(d, tau).sla();
      double bound = bound(observed, one.cdf(tau), 1, observation.length, calibration.length);
      double error =
          row(
              table,
              tauLabel,
              Integer.toString(n),
              observed,
              independent,
              models.commonShock().predict(d, tau).sla(),
              models.exchangeable().predict(d, tau).sla(),
              bound);
      assertThat(independent - observed)
          .as("N=%d: independence over-predicts by more than %.5f%s", n, bound, table)
          .isGreaterThan(bound);
      assertThat(Math.abs(error))
          .as("N=%d: exchangeable error %+.5f, bound %.5f%s", n, error, bound, table)
          .isLessThanOrEqualTo(bound);
    }
    table.append("\nAt tau: ").append(dependenceAt(calibration, tau)).append('\n');
    System.out.printf(
        "one duplicate: p50 %.2f ms, p90 %.2f ms, p99 %.2f ms%n",
        one.quantile(0.5), one.quantile(0.9), one.quantile(0.99));
    System.out.println(
        "Common-mode reproduction ("
            + calibration.length
            + " calibration, "
            + observation.length
            + " observed writes):"
            + table);
  }
}
