package io.zoolander.server.bench;

import io.zoolander.client.RetryBudget;
import io.zoolander.client.ZoolanderClient;
import io.zoolander.client.ZoolanderClientBuilder;
import io.zoolander.server.repeater.AdmissionSettings;
import io.zoolander.server.repeater.AdmissionState;
import io.zoolander.server.repeater.Repeater;
import io.zoolander.server.testing.EmbeddedCluster;
import io.zoolander.server.workload.OpenLoopLoad;
import io.zoolander.wire.Op;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.HdrHistogram.Histogram;

/**
 * {@code zoolander bench --admission}: writes offered above capacity, without and with the
 * repeater's admission control. Every duplicate is slowed the same way (the anomaly injector stalls
 * each write {@code writeDelayMs} before it is applied), so capacity is known: about {@code 1000 /
 * writeDelayMs} writes a second. Three phases, each on a fresh in-process repeater and client, with
 * the same seeded Poisson arrivals: unprotected; admission control with clients that do not retry a
 * shed write (so the table shows what the repeater admitted); admission control with the client's
 * default retry budget (shed writes come back after the hint). Bounded: each phase runs {@code
 * warmupSeconds + seconds} plus at most 30 s for what is in flight, at most {@link
 * #MAX_OUTSTANDING} writes in flight, and the duplicates then apply the phase's backlog (at most
 * {@link #DRAIN_TIMEOUT_SECONDS}) before the next starts.
 */
public final class AdmissionBench {
  /** Writes in flight at most per phase: arrivals beyond are dropped and counted. */
  public static final int MAX_OUTSTANDING = 500;

  /**
   * How long a phase's backlog may take to reach every duplicate before the next phase starts, in
   * seconds.
   */
  public static final long DRAIN_TIMEOUT_SECONDS = 120;

  private static final String BASE_PATH = "/zoolander";
  private static final int KEYS = 10;
  private static final int VALUE_BYTES = 256;

  /**
   * What to run.
   *
   * @param duplicates duplicates (single-server ensembles), 1 to 8
   * @param ratePerSec offered Poisson write rate, positive
   * @param seconds measured seconds per phase, 1 to 600
   * @param warmupSeconds discarded seconds before each phase's measurement, 0 to 60
   * @param tauMs the SLA's bound, positive
   * @param targetSla the admission target, in (0, 1)
   * @param writeDelayMs the stall of every write on every duplicate, positive: sets capacity
   * @param out where admission.md goes; null for a new temporary directory
   * @param seed seed of the arrivals
   */
  public record Settings(
      int duplicates,
      double ratePerSec,
      int seconds,
      int warmupSeconds,
      double tauMs,
      double targetSla,
      double writeDelayMs,
      Path out,
      long seed) {
    public static final int DEFAULT_DUPLICATES = 2;
    public static final double DEFAULT_RATE_PER_SEC = 200;
    public static final int DEFAULT_SECONDS = 10;
    public static final int DEFAULT_WARMUP_SECONDS = 2;
    public static final int QUICK_SECONDS = 3;
    public static final int QUICK_WARMUP_SECONDS = 1;
    public static final double DEFAULT_TAU_MS = 50;
    public static final double DEFAULT_TARGET_SLA = 0.95;
    public static final double DEFAULT_WRITE_DELAY_MS = 10;

    /**
     * @throws IllegalArgumentException naming the first field out of range
     */
    public Settings {
      check(duplicates >= 1 && duplicates <= 8, "duplicates must be in 1..8, was " + duplicates);
      check(
          ratePerSec > 0 && ratePerSec <= 100_000,
          "rate must be in (0, 100000], was " + ratePerSec);
      check(seconds >= 1 && seconds <= 600, "seconds must be in 1..600, was " + seconds);
      check(
          warmupSeconds >= 0 && warmupSeconds <= 60,
          "warmupSeconds must be in 0..60, was " + warmupSeconds);
      check(tauMs > 0 && tauMs <= 60_000, "admission tauMs must be in (0, 60000], was " + tauMs);
      check(targetSla > 0 && targetSla < 1, "admission target must be in (0, 1), was " + targetSla);
      check(
          writeDelayMs > 0 && writeDelayMs <= 1_000,
          "admission write delay must be in (0, 1000] ms, was " + writeDelayMs);
    }

    private static void check(boolean ok, String message) {
      if (!ok) {
        throw new IllegalArgumentException(message);
      }
    }
  }

