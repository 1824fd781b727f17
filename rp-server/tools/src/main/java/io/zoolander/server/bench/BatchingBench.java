package io.zoolander.server.bench;

import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.zoolander.client.ZoolanderClient;
import io.zoolander.server.jmx.MeterNames;
import io.zoolander.server.repeater.BatchingPolicy;
import io.zoolander.server.testing.EmbeddedCluster;
import io.zoolander.server.workload.OpenLoopLoad;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.ToDoubleFunction;

/**
 * Repeater batching policies compared on one embedded deployment: for each offered write rate, in
 * each of {@code rounds} rounds, each policy (no waiting, fixed 1 ms and 5 ms, adaptive by default)
 * in an order rotated by one per round, so that no policy always runs first or last; before them,
 * an unrecorded run of each policy at the highest rate warms up the JVMs. For each run a repeater
 * with that policy takes over and an open-loop Poisson load of {@code setData} writes runs through
 * a new Zoolander client, latency timed from the intended send time; after it the duplicates must
 * converge (apply everything, same tree), so that no run inherits a backlog. Reported per run:
 * achieved writes/s, p50, p99, p99.9, dropped arrivals (more than {@code maxOutstanding} in
 * flight), failures, and from the repeater's meters the mean writes per flush and the mean
 * flush-to-first-ACK time; then per rate and policy the median of the rounds. Bounded: each run by
 * its duration and an access count, each convergence by a timeout.
 */
public final class BatchingBench {

  /** Writes of one run at most, measured. */
  public static final long MAX_ACCESSES_PER_RUN = 200_000;

  /** Writes in flight at most; arrivals beyond are dropped and counted. */
  public static final int MAX_OUTSTANDING = 2_000;

  /** Znodes written, round robin, created before the runs. */
  public static final int KEYS = 100;

  /** Data bytes per write. */
  public static final int VALUE_BYTES = 1_024;

  /**
   * The duplicates' JVMs: a heap and a collector for a sustained write load. The embedded cluster's
   * defaults (256 MiB, the serial collector) are for tests: ZooKeeper keeps its last 500 proposals,
   * each a batch of up to 64 writes here, about 130 MB live at 1 KiB values, and on the defaults a
   * full collection of 200 to 340 ms came every 2 s at 10,000 writes/s, which set p99 for every
   * policy alike (docs/benchmarks.md).
   */
  public static final List<String> DUPLICATE_JVM_ARGS = List.of("-Xmx1g", "-XX:+UseG1GC");

  /** How long the duplicates may take to apply everything after a run. */
  static final Duration CONVERGE_TIMEOUT = Duration.ofMinutes(2);

  /**
   * One run, or the median of a policy's runs at one rate ({@code round} 0).
   *
   * @param policy the repeater's batching policy
   * @param round 1.. for a run; 0 for a median over rounds
   * @param offeredPerSec the Poisson arrival rate
   * @param achievedPerSec writes completed per measured second
   * @param writesPerFlush mean writes the repeater flushed to the plugins together
   * @param flushToAckMicros mean time from a flush to the first ACK covering it
   */
  public record Row(
      String policy,
      int round,
      double offeredPerSec,
      double achievedPerSec,
      long p50Micros,
      long p99Micros,
      long p999Micros,
      long dropped,
      long failed,
      double writesPerFlush,
      long flushToAckMicros) {}

  private final int duplicates;
  private final boolean fsync;
  private final List<Double> rates;
  private final List<BatchingPolicy> policies;
  private final int rounds;
  private final Duration duration;
  private final Duration warmup;

