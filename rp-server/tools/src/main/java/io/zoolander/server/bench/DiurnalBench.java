package io.zoolander.server.bench;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.zoolander.client.ReadPolicy;
import io.zoolander.client.ZoolanderClient;
import io.zoolander.server.jmx.MeterNames;
import io.zoolander.server.repeater.ControllerDecision.Reason;
import io.zoolander.server.repeater.ControllerSettings;
import io.zoolander.server.repeater.FanOutDecision;
import io.zoolander.server.repeater.Repeater;
import io.zoolander.server.testing.EmbeddedCluster;
import io.zoolander.server.testing.ServerMode;
import io.zoolander.server.testing.ZooKeeperEnsemble;
import io.zoolander.wire.Op;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;

/**
 * {@code zoolander bench --diurnal}: a compressed day, the repeater's load controller against every
 * static number of duplicates from the minimum to the budget, on the same schedule. The load is
 * open-loop (non-homogeneous Poisson arrivals, seeded, reads and writes mixed): its rate rises from
 * a tenth of the peak to the peak at midday and falls back; two anomalies slow duplicate 1 (a
 * member in every configuration) for a while, reads and writes alike. Each configuration runs on
 * fresh ensembles and a fresh repeater: the controller starts with the minimum and may add the
 * spares (ids above it) up to the budget; a static configuration has its duplicates throughout.
 *
 * <p>Reported per configuration: the 1-s windows (by intended send time) in which the fraction of
 * reads answered within tau was below the target (SLO violations: a read dropped because too many
 * were outstanding, failed, or unanswered counts as late), and the node-seconds used (duplicates in
 * the set, joining ones included, integrated over the day; single-server ensembles, so a duplicate
 * is a node; idle spares are not counted). The best static configuration at no more node-seconds
 * than the controller is named. Bounded: the schedule holds at most {@link #MAX_ACCESSES} accesses,
 * at most {@link #MAX_OUTSTANDING} are in flight, and each run waits at most {@link #DRAIN_SECONDS}
 * s for the last answers.
 */
public final class DiurnalBench {
  /** Accesses in the schedule at most; arrivals beyond are not generated. */
  public static final int MAX_ACCESSES = 500_000;

  /** Accesses in flight at most; an arrival beyond is dropped (a late read). */
  public static final int MAX_OUTSTANDING = 500;

  /** How long a run waits for its last answers after the day. */
  public static final long DRAIN_SECONDS = 30;

  /** The night's rate as a fraction of the peak. */
  static final double NIGHT_FRACTION = 0.1;

  /** How long a controller's ACK-latency sample speaks for the present, compressed like the day. */
  static final Duration SAMPLE_MAX_AGE = Duration.ofSeconds(2);

  private static final String BASE_PATH = "/zoolander";
  private static final int KEYS = 10;
  private static final int VALUE_BYTES = 128;

  /** The client's counter of read requests sent to duplicates. */
  private static final String READ_REQUESTS = "zoolander.client.read.requests";