  /** One phase's outcome. */
  record Row(String name, OpenLoopLoad.Result load, long shedByRepeater, String admission) {}

  private final Settings settings;
  private final PrintWriter out;

  public AdmissionBench(Settings settings, PrintWriter out) {
    this.settings = settings;
    this.out = out;
  }

  /** Runs the three phases, prints the table and writes {@code admission.md}; returns the table. */
  public String run(String commandLine) throws Exception {
    Path dir =
        settings.out() != null
            ? Files.createDirectories(settings.out())
            : Files.createTempDirectory("zoolander-bench-admission-");
    say("results go to %s", dir.toAbsolutePath());
    List<Row> rows = new ArrayList<>();
    try (EmbeddedCluster cluster =
        EmbeddedCluster.builder()
            .duplicates(settings.duplicates())
            .basePath(BASE_PATH)
            .startRepeater(false)
            .start()) {
      cluster.startRepeater();
      createKeys(cluster);
      String anomaly =
          String.format(
              Locale.ROOT,
              "probability=1;delayMs=%s;distribution=fixed;applies=writes",
              trim(settings.writeDelayMs()));
      cluster.injectAnomalyEverywhere(anomaly);
      say(
          "%d duplicates, every write stalled %s ms on each (capacity at most %.0f writes/s); offered %.0f writes/s",
          settings.duplicates(),
          trim(settings.writeDelayMs()),
          1000 / settings.writeDelayMs(),
          settings.ratePerSec());
      rows.add(phase(cluster, "unprotected", null, b -> {}));
      AdmissionSettings admission =
          AdmissionSettings.builder()
              .targetSla(settings.targetSla())
              .tauMs(settings.tauMs())
              .build();
      rows.add(
          phase(
              cluster,
              "admission, no client retry",
              admission,
              b -> b.retryBudget(RetryBudget.builder().maxShedWriteRetries(0).build())));
      rows.add(phase(cluster, "admission, client retries (default budget)", admission, b -> {}));
      cluster.clearAnomalyEverywhere();
    }
    String table = table(rows, commandLine);
    Path md = dir.resolve("admission.md");
    Files.writeString(md, table, StandardCharsets.UTF_8);
    say("wrote %s", md.toAbsolutePath());
    out.println();
    out.println(table);
    out.flush();
    return table;
  }

  private Row phase(
      EmbeddedCluster cluster,
      String name,
      AdmissionSettings admission,
      Consumer<ZoolanderClientBuilder> client)
      throws Exception {
    cluster.killRepeater();
    Repeater repeater =
        cluster.startRepeater(
            b -> {
              if (admission != null) {
                b.admission(admission);
              }
            });
    say(
        "%s: %d s warm-up + %d s at %.0f writes/s ",
        name, settings.warmupSeconds(), settings.seconds(), settings.ratePerSec());
    ZoolanderClientBuilder builder = cluster.clientBuilder().requestTimeout(Duration.ofSeconds(60));
    client.accept(builder);
    byte[] value = new byte[VALUE_BYTES];
    OpenLoopLoad.Result result;
    try (ZoolanderClient c = builder.build()) {
      result =
          OpenLoopLoad.builder()
              .ratePerSec(settings.ratePerSec())
              .duration(Duration.ofSeconds(settings.seconds()))
              .warmup(Duration.ofSeconds(settings.warmupSeconds()))
              .maxOutstanding(MAX_OUTSTANDING)
              .seed(settings.seed())
              .progress(
                  s -> {
                    out.print(".");
                    out.flush();
                  })
              .build()
              .run(k -> c.setData(path(k % KEYS), value, -1));
    }
    out.println();
    long shed = repeater.admission().map(AdmissionState::shed).orElse(0L);
    String state =
        repeater
            .admission()
            .map(
                s ->
                    String.format(
                        Locale.ROOT,
                        "observed SLA %.3f, limit %.0f/s, model max %.0f/s",
                        s.observedSla(),
                        s.rateLimitPerSec(),
                        s.modelMaxRatePerSec()))
            .orElse("off");
    // The next phase starts on idle duplicates: what this one sequenced is applied everywhere
    // first.
    cluster.awaitConverged(Duration.ofSeconds(DRAIN_TIMEOUT_SECONDS));
    return new Row(name, result, shed, state);
  }

