package io.zoolander.server.bench;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.zoolander.client.ReadPolicy;
import io.zoolander.client.ZoolanderClient;
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
import org.HdrHistogram.Histogram;

/**
 * Planned slowness measured: two deployments whose ZooKeeper servers snapshot often (a low {@code
 * snapCount} on a tree of a few MB), one whose plugins announce their snapshots to clients ({@code
 * zoolander.plugin.plannedSlownessMaxMs}) and one whose plugins do not. The same open-loop Poisson
 * mix of reads (to one duplicate at a time, {@link ReadPolicy#fixed(int) C = 1}, where leaving a
 * duplicate out matters) and writes (which cause the snapshots) runs on each; reported: read
 * latency percentiles and the planned-slowness announcements the client received. Bounded by the
 * duration and an access count.
 */
public final class PlannedSlownessBench {

  /** ZooKeeper's {@code snapCount}: a snapshot every 100 to 200 transactions (a batch is one). */
  public static final int SNAP_COUNT = 200;

  /**
   * Znodes in the tree (and read and written), so a snapshot has real work: with 1 KiB values,
   * about 1 MB.
   */
  public static final int KEYS = 1_000;

  /** Data bytes per znode. */
  public static final int VALUE_BYTES = 1_024;

  /** Measured accesses of one run at most. */
  public static final long MAX_ACCESSES_PER_RUN = 500_000;

  /** Announced maximum duration of a snapshot with announcements on, in ms. */
  public static final long ANNOUNCED_MAX_MS = 2_000;

  /**
   * One run.
   *
   * @param announced whether the plugins announced their snapshots
   * @param announcements planned-slowness messages the client received (starts and ends)
   */
  public record Row(
      boolean announced,
      double achievedPerSec,
      long readP50Micros,
      long readP99Micros,
      long readP999Micros,
      long readMaxMicros,
      long failed,
      long announcements) {}

  private final int duplicates;
  private final double ratePerSec;
  private final double readFraction;
  private final Duration duration;
  private final Duration warmup;

  /**
   * @param duplicates 2..8 single-server duplicates, child JVMs
   * @param ratePerSec offered accesses per second
   * @param readFraction fraction of reads, in (0, 1)
   */
  public PlannedSlownessBench(
      int duplicates, double ratePerSec, double readFraction, Duration duration, Duration warmup) {
    if (duplicates < 2 || duplicates > 8) {
      throw new IllegalArgumentException("duplicates must be in 2..8, was " + duplicates);
    }
    if (!(ratePerSec > 0)) {
      throw new IllegalArgumentException("ratePerSec must be positive, was " + ratePerSec);
    }
    if (!(readFraction > 0 && readFraction < 1)) {
      throw new IllegalArgumentException("readFraction must be in (0, 1), was " + readFraction);
    }
    this.duplicates = duplicates;
    this.ratePerSec = ratePerSec;
    this.readFraction = readFraction;
    this.duration = Objects.requireNonNull(duration, "duration must not be null");
    this.warmup = Objects.requireNonNull(warmup, "warmup must not be null");
  }

  /** Runs without, then with, announcements, handing a line per run to {@code log}. */
  public List<Row> run(Consumer<String> log) throws Exception {
    List<Row> rows = new ArrayList<>();
    for (boolean announced : List.of(false, true)) {
      Row row = runOne(announced);
      rows.add(row);
      log.accept(line(row));
    }
    return rows;
  }

  private Row runOne(boolean announced) throws Exception {
    EmbeddedCluster.Builder builder = EmbeddedCluster.builder().duplicates(duplicates);
    for (int id = 1; id <= duplicates; id++) {
      builder.duplicateProperty(
          id, "snapCount", Integer.toString(SNAP_COUNT)); // zookeeper.snapCount
      builder.duplicateProperty(
          id,
          "zoolander.plugin.plannedSlownessMaxMs",
          announced ? Long.toString(ANNOUNCED_MAX_MS) : "0");
    }
    try (EmbeddedCluster cluster = builder.start()) {
      byte[] value = new byte[VALUE_BYTES];
      SimpleMeterRegistry meters = new SimpleMeterRegistry();
      try (ZoolanderClient client =
          cluster.clientBuilder().readPolicy(ReadPolicy.fixed(1)).meterRegistry(meters).build()) {
        List<CompletableFuture<?>> created = new ArrayList<>();
        for (int k = 0; k < KEYS; k++) {
          created.add(client.create("/k" + k, value));
        }
        CompletableFuture.allOf(created.toArray(CompletableFuture[]::new))
            .get(120, TimeUnit.SECONDS);
        int readPerMille = (int) Math.round(readFraction * 1000);
        OpenLoopLoad load =
            OpenLoopLoad.builder()
                .ratePerSec(ratePerSec)
                .duration(duration)
                .warmup(warmup)
                .maxAccesses(MAX_ACCESSES_PER_RUN)
                .maxOutstanding(2_000)
                .seed(7)
                .classes(2, i -> Math.floorMod(i * 7919, 1000) < readPerMille ? 0 : 1)
                .build();
        OpenLoopLoad.Result r =
            load.run(
                i -> {
                  String key = "/k" + Math.floorMod(i * 31, KEYS);
                  return Math.floorMod(i * 7919, 1000) < readPerMille
                      ? client.getData(key)
                      : client.setData(key, value, -1);
                });
        Histogram reads = r.classes().get(0).histogram();
        return new Row(
            announced,
            r.achievedRatePerSec(),
            reads.getValueAtPercentile(50),
            reads.getValueAtPercentile(99),
            reads.getValueAtPercentile(99.9),
            reads.getMaxValue(),
            r.failed(),
            (long) meters.get("zoolander.client.read.planned.slowness").counter().count());
      }
    }
  }

  /**
   * @return the rows as a Markdown table
   */
  public static String markdown(List<Row> rows) {
    StringBuilder md = new StringBuilder();
    md.append(
        "| snapshots announced | achieved accesses/s | read p50 ms | read p99 ms | read p99.9 ms | read max ms |"
            + " failed | announcements received |\n");
    md.append("|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (Row r : rows) {
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %.0f | %.2f | %.2f | %.2f | %.2f | %d | %d |%n",
              r.announced() ? "yes" : "no",
              r.achievedPerSec(),
              r.readP50Micros() / 1e3,
              r.readP99Micros() / 1e3,
              r.readP999Micros() / 1e3,
              r.readMaxMicros() / 1e3,
              r.failed(),
              r.announcements()));
    }
    return md.toString();
  }

  private static String line(Row r) {
    return String.format(
        Locale.ROOT,
        "announced %-3s achieved %6.0f/s  read p50 %6.2f ms  p99 %7.2f ms  p99.9 %7.2f"
            + " ms  max %7.2f ms  failed %d  announcements %d",
        r.announced() ? "yes" : "no",
        r.achievedPerSec(),
        r.readP50Micros() / 1e3,
        r.readP99Micros() / 1e3,
        r.readP999Micros() / 1e3,
        r.readMaxMicros() / 1e3,
        r.failed(),
        r.announcements());
  }
}