  /**
   * What to run.
   *
   * @param minDuplicates the controller's minimum and the smallest static configuration, 1..8
   * @param maxDuplicates the budget and the largest static configuration, min..8
   * @param daySeconds length of the compressed day, 4..3600
   * @param peakRatePerSec the rate at midday, accesses per second
   * @param readFraction the fraction of accesses that are reads, (0, 1]
   * @param tauMs the SLA's bound, for the SLO and the controller
   * @param targetSla the SLO's fraction of reads within tau, and the controller's target, (0, 1)
   * @param out where diurnal.md and diurnal.json go; null for a new temporary directory
   * @param seed seed of the arrivals and the anomalies
   * @param serverMode where the ensembles' servers run (child JVMs from the command line)
   */
  public record Settings(
      int minDuplicates,
      int maxDuplicates,
      int daySeconds,
      double peakRatePerSec,
      double readFraction,
      double tauMs,
      double targetSla,
      Path out,
      long seed,
      ServerMode serverMode) {
    public static final int DEFAULT_MIN_DUPLICATES = 1;
    public static final int DEFAULT_MAX_DUPLICATES = 3;
    public static final int QUICK_MAX_DUPLICATES = 2;
    public static final int DEFAULT_DAY_SECONDS = 60;
    public static final int QUICK_DAY_SECONDS = 8;
    public static final double DEFAULT_PEAK_RATE_PER_SEC = 400;
    public static final double QUICK_PEAK_RATE_PER_SEC = 100;
    public static final double DEFAULT_READ_FRACTION = 0.5;
    public static final double DEFAULT_TAU_MS = 10;
    public static final double DEFAULT_TARGET_SLA = 0.95;

    /**
     * @throws IllegalArgumentException naming the first field out of range
     */
    public Settings {
      check(
          minDuplicates >= 1 && minDuplicates <= 8,
          "diurnal minimum duplicates must be in 1..8, was " + minDuplicates);
      check(
          maxDuplicates >= minDuplicates && maxDuplicates <= 8,
          "diurnal maximum duplicates must be in " + minDuplicates + "..8, was " + maxDuplicates);
      check(
          daySeconds >= 4 && daySeconds <= 3_600,
          "diurnal day seconds must be in 4..3600, was " + daySeconds);
      check(
          peakRatePerSec > 0 && peakRatePerSec <= 20_000,
          "rate must be in (0, 20000], was " + peakRatePerSec);
      check(
          readFraction > 0 && readFraction <= 1,
          "read fraction must be in (0, 1], was " + readFraction);
      check(tauMs > 0 && tauMs <= 60_000, "diurnal tauMs must be in (0, 60000], was " + tauMs);
      check(targetSla > 0 && targetSla < 1, "diurnal target must be in (0, 1), was " + targetSla);
      java.util.Objects.requireNonNull(serverMode, "serverMode must not be null");
    }

    private static void check(boolean ok, String message) {
      if (!ok) {
        throw new IllegalArgumentException(message);
      }
    }
  }

  /**
   * One configuration's day.
   *
   * @param name {@code controller} or {@code static N}
   * @param windows 1-s windows with reads
   * @param violations windows whose fraction of reads within tau was below the target
   * @param nodeSeconds duplicates in the set integrated over the day
   * @param reads reads scheduled (dropped ones included)
   * @param readsWithinTau reads answered within tau
   * @param writes writes scheduled
   * @param failed accesses that failed or were not answered in time
   * @param dropped accesses not sent: too many in flight
   * @param additions spares the controller added (0 for a static configuration)
   * @param retirements duplicates the controller retired
   * @param readRequests read requests the client sent to duplicates (first tries and retries)
   * @param fanOutChanges read fan-outs the controller advised (raised or lowered)
   */
  public record Outcome(
      String name,
      long windows,
      long violations,
      double nodeSeconds,
      long reads,
      long readsWithinTau,
      long writes,
      long failed,
      long dropped,
      long additions,
      long retirements,
      long readRequests,
      long fanOutChanges) {}

  /** One access of the schedule: when (ns after the start), and whether it reads. */
  record Arrival(long offsetNanos, boolean read, int key) {}

  /** An anomaly on duplicate 1 from {@code startNanos} to {@code endNanos} after the start. */
  record Anomaly(long startNanos, long endNanos, String settings) {}

  private final Settings settings;
  private final PrintWriter out;

  public DiurnalBench(Settings settings, PrintWriter out) {
    this.settings = settings;
    this.out = out;
  }

  /**
   * The schedule every configuration replays: arrivals of a Poisson process whose rate follows the
   * day, drawn by thinning a process at the peak rate.
   */
  static List<Arrival> schedule(Settings s) {
    Random random = new Random(s.seed());
    List<Arrival> arrivals = new ArrayList<>();
    double day = s.daySeconds();
    double t = 0;
    while (arrivals.size() < MAX_ACCESSES) {
      t += -Math.log(1 - random.nextDouble()) / s.peakRatePerSec();
      if (t >= day) {
        break;
      }
      if (random.nextDouble() < rateFraction(t / day)) {
        arrivals.add(
            new Arrival(
                (long) (t * 1e9), random.nextDouble() < s.readFraction(), random.nextInt(KEYS)));
      }
    }
    return arrivals;
  }

  /** The rate at {@code phase} of the day (0..1) as a fraction of the peak: night, noon, night. */
  static double rateFraction(double phase) {
    return NIGHT_FRACTION + (1 - NIGHT_FRACTION) * (1 - Math.cos(2 * Math.PI * phase)) / 2;
  }