  private static void createKeys(EmbeddedCluster cluster) throws Exception {
    try (ZoolanderClient client = cluster.clientBuilder().build()) {
      List<Op> ops = new ArrayList<>();
      ops.add(Op.create("/bench", new byte[0]));
      for (int k = 0; k < KEYS; k++) {
        ops.add(Op.create(path(k), new byte[0]));
      }
      client.writeAll(ops).get(60, TimeUnit.SECONDS);
    }
  }

  private static String path(int key) {
    return "/bench/k" + key;
  }

  String table(List<Row> rows, String commandLine) {
    long tauMicros = (long) (settings.tauMs() * 1000);
    StringBuilder b = new StringBuilder();
    b.append("`").append(commandLine).append("`\n\n");
    b.append(
        String.format(
            Locale.ROOT,
            "%d duplicates, each write stalled %s ms on every duplicate (capacity at most "
                + "%.0f writes/s); offered %.0f writes/s (Poisson) for %d s after %d s warm-up; tau %s ms, admission target "
                + "%s.%n%n",
            settings.duplicates(),
            trim(settings.writeDelayMs()),
            1000 / settings.writeDelayMs(),
            settings.ratePerSec(),
            settings.seconds(),
            settings.warmupSeconds(),
            trim(settings.tauMs()),
            trim(settings.targetSla())));
    b.append(
        "| phase | issued | answered/s | failed (shed) | dropped | shed by repeater | p50 ms | p99 ms "
            + "| completed within tau | within tau/s | repeater at the end |\n");
    b.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
    for (Row r : rows) {
      Histogram h = r.load().histogram();
      long done = h.getTotalCount();
      double within =
          done == 0 ? Double.NaN : (double) h.getCountBetweenValues(0, tauMicros) / done;
      b.append(
          String.format(
              Locale.ROOT,
              "| %s | %d | %.0f | %d | %d | %d | %.1f | %.1f | %.3f | %.0f | %s |%n",
              r.name(),
              r.load().issued(),
              r.load().achievedRatePerSec(),
              r.load().failed(),
              r.load().dropped(),
              r.shedByRepeater(),
              h.getValueAtPercentile(50) / 1000.0,
              h.getValueAtPercentile(99) / 1000.0,
              within,
              h.getCountBetweenValues(0, tauMicros) / r.load().measuredSeconds(),
              r.admission()));
    }
    b.append(
        "\nanswered/s: writes answered (acknowledged or failed) per measured second. Latency is from the "
            + "intended send time to the first duplicate's reply, of the writes that completed; a shed write fails "
            + "with THROTTLEDOP once the client's retry budget is spent (at once without "
            + "retries).\n");
    return b.toString();
  }

  private static String trim(double v) {
    return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
  }

  private void say(String format, Object... args) {
    out.printf("[bench] " + format + (format.endsWith(" ") ? "" : "%n"), args);
    out.flush();
  }
}
