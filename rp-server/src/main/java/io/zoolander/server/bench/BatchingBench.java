package io.zoolander.server.bench;

import io.zoolander.client.ZoolanderClient;
import io.zoolander.server.repeater.BatchingPolicy;
import io.zoolander.server.testing.EmbeddedCluster;
import io.zoolander.server.workload.OpenLoopLoad;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Repeater batching policies compared on one embedded deployment: for each offered write rate (low, high) and each
 * policy (no waiting, fixed 1 ms and 5 ms, adaptive), a repeater with that policy takes over and an open-loop Poisson
 * load of {@code setData} writes runs through a new Zoolander client, latency timed from the intended send time.
 * Reported: achieved writes/s, p50, p99, p99.9, dropped arrivals (more than {@code maxOutstanding} in flight) and
 * failures. Bounded: each run by its duration and an access count.
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
   * One run.
   *
   * @param policy the repeater's batching policy
   * @param offeredPerSec the Poisson arrival rate
   * @param achievedPerSec writes completed per measured second
   */
  public record Row(String policy, double offeredPerSec, double achievedPerSec, long p50Micros, long p99Micros,
      long p999Micros, long dropped, long failed) {}

  private final int duplicates;
  private final boolean fsync;
  private final List<Double> rates;
  private final List<BatchingPolicy> policies;
  private final Duration duration;
  private final Duration warmup;

  /**
   * @param duplicates 1..8 single-server duplicates, child JVMs
   * @param fsync whether ZooKeeper fsyncs its log (batching saves fsyncs: on, as in production)
   * @param rates offered write rates per second, each above 0
   * @param policies the policies compared
   * @param duration measured time of each run
   * @param warmup discarded time before each run's measurement
   */
  public BatchingBench(int duplicates, boolean fsync, List<Double> rates, List<BatchingPolicy> policies,
      Duration duration, Duration warmup) {
    if (duplicates < 1 || duplicates > 8) {
      throw new IllegalArgumentException("duplicates must be in 1..8, was " + duplicates);
    }
    if (rates.isEmpty() || rates.stream().anyMatch(r -> !(r > 0))) {
      throw new IllegalArgumentException("rates must be positive, were " + rates);
    }
    if (policies.isEmpty()) {
      throw new IllegalArgumentException("policies must not be empty");
    }
    this.duplicates = duplicates;
    this.fsync = fsync;
    this.rates = List.copyOf(rates);
    this.policies = List.copyOf(policies);
    this.duration = Objects.requireNonNull(duration, "duration must not be null");
    this.warmup = Objects.requireNonNull(warmup, "warmup must not be null");
  }

  /** The policies of {@code docs/benchmarks.md}: none, fixed 1 ms, fixed 5 ms, adaptive. */
  public static List<BatchingPolicy> standardPolicies() {
    return List.of(BatchingPolicy.none(), BatchingPolicy.fixed(1_000), BatchingPolicy.fixed(5_000),
        BatchingPolicy.adaptive());
  }

  /** Runs every rate with every policy, in that order, handing a line per run to {@code log}. */
  public List<Row> run(Consumer<String> log) throws Exception {
    List<Row> rows = new ArrayList<>();
    try (EmbeddedCluster cluster = EmbeddedCluster.builder().duplicates(duplicates).fsync(fsync).start()) {
      byte[] value = new byte[VALUE_BYTES];
      try (ZoolanderClient setup = cluster.clientBuilder().build()) {
        List<CompletableFuture<?>> created = new ArrayList<>();
        for (int k = 0; k < KEYS; k++) {
          created.add(setup.create("/k" + k, value));
        }
        CompletableFuture.allOf(created.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
      }
      // JVM warm-up (as long as a run's), discarded: otherwise the first policy measured pays for compiling every hot
      // path.
      try (ZoolanderClient client = cluster.clientBuilder().build()) {
        OpenLoopLoad.builder().ratePerSec(rates.get(rates.size() - 1)).duration(warmup.plus(duration))
            .warmup(Duration.ZERO).maxAccesses(MAX_ACCESSES_PER_RUN).maxOutstanding(MAX_OUTSTANDING).seed(1).build()
            .run(i -> client.setData("/k" + (i % KEYS), value, -1));
      }
      for (double rate : rates) {
        for (BatchingPolicy policy : policies) {
          cluster.killRepeater();
          cluster.startRepeater(b -> b.batching(policy));
          try (ZoolanderClient client = cluster.clientBuilder().build()) {
            OpenLoopLoad load = OpenLoopLoad.builder().ratePerSec(rate).duration(duration).warmup(warmup)
                .maxAccesses(MAX_ACCESSES_PER_RUN).maxOutstanding(MAX_OUTSTANDING).seed(42).build();
            OpenLoopLoad.Result r = load.run(i -> client.setData("/k" + (i % KEYS), value, -1));
            Row row = new Row(policy.toString(), rate, r.achievedRatePerSec(),
                r.histogram().getValueAtPercentile(50), r.histogram().getValueAtPercentile(99),
                r.histogram().getValueAtPercentile(99.9), r.dropped(), r.failed());
            rows.add(row);
            log.accept(line(row));
          }
        }
      }
    }
    return rows;
  }

  /** @return the rows as a Markdown table */
  public static String markdown(List<Row> rows) {
    StringBuilder md = new StringBuilder();
    md.append("| offered writes/s | batching | achieved writes/s | p50 ms | p99 ms | p99.9 ms | dropped | failed |\n");
    md.append("|---:|---|---:|---:|---:|---:|---:|---:|\n");
    for (Row r : rows) {
      md.append(String.format(Locale.ROOT, "| %.0f | %s | %.0f | %.2f | %.2f | %.2f | %d | %d |%n",
          r.offeredPerSec(), shortName(r.policy()), r.achievedPerSec(), r.p50Micros() / 1e3, r.p99Micros() / 1e3,
          r.p999Micros() / 1e3, r.dropped(), r.failed()));
    }
    return md.toString();
  }

  private static String line(Row r) {
    return String.format(Locale.ROOT, "%6.0f/s %-10s achieved %7.0f/s  p50 %7.2f ms  p99 %8.2f ms  p99.9 %8.2f ms"
            + "  dropped %d  failed %d", r.offeredPerSec(), shortName(r.policy()), r.achievedPerSec(),
        r.p50Micros() / 1e3, r.p99Micros() / 1e3, r.p999Micros() / 1e3, r.dropped(), r.failed());
  }

  private static String shortName(String policy) {
    return policy.startsWith("adaptive") ? "adaptive" : policy;
  }
}