  /**
   * The anomalies: one on the rising load (from 25% to 40% of the day), one on the falling load
   * (65% to 75%); each slows a fifth of duplicate 1's accesses by four times tau.
   */
  static List<Anomaly> anomalies(Settings s) {
    long day = TimeUnit.SECONDS.toNanos(s.daySeconds());
    String slow =
        String.format(
            Locale.ROOT,
            "probability=0.2;delayMs=%d;distribution=fixed;applies=both;seed=%d",
            Math.max(1, Math.round(4 * s.tauMs())),
            s.seed());
    return List.of(
        new Anomaly((long) (0.25 * day), (long) (0.40 * day), slow),
        new Anomaly((long) (0.65 * day), (long) (0.75 * day), slow));
  }

  /** Runs the controller and every static configuration, writes the reports; returns them. */
  public List<Outcome> run(String commandLine) throws Exception {
    Path dir =
        settings.out() != null
            ? Files.createDirectories(settings.out())
            : Files.createTempDirectory("zoolander-bench-diurnal-");
    say("results go to %s", dir.toAbsolutePath());
    List<Arrival> arrivals = schedule(settings);
    say(
        "a day of %d s, %d accesses (peak %.0f/s, %.0f%% reads), tau %s ms, target %s",
        settings.daySeconds(),
        arrivals.size(),
        settings.peakRatePerSec(),
        100 * settings.readFraction(),
        trim(settings.tauMs()),
        trim(settings.targetSla()));
    List<Outcome> outcomes = new ArrayList<>();
    outcomes.add(day(arrivals, -1));
    for (int n = settings.minDuplicates(); n <= settings.maxDuplicates(); n++) {
      outcomes.add(day(arrivals, n));
    }
    String md = markdown(outcomes, commandLine);
    Files.writeString(dir.resolve("diurnal.md"), md, StandardCharsets.UTF_8);
    Files.writeString(
        dir.resolve("diurnal.json"), json(outcomes, commandLine), StandardCharsets.UTF_8);
    say("wrote %s and diurnal.json", dir.resolve("diurnal.md").toAbsolutePath());
    out.println();
    out.println(md);
    out.flush();
    return outcomes;
  }

  /** One configuration's day: {@code staticDuplicates} of them, or the controller when -1. */
  private Outcome day(List<Arrival> arrivals, int staticDuplicates) throws Exception {
    boolean controlled = staticDuplicates < 0;
    String name = controlled ? "controller" : "static " + staticDuplicates;
    int members = controlled ? settings.minDuplicates() : staticDuplicates;
    say("%s: %d duplicate(s) at start", name, members);
    List<ZooKeeperEnsemble> spares = new ArrayList<>();
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    try (EmbeddedCluster cluster =
        EmbeddedCluster.builder()
            .duplicates(members)
            .serverMode(settings.serverMode())
            .basePath(BASE_PATH)
            .startRepeater(false)
            .start()) {
      ControllerSettings.Builder controller =
          ControllerSettings.builder()
              .targetSla(settings.targetSla())
              .tauMs(settings.tauMs())
              .periodMs(200)
              .cooldownMs(1_000)
              .retirePeriods(5)
              .minSamples(10)
              .minDuplicates(settings.minDuplicates())
              .maxDuplicates(settings.maxDuplicates());
      if (controlled) {
        for (int id = members + 1; id <= settings.maxDuplicates(); id++) {
          ZooKeeperEnsemble spare =
              ZooKeeperEnsemble.builder()
                  .servers(1)
                  .serverMode(settings.serverMode())
                  .zoolanderDuplicate(id, BASE_PATH)
                  .start();
          spares.add(spare);
          controller.spare(id, spare.connectString());
        }
      }
      Repeater repeater =
          cluster.startRepeater(
              b -> {
                b.meterRegistry(meters).predictorSampleMaxAge(SAMPLE_MAX_AGE);
                if (controlled) {
                  b.controller(controller.build());
                }
              });
      createKeys(cluster);
      Outcome outcome = replay(cluster, repeater, arrivals, name, controlled, meters);
      say(
          "%s: %d of %d windows violated, %.1f node-seconds",
          name, outcome.violations(), outcome.windows(), outcome.nodeSeconds());
      return outcome;
    } finally {
      spares.forEach(ZooKeeperEnsemble::close);
    }
  }