  /**
   * @param duplicates 1..8 single-server duplicates, child JVMs
   * @param fsync whether ZooKeeper fsyncs its log (batching saves fsyncs: on, as in production)
   * @param rates offered write rates per second, each above 0
   * @param policies the policies compared
   * @param rounds runs of each policy at each rate, 1..20
   * @param duration measured time of each run
   * @param warmup discarded time before each run's measurement
   */
  public BatchingBench(
      int duplicates,
      boolean fsync,
      List<Double> rates,
      List<BatchingPolicy> policies,
      int rounds,
      Duration duration,
      Duration warmup) {
    if (duplicates < 1 || duplicates > 8) {
      throw new IllegalArgumentException("duplicates must be in 1..8, was " + duplicates);
    }
    if (rates.isEmpty() || rates.stream().anyMatch(r -> !(r > 0))) {
      throw new IllegalArgumentException("rates must be positive, were " + rates);
    }
    if (policies.isEmpty()) {
      throw new IllegalArgumentException("policies must not be empty");
    }
    if (rounds < 1 || rounds > 20) {
      throw new IllegalArgumentException("rounds must be in 1..20, was " + rounds);
    }
    this.duplicates = duplicates;
    this.fsync = fsync;
    this.rates = List.copyOf(rates);
    this.policies = List.copyOf(policies);
    this.rounds = rounds;
    this.duration = Objects.requireNonNull(duration, "duration must not be null");
    this.warmup = Objects.requireNonNull(warmup, "warmup must not be null");
  }

  /** The policies of {@code docs/benchmarks.md}: none, fixed 1 ms, fixed 5 ms, adaptive. */
  public static List<BatchingPolicy> standardPolicies() {
    return List.of(
        BatchingPolicy.none(),
        BatchingPolicy.fixed(1_000),
        BatchingPolicy.fixed(5_000),
        BatchingPolicy.adaptive());
  }

  /**
   * Runs every policy at every rate in every round, handing a line per run to {@code log}.
   *
   * @return every run, in the order run
   */
  public List<Row> run(Consumer<String> log) throws Exception {
    List<Row> rows = new ArrayList<>();
    try (EmbeddedCluster cluster =
        EmbeddedCluster.builder()
            .duplicates(duplicates)
            .fsync(fsync)
            .duplicateJvmArgs(DUPLICATE_JVM_ARGS.toArray(String[]::new))
            .start()) {
      byte[] value = new byte[VALUE_BYTES];
      try (ZoolanderClient setup = cluster.clientBuilder().build()) {
        List<CompletableFuture<?>> created = new ArrayList<>();
        for (int k = 0; k < KEYS; k++) {
          created.add(setup.create("/k" + k, value));
        }
        CompletableFuture.allOf(created.toArray(CompletableFuture[]::new))
            .get(60, TimeUnit.SECONDS);
      }
      // Warm-up, discarded: one run of each policy at the highest rate, so that the JVMs (the
      // duplicates' too) have
      // compiled the hot paths of every policy, and the first policy measured does not pay for it.
      double highest = rates.stream().mapToDouble(Double::doubleValue).max().orElseThrow();
      for (BatchingPolicy policy : policies) {
        runOne(cluster, policy, 0, highest, value);
      }
      for (double rate : rates) {
        for (int round = 1; round <= rounds; round++) {
          for (int i = 0; i < policies.size(); i++) {
            BatchingPolicy policy = policies.get((i + round - 1) % policies.size());
            Row row = runOne(cluster, policy, round, rate, value);
            rows.add(row);
            log.accept(line(row));
          }
        }
      }
    }
    return rows;
  }

  private Row runOne(
      EmbeddedCluster cluster, BatchingPolicy policy, int round, double rate, byte[] value)
      throws Exception {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    cluster.killRepeater();
    cluster.startRepeater(b -> b.batching(policy).meterRegistry(registry));
    try (ZoolanderClient client = cluster.clientBuilder().build()) {
      OpenLoopLoad load =
          OpenLoopLoad.builder()
              .ratePerSec(rate)
              .duration(duration)
              .warmup(warmup)
              .maxAccesses(MAX_ACCESSES_PER_RUN)
              .maxOutstanding(MAX_OUTSTANDING)
              .seed(42L + round)
              .build();
      OpenLoopLoad.Result r = load.run(i -> client.setData("/k" + (i % KEYS), value, -1));
      // A duplicate still behind would carry its backlog into the next policy's run (or past the
      // next repeater's
      // recovered log): wait until every duplicate has applied everything, and checked the trees
      // agree.
      cluster.awaitConverged(CONVERGE_TIMEOUT);
      DistributionSummary sizes = registry.find(MeterNames.REPEATER_BATCH_SIZE).summary();
      Timer latencies = registry.find(MeterNames.REPEATER_BATCH_LATENCY).timer();
      return new Row(
          policy.toString(),
          round,
          rate,
          r.achievedRatePerSec(),
          r.histogram().getValueAtPercentile(50),
          r.histogram().getValueAtPercentile(99),
          r.histogram().getValueAtPercentile(99.9),
          r.dropped(),
          r.failed(),
          sizes == null ? Double.NaN : sizes.mean(),
          latencies == null ? -1 : (long) latencies.mean(TimeUnit.MICROSECONDS));
    }
  }

