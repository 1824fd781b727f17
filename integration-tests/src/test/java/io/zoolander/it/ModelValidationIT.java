package io.zoolander.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.zoolander.client.ZoolanderClient;
import io.zoolander.client.ZoolanderClientBuilder;
import io.zoolander.model.CommonShock;
import io.zoolander.model.Deployment;
import io.zoolander.model.EmpiricalLatency;
import io.zoolander.model.SlaModel;
import io.zoolander.model.ThesisModel;
import io.zoolander.server.testing.EmbeddedCluster;
import io.zoolander.server.workload.OpenLoopLoad;
import io.zoolander.wire.Op;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The thesis's validation (its Figures 10 and 11) on real ensembles: measure one duplicate's write latency with
 * independent anomalies injected, predict the SLA of 1, 2, 4 and 8 duplicates from that measurement alone, then
 * observe it.
 *
 * <p>Method. Eight single-server duplicates apply every write. A client connected to all eight records, for every
 * write, the latency of each duplicate's reply. A calibration run gives duplicate 1's distribution (the model's only
 * input, with the paired samples for the correlation-aware model); a separate observation run gives, per write, the
 * first reply among the first N duplicates, which is what a client of an N-duplicate deployment sees. Writes are
 * open-loop (Poisson, timed from the intended send time). Calibration and observation are the even and the odd
 * writes of one run: disjoint samples, interleaved in time, so slow drift of a shared machine between two runs
 * (JIT, page cache, other processes) does not pose as model error.
 *
 * <p>Error bound. Both the observed SLA and the model's input are estimates from n writes, so the difference has a
 * standard error {@code sqrt(s_obs (1 - s_obs) / n + (dS/dF)^2 F (1 - F) / n)} with {@code S = 1 - (1 - F)^N}; a
 * bound of 4 standard errors plus 0.005 for drift between the two runs on a shared 2-core machine. (The thesis
 * reports under 0.002 with 10,000 writes; these runs use fewer to keep the suite short.) 16 duplicates are not run:
 * 16 ZooKeeper JVMs on 2 cores make CPU contention the dominant, common-mode anomaly.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class ModelValidationIT {
  private static final int DUPLICATES = 8;
  private static final int WRITES = 2_400;
  private static final double RATE_PER_SEC = 40;
  private static final String INDEPENDENT = "probability=0.1;delayMs=15;distribution=exponential;applies=writes";
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
    ZoolanderClientBuilder builder = cluster.clientBuilder().requestTimeoutMs(60_000);
    Map<Long, double[]> rows = new ConcurrentHashMap<>();
    try (ZoolanderClient client = builder.build()) {
      client.addReplyListener(e -> {
        if (e.write()) {
          double[] row = rows.computeIfAbsent(e.requestId(), id -> {
            double[] r = new double[DUPLICATES];
            Arrays.fill(r, -1);
            return r;
          });
          row[e.duplicateIndex()] = e.latencyNanos() / 1e6;
        }
      });
      byte[] value = new byte[128];
      OpenLoopLoad.builder().ratePerSec(RATE_PER_SEC).duration(Duration.ofSeconds((long) (WRITES / RATE_PER_SEC)))
          .warmup(Duration.ofSeconds(2)).seed(seed).build()
          .run(k -> client.setData("/v", value, -1));
      // Every duplicate has applied (and so replied to) every write before the client goes.
      client.barrier(cluster.repeater().nextSeq() - 1).get(120, TimeUnit.SECONDS);
      // Replies already sent may still be in flight: wait (bounded) until every write has every duplicate's reply.
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (rows.values().stream().anyMatch(r -> Arrays.stream(r).anyMatch(v -> v < 0))
          && System.nanoTime() < deadline) {
        java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
      }
    }
    System.out.printf("run %d: %d writes with every duplicate's reply%n", seed, rows.values().stream()
        .filter(r -> Arrays.stream(r).allMatch(v -> v >= 0)).count());
    return new java.util.TreeMap<>(rows).values().stream().filter(r -> Arrays.stream(r).allMatch(v -> v >= 0))
        .toArray(double[][]::new);
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
    long met = Arrays.stream(rows).filter(r -> Arrays.stream(r, 0, n).min().orElseThrow() <= tau).count();
    return (double) met / rows.length;
  }

  private static double bound(double observed, double f, int n, int samplesObs, int samplesCal) {
    double derivative = n * Math.pow(1 - f, n - 1);
    double variance = observed * (1 - observed) / samplesObs + derivative * derivative * f * (1 - f) / samplesCal;
    return 4 * Math.sqrt(variance) + 0.005;
  }

  private static double[] column(double[][] rows, int i) {
    return Arrays.stream(rows).mapToDouble(r -> r[i]).toArray();
  }

  @Test
  void observedSlaRisesWithDuplicatesAsPredicted() throws Exception {
    cluster.injectAnomalyEverywhere(INDEPENDENT);
    double[][][] halves = halves(run(11));
    double[][] calibration = halves[0];
    double[][] observation = halves[1];
    EmpiricalLatency one = EmpiricalLatency.of(column(calibration, 0));
    SlaModel thesis = ThesisModel.create();
    // The duplicates share two cores and one arrival stream, so part of their slowness is common-mode: the
    // correlation-aware model (common shock estimated from the calibration half) is the prediction held to the
    // bound; the thesis model's independence error is reported beside it.
    SlaModel correlated = ThesisModel.builder().dependence(CommonShock.estimate(calibration)).build();
    StringBuilder table = new StringBuilder("\n| tau | N | observed | thesis | error | correlation-aware | error | bound |"
        + "\n|---|---|---|---|---|---|---|---|\n");
    double tau = one.quantile(0.9);
    double f = one.cdf(tau);
    double previous = 0;
    for (int n : new int[] {1, 2, 4, 8}) {
      double observed = observedSla(observation, n, tau);
      Deployment d = Deployment.homogeneous(n, one, 0);
      double predicted = thesis.predict(d, tau).sla();
      double withShock = correlated.predict(d, tau).sla();
      double bound = bound(observed, f, n, observation.length, calibration.length);
      table.append(String.format("| %.2f ms (p90) | %d | %.5f | %.5f | %+.5f | %.5f | %+.5f | %.5f |%n", tau, n,
          observed, predicted, predicted - observed, withShock, withShock - observed, bound));
      assertThat(Math.abs(withShock - observed)).as("N=%d: observed %.5f, correlation-aware %.5f, bound %.5f%s", n,
          observed, withShock, bound, table).isLessThanOrEqualTo(bound);
      assertThat(observed).as("observed SLA rises with N%s", table).isGreaterThanOrEqualTo(previous - 0.005);
      previous = observed;
    }
    // Figure 11: tau from p75 to p99.5 at a fixed N. Below the tail, duplicates sharing two cores and one arrival
    // stream queue together, so independence over-predicts there; the correlation-aware model (common shock
    // estimated from the calibration half's paired samples) must hold at every tau, the thesis model is reported.
    int n = 2;
    table.append("\n| tau | N | observed | thesis | error | correlation-aware | error | bound |\n"
        + "|---|---|---|---|---|---|---|---|\n");
    for (double q : new double[] {0.75, 0.9, 0.95, 0.99, 0.995}) {
      double t = one.quantile(q);
      double observed = observedSla(observation, n, t);
      Deployment d = Deployment.homogeneous(n, one, 0);
      double predicted = thesis.predict(d, t).sla();
      double withShock = correlated.predict(d, t).sla();
      double bound = bound(observed, one.cdf(t), n, observation.length, calibration.length);
      table.append(String.format("| %.2f ms (p%s) | %d | %.5f | %.5f | %+.5f | %.5f | %+.5f | %.5f |%n", t,
          Double.toString(q * 100).replaceAll("\\.0$", ""), n, observed, predicted, predicted - observed, withShock,
          withShock - observed, bound));
      assertThat(Math.abs(withShock - observed)).as("tau=p%.1f: observed %.5f, correlation-aware %.5f%s", q * 100,
          observed, withShock, table).isLessThanOrEqualTo(bound);
    }
    System.out.printf("one duplicate: p50 %.2f ms, p90 %.2f ms, p99 %.2f ms%n", one.quantile(0.5), one.quantile(0.9),
        one.quantile(0.99));
    System.out.println("Figure 10/11 reproduction (" + calibration.length + " calibration, " + observation.length
        + " observed writes):" + table);
  }

  @Test
  void withCommonModeSlowdownsIndependenceOverPredictsAndTheCorrelatedModelDoesNot() throws Exception {
    cluster.injectAnomalyEverywhere(INDEPENDENT + ";commonProbability=0.03;commonDelayMs=25;seed=5");
    double[][][] halves = halves(run(21));
    double[][] calibration = halves[0];
    double[][] observation = halves[1];
    EmpiricalLatency one = EmpiricalLatency.of(column(calibration, 0));
    double tau = one.quantile(0.9);
    SlaModel independent = ThesisModel.create();
    SlaModel correlated = ThesisModel.builder().dependence(CommonShock.estimate(calibration)).build();
    StringBuilder table = new StringBuilder(
        "\n| N | observed | independent | error | correlation-aware | error |\n|---|---|---|---|---|---|\n");
    for (int n : new int[] {2, 4, 8}) {
      double observed = observedSla(observation, n, tau);
      Deployment d = Deployment.homogeneous(n, one, 0);
      double ind = independent.predict(d, tau).sla();
      double cor = correlated.predict(d, tau).sla();
      table.append(String.format("| %d | %.5f | %.5f | %+.5f | %.5f | %+.5f |%n", n, observed, ind, ind - observed,
          cor, cor - observed));
      double bound = bound(observed, one.cdf(tau), 1, observation.length, calibration.length);
      assertThat(ind - observed).as("N=%d: independence over-predicts%s", n, table).isGreaterThan(bound);
      assertThat(Math.abs(cor - observed)).as("N=%d: correlation-aware within %.5f%s", n, bound, table)
          .isLessThanOrEqualTo(bound);
    }
    System.out.printf("one duplicate: p50 %.2f ms, p90 %.2f ms, p99 %.2f ms%n", one.quantile(0.5), one.quantile(0.9),
        one.quantile(0.99));
    System.out.println("Common-mode reproduction at tau = p90 = " + String.format("%.2f", tau) + " ms:" + table);
  }
}