  private Outcome replay(
      EmbeddedCluster cluster,
      Repeater repeater,
      List<Arrival> arrivals,
      String name,
      boolean controlled,
      SimpleMeterRegistry meters)
      throws Exception {
    int windows = settings.daySeconds();
    AtomicLongArray reads = new AtomicLongArray(windows);
    AtomicLongArray within = new AtomicLongArray(windows);
    long tauNanos = (long) (settings.tauMs() * 1e6);
    AtomicLong failed = new AtomicLong();
    Map<String, Long> failures = new ConcurrentHashMap<>();
    long dropped = 0;
    long writes = 0;
    Semaphore inFlight = new Semaphore(MAX_OUTSTANDING);
    byte[] value = new byte[VALUE_BYTES];
    // Written by the sampler only, read once it has terminated.
    AtomicLong nodeNanos = new AtomicLong();
    long dayNanos = TimeUnit.SECONDS.toNanos(settings.daySeconds());
    ScheduledExecutorService side = Executors.newScheduledThreadPool(2);
    SimpleMeterRegistry clientMeters = new SimpleMeterRegistry();
    try (ZoolanderClient client =
        cluster
            .clientBuilder()
            .requestTimeout(Duration.ofSeconds(DRAIN_SECONDS))
            .meterRegistry(clientMeters)
            // The controller's client asks as many duplicates per read as it advises; a static
            // configuration's asks one, the best-ranked, as by default.
            .readPolicy(controlled ? ReadPolicy.advised(1) : ReadPolicy.fixed(1))
            .build()) {
      long start = System.nanoTime();
      long sampleNanos = TimeUnit.MILLISECONDS.toNanos(100);
      side.scheduleAtFixedRate(
          () -> {
            if (System.nanoTime() - start < dayNanos) {
              nodeNanos.addAndGet(sampleNanos * repeater.membership().members().size());
            }
          },
          0,
          sampleNanos,
          TimeUnit.NANOSECONDS);
      for (Anomaly a : anomalies(settings)) {
        side.schedule(
            () -> {
              cluster.injectAnomaly(1, a.settings());
              return null;
            },
            a.startNanos(),
            TimeUnit.NANOSECONDS);
        side.schedule(
            () -> {
              cluster.clearAnomaly(1);
              return null;
            },
            a.endNanos(),
            TimeUnit.NANOSECONDS);
      }
      for (Arrival a : arrivals) {
        long intended = start + a.offsetNanos();
        for (long now = System.nanoTime(); now < intended; now = System.nanoTime()) {
          LockSupport.parkNanos(Math.min(intended - now, 200_000));
        }
        int window = (int) (a.offsetNanos() / 1_000_000_000L);
        if (a.read()) {
          reads.incrementAndGet(window);
        } else {
          writes++;
        }
        if (!inFlight.tryAcquire()) {
          dropped++;
          continue;
        }
        String path = "/bench/k" + a.key();
        CompletionStage<?> access =
            a.read() ? client.getData(path) : client.setData(path, value, -1);
        access.whenComplete(
            (r, e) -> {
              inFlight.release();
              if (e != null) {
                failed.incrementAndGet();
                failures.merge(failure(a.read(), e), 1L, Long::sum);
              } else if (a.read() && System.nanoTime() - intended <= tauNanos) {
                within.incrementAndGet(window);
              }
            });
      }
      // The day is over: what is still in flight gets a bound to answer.
      if (!inFlight.tryAcquire(MAX_OUTSTANDING, DRAIN_SECONDS, TimeUnit.SECONDS)) {
        say(
            "%s: %d accesses unanswered after the day",
            name, MAX_OUTSTANDING - inFlight.availablePermits());
      }
    } finally {
      side.shutdownNow();
      side.awaitTermination(10, TimeUnit.SECONDS);
      cluster.clearAnomaly(1);
    }
    failures.entrySet().stream()
        .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
        .limit(5)
        .forEach(f -> say("%s: %d failed: %s", name, f.getValue(), f.getKey()));
    long windowsWithReads = 0;
    long violations = 0;
    long readCount = 0;
    long withinCount = 0;
    for (int w = 0; w < windows; w++) {
      long r = reads.get(w);
      readCount += r;
      withinCount += within.get(w);
      if (r > 0) {
        windowsWithReads++;
        if ((double) within.get(w) / r < settings.targetSla()) {
          violations++;
        }
      }
    }
    return new Outcome(
        name,
        windowsWithReads,
        violations,
        nodeNanos.get() / 1e9,
        readCount,
        withinCount,
        writes,
        failed.get(),
        dropped,
        controlled ? (long) count(meters, "add", Reason.BELOW_TARGET) : 0,
        controlled ? (long) count(meters, "retire", Reason.FEWER_SUFFICE) : 0,
        (long) clientMeters.get(READ_REQUESTS).counter().count(),
        controlled ? (long) fanOutChanges(meters) : 0);
  }