  /**
   * @return per rate and policy, in the order first run, the median of each measure over the rounds
   *     (dropped and failed: the sum), round 0
   */
  public static List<Row> medians(List<Row> runs) {
    Map<String, List<Row>> byRun = new LinkedHashMap<>();
    for (Row r : runs) {
      byRun.computeIfAbsent(r.offeredPerSec() + "/" + r.policy(), k -> new ArrayList<>()).add(r);
    }
    List<Row> medians = new ArrayList<>();
    for (List<Row> same : byRun.values()) {
      Row first = same.get(0);
      medians.add(
          new Row(
              first.policy(),
              0,
              first.offeredPerSec(),
              median(same, Row::achievedPerSec),
              (long) median(same, Row::p50Micros),
              (long) median(same, Row::p99Micros),
              (long) median(same, Row::p999Micros),
              same.stream().mapToLong(Row::dropped).sum(),
              same.stream().mapToLong(Row::failed).sum(),
              median(same, Row::writesPerFlush),
              (long) median(same, Row::flushToAckMicros)));
    }
    medians.sort(Comparator.comparingDouble(Row::offeredPerSec));
    return medians;
  }

  private static double median(List<Row> rows, ToDoubleFunction<Row> measure) {
    double[] values = rows.stream().mapToDouble(measure).sorted().toArray();
    int n = values.length;
    return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
  }

  /**
   * @return the medians over rounds, then every run, as Markdown tables
   */
  public static String markdown(List<Row> runs) {
    StringBuilder md = new StringBuilder();
    md.append("Median of the rounds (dropped and failed: the sum):\n\n");
    table(md, medians(runs), false);
    md.append("\nEvery run, in the order run:\n\n");
    table(md, runs, true);
    return md.toString();
  }

  private static void table(StringBuilder md, List<Row> rows, boolean withRound) {
    md.append(withRound ? "| round " : "")
        .append(
            "| offered writes/s | batching | achieved writes/s | p50 ms | p99 ms"
                + " | p99.9 ms | dropped | failed | writes per flush | flush to ACK ms |\n");
    md.append(withRound ? "|---:" : "")
        .append("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (Row r : rows) {
      if (withRound) {
        md.append("| ").append(r.round()).append(' ');
      }
      md.append(
          String.format(
              Locale.ROOT,
              "| %.0f | %s | %.0f | %.2f | %.2f | %.2f | %d | %d | %.1f | %.2f |%n",
              r.offeredPerSec(),
              shortName(r.policy()),
              r.achievedPerSec(),
              r.p50Micros() / 1e3,
              r.p99Micros() / 1e3,
              r.p999Micros() / 1e3,
              r.dropped(),
              r.failed(),
              r.writesPerFlush(),
              r.flushToAckMicros() / 1e3));
    }
  }

  private static String line(Row r) {
    return String.format(
        Locale.ROOT,
        "round %d %6.0f/s %-13s achieved %7.0f/s  p50 %7.2f ms  p99 %8.2f ms"
            + "  p99.9 %8.2f ms  dropped %d  failed %d  writes/flush %.1f  flush->ACK %.2f ms",
        r.round(),
        r.offeredPerSec(),
        shortName(r.policy()),
        r.achievedPerSec(),
        r.p50Micros() / 1e3,
        r.p99Micros() / 1e3,
        r.p999Micros() / 1e3,
        r.dropped(),
        r.failed(),
        r.writesPerFlush(),
        r.flushToAckMicros() / 1e3);
  }

  private static String shortName(String policy) {
    return policy.startsWith("adaptive") ? "adaptive" : policy;
  }
}