  private static double fanOutChanges(SimpleMeterRegistry meters) {
    double changes = 0;
    for (FanOutDecision.Reason reason : FanOutDecision.Reason.values()) {
      if (reason.action() != FanOutDecision.Action.HOLD) {
        changes +=
            meters
                .get(MeterNames.REPEATER_CONTROLLER_FAN_OUT_DECISIONS)
                .tag(MeterNames.TAG_REASON, reason.tag())
                .counter()
                .count();
      }
    }
    return changes;
  }

  /**
   * What a failed access says, for the failure summary: the op and its cause's message, numbers
   * (request ids, client ids, seqs) left out so that failures of one kind count together.
   */
  private static String failure(boolean read, Throwable e) {
    Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
    return (read ? "read: " : "write: ") + cause.toString().replaceAll("\\d+", "#");
  }

  private static double count(SimpleMeterRegistry meters, String action, Reason reason) {
    return meters
        .get(MeterNames.REPEATER_CONTROLLER_DECISIONS)
        .tag(MeterNames.TAG_ACTION, action)
        .tag(MeterNames.TAG_REASON, reason.tag())
        .counter()
        .count();
  }

  private static void createKeys(EmbeddedCluster cluster) throws Exception {
    try (ZoolanderClient client = cluster.clientBuilder().build()) {
      List<Op> ops = new ArrayList<>();
      ops.add(Op.create("/bench", new byte[0]));
      for (int k = 0; k < KEYS; k++) {
        ops.add(Op.create("/bench/k" + k, new byte[0]));
      }
      client.writeAll(ops).get(60, TimeUnit.SECONDS);
    }
  }

  /**
   * The static configuration with the fewest violations among those that used no more node-seconds
   * than the controller (the fewer node-seconds among equals); null when none did.
   */
  static Outcome bestStatic(List<Outcome> outcomes) {
    Outcome controller = outcomes.get(0);
    Outcome best = null;
    for (Outcome o : outcomes.subList(1, outcomes.size())) {
      if (o.nodeSeconds() > controller.nodeSeconds()) {
        continue;
      }
      if (best == null
          || o.violations() < best.violations()
          || (o.violations() == best.violations() && o.nodeSeconds() < best.nodeSeconds())) {
        best = o;
      }
    }
    return best;
  }

  String markdown(List<Outcome> outcomes, String commandLine) {
    StringBuilder b = new StringBuilder();
    b.append("`").append(commandLine).append("`\n\n");
    b.append(
        String.format(
            Locale.ROOT,
            "A day of %d s: open-loop accesses (%.0f%% reads) at %.0f/s at night rising to %.0f/s at noon;"
                + " duplicate 1 slowed (a fifth of its accesses by 4 x tau) from 25%% to 40%% and from 65%% to 75%%"
                + " of the day. SLO: in each 1-s window, at least %s of the reads answered within %s ms. The"
                + " controller has %d to %d duplicates (target %s at tau %s ms, period 200 ms, cooldown 1 s, 5"
                + " periods to retire, 10 samples at least, samples kept %d s) and advises the read fan-out its"
                + " client follows (ReadPolicy.advised(1)); a static configuration's client reads from the"
                + " best-ranked duplicate (fixed(1)). Requests per read: read requests sent to duplicates per read"
                + " scheduled.%n%n",
            settings.daySeconds(),
            100 * settings.readFraction(),
            NIGHT_FRACTION * settings.peakRatePerSec(),
            settings.peakRatePerSec(),
            trim(settings.targetSla()),
            trim(settings.tauMs()),
            settings.minDuplicates(),
            settings.maxDuplicates(),
            trim(settings.targetSla()),
            trim(settings.tauMs()),
            SAMPLE_MAX_AGE.toSeconds()));
    b.append(
        "| configuration | SLO violations (windows) | node-seconds | reads within tau | requests per read |"
            + " failed | dropped | added | retired | fan-out changes |\n");
    b.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (Outcome o : outcomes) {
      b.append(
          String.format(
              Locale.ROOT,
              "| %s | %d of %d | %.1f | %.4f | %.2f | %d | %d | %s | %s | %s |%n",
              o.name(),
              o.violations(),
              o.windows(),
              o.nodeSeconds(),
              o.reads() == 0 ? Double.NaN : (double) o.readsWithinTau() / o.reads(),
              o.reads() == 0 ? Double.NaN : (double) o.readRequests() / o.reads(),
              o.failed(),
              o.dropped(),
              o.name().equals("controller") ? Long.toString(o.additions()) : "",
              o.name().equals("controller") ? Long.toString(o.retirements()) : "",
              o.name().equals("controller") ? Long.toString(o.fanOutChanges()) : ""));
    }
    Outcome best = bestStatic(outcomes);
    b.append('\n');
    if (best == null) {
      b.append("No static configuration used as few node-seconds as the controller.\n");
    } else {
      Outcome controller = outcomes.get(0);
      b.append(
          String.format(
              Locale.ROOT,
              "Best static configuration at no more node-seconds than the controller: %s, %d violations"
                  + " (controller: %d) at %.1f node-seconds (controller: %.1f).%n",
              best.name(),
              best.violations(),
              controller.violations(),
              best.nodeSeconds(),
              controller.nodeSeconds()));
    }
    return b.toString();
  }

  String json(List<Outcome> outcomes, String commandLine) {
    StringBuilder b = new StringBuilder();
    b.append("{\n  \"command\": ").append(quote(commandLine));
    b.append(String.format(Locale.ROOT, ",%n  \"daySeconds\": %d", settings.daySeconds()));
    b.append(String.format(Locale.ROOT, ",%n  \"peakRatePerSec\": %s", settings.peakRatePerSec()));
    b.append(String.format(Locale.ROOT, ",%n  \"readFraction\": %s", settings.readFraction()));
    b.append(String.format(Locale.ROOT, ",%n  \"tauMs\": %s", settings.tauMs()));
    b.append(String.format(Locale.ROOT, ",%n  \"targetSla\": %s", settings.targetSla()));
    b.append(String.format(Locale.ROOT, ",%n  \"minDuplicates\": %d", settings.minDuplicates()));
    b.append(String.format(Locale.ROOT, ",%n  \"maxDuplicates\": %d", settings.maxDuplicates()));
    b.append(",\n  \"configurations\": [");
    for (int i = 0; i < outcomes.size(); i++) {
      Outcome o = outcomes.get(i);
      b.append(i == 0 ? "\n" : ",\n");
      b.append(
          String.format(
              Locale.ROOT,
              "    {\"name\": %s, \"windows\": %d, \"violations\": %d, \"nodeSeconds\": %.3f, \"reads\": %d,"
                  + " \"readsWithinTau\": %d, \"writes\": %d, \"failed\": %d, \"dropped\": %d, \"additions\": %d,"
                  + " \"retirements\": %d, \"readRequests\": %d, \"fanOutChanges\": %d}",
              quote(o.name()),
              o.windows(),
              o.violations(),
              o.nodeSeconds(),
              o.reads(),
              o.readsWithinTau(),
              o.writes(),
              o.failed(),
              o.dropped(),
              o.additions(),
              o.retirements(),
              o.readRequests(),
              o.fanOutChanges()));
    }
    Outcome best = bestStatic(outcomes);
    b.append("\n  ],\n  \"bestStaticAtNoMoreNodeSeconds\": ")
        .append(best == null ? "null" : quote(best.name()))
        .append("\n}\n");
    return b.toString();
  }

  private static String quote(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '"' || c == '\\') {
        b.append('\\').append(c);
      } else if (c < 0x20) {
        b.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
      } else {
        b.append(c);
      }
    }
    return b.append('"').toString();
  }

  private static String trim(double v) {
    return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
  }

  private void say(String format, Object... args) {
    out.printf("[bench] " + format + "%n", args);
    out.flush();
  }
}
