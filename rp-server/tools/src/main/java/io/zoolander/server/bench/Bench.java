package io.zoolander.server.bench;

import io.zoolander.client.ZoolanderClient;
import io.zoolander.client.ZoolanderClientBuilder;
import io.zoolander.server.testing.EmbeddedCluster;
import io.zoolander.server.testing.ZooKeeperEnsemble;
import io.zoolander.server.workload.ClosedLoopLoad;
import io.zoolander.server.workload.OpenLoopLoad;
import io.zoolander.wire.Op;
import io.zoolander.wire.internal.WriteTrace;
import java.io.IOException;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;

/**
 * The end-to-end benchmark behind {@code zoolander bench}: one embedded deployment, and on its
 * ensembles, with the same open-loop workload (Poisson arrivals, the same read/write sequence and
 * keys), plain ZooKeeper, replication for throughput, client-side hedged reads and Zoolander RP
 * with several duplicate counts, interleaved in rounds, without and then with the anomaly injector
 * (which slows plain ZooKeeper clients and Zoolander's accesses alike); then a sustained phase at a
 * high rate that samples the client's and the repeater's heap. {@link BenchReport} writes what it
 * measured.
 */
public final class Bench {
  /** Zoolander's base path in every duplicate. */
  private static final String BASE_PATH = "/zoolander";

  /** Creates per multi when the data is set up. */
  private static final int CREATES_PER_WRITE = 50;

  private static final long SETUP_TIMEOUT_SECONDS = 60;

  private final BenchSettings settings;
  private final PrintWriter out;

  public Bench(BenchSettings settings, PrintWriter out) {
    this.settings = settings;
    this.out = out;
  }

  /** Runs the benchmark and writes its results (JSON, Markdown, PNG) into the output directory. */
  public BenchResult run(String commandLine) throws Exception {
    Instant startedAt = Instant.now();
    long t0 = System.nanoTime();
    double loadStart = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    Path dir =
        settings.out() != null
            ? Files.createDirectories(settings.out())
            : Files.createTempDirectory("zoolander-bench-");
    say("results go to %s", dir.toAbsolutePath());
    say(
        "starting %d duplicate%s of %d server%s and a repeater in child JVMs on 127.0.0.1 ...",
        settings.duplicates(),
        settings.duplicates() == 1 ? "" : "s",
        settings.serversPerDuplicate(),
        settings.serversPerDuplicate() == 1 ? "" : "s");
    // Tracing must be on before the first write; the children get it on their command line.
    Path traceDir = dir.resolve("write-trace");
    List<String> traceArgs = List.of();
    if (settings.traceWrites()) {
      System.setProperty(WriteTrace.DIRECTORY_PROPERTY, traceDir.toString());
      traceArgs = List.of("-D" + WriteTrace.DIRECTORY_PROPERTY + "=" + traceDir);
    }
    byte[] value = new byte[settings.valueBytes()];
    new SplittableRandom(settings.seed()).nextBytes(value);
    List<BenchResult.SystemResult> results = new ArrayList<>();
    Optional<BenchResult.HeapResult> heap;
    Optional<LoopbackRoundTrip.Result> loopback;
    Optional<LoopbackRoundTrip.Result> loopbackPaced;
    Optional<LoopbackRoundTrip.Result> loopbackPacedWrites = Optional.empty();
    Optional<JitWarmup.Outcome> jitWarmup = Optional.empty();
    long measuredFromNanos;
    double tauOff;
    double tauOn;
    try (EmbeddedCluster cluster =
        EmbeddedCluster.builder()
            .duplicates(settings.duplicates())
            .serversPerDuplicate(settings.serversPerDuplicate())
            .fsync(settings.fsync())
            .basePath(BASE_PATH)
            .duplicateJvmArgs(traceArgs.toArray(String[]::new))
            .start()) {
      // The repeater runs in its own JVM, as in a deployment: its heap is measured apart and its
      // pauses are its own.
      cluster.killRepeater();
      Map<Integer, String> connectStrings = new LinkedHashMap<>();
      for (int id : cluster.duplicateIds()) {
        connectStrings.put(id, cluster.duplicate(id).connectString());
      }
      try (ChildRepeater repeater =
              ChildRepeater.start(
                  connectStrings,
                  BASE_PATH,
                  settings.repeaterSettings(),
                  traceArgs,
                  dir.resolve("logs"));
          Ensembles ensembles = Ensembles.connect(cluster, settings.sessions())) {
        say(
            "deployment up in %.1f s (repeater epoch %d at %s:%d)",
            (System.nanoTime() - t0) / 1e9, repeater.epoch(), repeater.host(), repeater.port());
        createData(ensembles.list(), repeater, cluster, value);
        say(
            "%d keys of %d bytes in every ensemble, for plain ZooKeeper and for Zoolander",
            settings.keys(), settings.valueBytes());
        warmUp(ensembles.list(), repeater, cluster, value);
        jitWarmup = jitWarmUp(ensembles.list(), repeater, cluster, value);
        measuredFromNanos = System.nanoTime(); // the write trace leaves the warm-up out
        loopback =
            loopback(
                LoopbackRoundTrip.DEFAULT_OUTSTANDING + " outstanding",
                (warmup, duration) ->
                    LoopbackRoundTrip.measure(
                        warmup,
                        duration,
                        settings.maxAccesses(),
                        LoopbackRoundTrip.DEFAULT_OUTSTANDING,
                        LoopbackRoundTrip.DEFAULT_FRAME_BYTES));
        // Paced at the bench's rate: between two frames both event loops sleep, as the write
        // path's threads do between the bench's accesses, so each hop includes a wake-up.
        loopbackPaced = pacedLoopback("paced at %.0f/s", settings.ratePerSec());
        // And at the write rate: the repeater's threads and the applier see only the writes, so
        // they sleep longer between two than the threads that also see the reads.
        double writeRate = settings.ratePerSec() * (1 - settings.readFraction());
        if (writeRate >= 1 && settings.readFraction() > 0) {
          loopbackPacedWrites = pacedLoopback("paced at the write rate, %.0f/s", writeRate);
        }

        List<Boolean> conditions =
            settings.anomaly() == null ? List.of(false) : List.of(false, true);
        for (boolean anomalies : conditions) {
          if (anomalies) {
            cluster.injectAnomalyEverywhere(settings.anomaly());
            say("anomaly injector ON in every duplicate, independently: %s", settings.anomaly());
          } else {
            cluster.clearAnomalyEverywhere();
            say("anomaly injector off");
          }
          results.addAll(measureCondition(ensembles.list(), repeater, cluster, anomalies, value));
        }
        cluster.clearAnomalyEverywhere();
        tauOff = tau(results, false);
        tauOn = conditions.size() > 1 ? tau(results, true) : Double.NaN;
        results.replaceAll(r -> withTau(r, r.anomalies() ? tauOn : tauOff));
        heap =
            settings.heapSeconds() > 0
                ? Optional.of(heapPhase(repeater, cluster, value))
                : Optional.empty();
      }
    }
    double loadEnd = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    BenchResult result =
        new BenchResult(
            machine(loadStart, loadEnd),
            settings,
            startedAt,
            (System.nanoTime() - t0) / 1e9,
            tauOff,
            tauOn,
            results,
            heap,
            loopback,
            loopbackPaced,
            loopbackPacedWrites,
            jitWarmup,
            dir);
    for (Path written : BenchReport.write(result, commandLine)) {
      say("wrote %s", written.toAbsolutePath());
    }
    out.println();
    out.println(BenchReport.markdown(result, commandLine));
    if (settings.traceWrites()) {
      writeTraceReport(traceDir, dir.resolve("write-trace.md"), measuredFromNanos);
    }
    out.flush();
    return result;
  }

  /**
   * Joins the write trace's records, prints the table and writes it to {@code file}. The children
   * appended theirs while they ran (a write whose last records were still pending when they stopped
   * is left out as not traced whole); this JVM's, the client's, are flushed first.
   */
  private void writeTraceReport(Path traceDir, Path file, long sinceNanos) {
    try {
      WriteTrace.flush();
      String table = WriteTraceReport.read(traceDir, sinceNanos).markdown();
      Files.writeString(file, table, StandardCharsets.UTF_8);
      out.println(table);
      say("wrote %s", file.toAbsolutePath());
    } catch (IllegalArgumentException | IOException e) {
      say("no write trace: %s", e.getMessage());
    }
  }

  /**
   * Runs the workload, unrecorded, through Zoolander with every duplicate and through the plain
   * ensembles, so that every JVM has compiled its hot paths and opened its connections before the
   * first measured run (which would otherwise pay for it alone).
   */
  private void warmUp(
      List<PlainEnsemble> ensembles, ChildRepeater repeater, EmbeddedCluster cluster, byte[] value)
      throws Exception {
    int seconds = settings.jvmWarmupSeconds();
    int accesses = settings.jvmWarmupAccesses();
    if (seconds == 0 && accesses == 0) {
      return;
    }
    say(
        "warming up every JVM (JIT, connections) for %d s and %d closed-loop accesses through Zoolander,"
            + " and the same through plain ZooKeeper ",
        seconds, accesses);
    try (RpSystem rp = warmupRp(repeater, cluster)) {
      warmUp(new CountingSystem(rp), seconds, accesses, value);
    }
    warmUp(new CountingSystem(plainWarmupSystem(ensembles)), seconds, accesses, value);
    out.println();
  }

  /** What warms Zoolander's paths: a connected client of all the deployment's duplicates. */
  private RpSystem warmupRp(ChildRepeater repeater, EmbeddedCluster cluster) throws Exception {
    RpSystem rp =
        new RpSystem(
            rpClient(repeater, cluster, settings.duplicates()), settings.duplicates(), Double.NaN);
    try {
      rp.connect(SETUP_TIMEOUT_SECONDS);
      return rp;
    } catch (Exception | Error e) {
      rp.close();
      throw e;
    }
  }

  /** What warms plain ZooKeeper's paths: spread over the ensembles when there are several. */
  private SystemUnderTest plainWarmupSystem(List<PlainEnsemble> ensembles) {
    return ensembles.size() >= 2
        ? PlainSystems.balanced(ensembles, settings.balance(), settings.seed())
        : PlainSystems.plain(ensembles.get(0));
  }

  /**
   * The warm-ups' closed loop, alternating writes and reads, {@link
   * BenchSettings#JVM_WARMUP_OUTSTANDING} in flight, for at most {@code accesses} or {@code
   * duration}.
   */
  private void closedLoop(CountingSystem system, byte[] value, long accesses, Duration duration)
      throws InterruptedException {
    ClosedLoopLoad.run(
        k ->
            k % 2 == 0
                ? system.write((k / 2) % settings.keys(), value)
                : system.read((k / 2) % settings.keys()),
        BenchSettings.JVM_WARMUP_OUTSTANDING,
        Duration.ZERO,
        duration,
        accesses,
        Duration.ofMinutes(1));
  }

  /**
   * Turns of 1 s of the closed-loop warm-up's load through Zoolander, then through plain ZooKeeper,
   * until the JIT compilers of every JVM are quiet ({@link JitWarmup}).
   */
  private Optional<JitWarmup.Outcome> jitWarmUp(
      List<PlainEnsemble> ensembles, ChildRepeater repeater, EmbeddedCluster cluster, byte[] value)
      throws Exception {
    if (settings.jitWarmupMaxSeconds() == 0) {
      return Optional.empty(); // not even a client to connect
    }
    try (RpSystem rp = warmupRp(repeater, cluster)) {
      CountingSystem zoolander = new CountingSystem(rp);
      CountingSystem plain = new CountingSystem(plainWarmupSystem(ensembles));
      return JitWarmup.untilQuiet(
          JitActivity.ofThisJvmAndDescendants(),
          settings.jitWarmupMaxSeconds(),
          () -> {
            closedLoop(zoolander, value, Long.MAX_VALUE, JitWarmup.SLICE_PER_SYSTEM);
            closedLoop(plain, value, Long.MAX_VALUE, JitWarmup.SLICE_PER_SYSTEM);
          },
          out,
          "");
    }
  }

  /**
   * The bench's open-loop load for {@code seconds}, then a closed loop of {@code accesses}
   * alternating writes and reads: at the bench's rate a write path sees too few writes to be
   * compiled before the measured runs.
   */
  private void warmUp(CountingSystem system, int seconds, int accesses, byte[] value)
      throws InterruptedException {
    if (seconds > 0) {
      load(
          system,
          settings.ratePerSec(),
          Duration.ZERO,
          Duration.ofSeconds(seconds),
          settings.seed(),
          value);
    }
    if (accesses > 0) {
      closedLoop(system, value, accesses, Duration.ofMinutes(2));
    }
  }

  /**
   * Measures every system in one condition. The machine's background load drifts, so the systems
   * are interleaved: each run is cut into {@code rounds} slices, and every round gives each system
   * one slice (in a rotated order), so all of them sample the same stretch of time. A slice starts
   * with a warm-up that is discarded (the first of each system the full warm-up, later ones a
   * quarter of it: its connections are warm by then).
   */
  private List<BenchResult.SystemResult> measureCondition(
      List<PlainEnsemble> ensembles,
      ChildRepeater repeater,
      EmbeddedCluster cluster,
      boolean anomalies,
      byte[] value)
      throws Exception {
    List<SystemUnderTest> systems = new ArrayList<>();
    try {
      systems.add(PlainSystems.plain(ensembles.get(0)));
      // Spreading or hedging over one ensemble is plain ZooKeeper again: with one duplicate the
      // run compares plain and Zoolander alone (issue 17's targets at N = 1).
      if (ensembles.size() >= 2) {
        systems.add(PlainSystems.balanced(ensembles, settings.balance(), settings.seed()));
        systems.addAll(hedged(ensembles, value));
      }
      for (int n : settings.rpCounts()) {
        systems.add(new RpSystem(rpClient(repeater, cluster, n), n, Double.NaN));
      }
      int largest = settings.rpCounts().get(settings.rpCounts().size() - 1);
      if (largest >= 2) {
        // RP at about the extra load of hedging: Zoolander's own hedged reads over the same
        // duplicates.
        systems.add(
            new RpSystem(
                rpClient(repeater, cluster, largest), largest, settings.hedgePercentile()));
      }
      for (SystemUnderTest system : systems) {
        if (system instanceof RpSystem rp) {
          rp.connect(SETUP_TIMEOUT_SECONDS);
        }
      }
      int rounds = settings.rounds();
      Duration slice = Duration.ofMillis(settings.seconds() * 1000L / rounds);
      Duration firstWarmup = Duration.ofSeconds(settings.warmupSeconds());
      Duration laterWarmup = firstWarmup.dividedBy(4);
      List<Tally> tallies = new ArrayList<>();
      systems.forEach(system -> tallies.add(new Tally(system)));
      for (int round = 0; round < rounds; round++) {
        Duration left =
            slice
                .plus(laterWarmup)
                .multipliedBy((long) (rounds - round) * systems.size())
                .plus(
                    round == 0
                        ? firstWarmup.minus(laterWarmup).multipliedBy(systems.size())
                        : Duration.ZERO);
        say(
            "%s round %d/%d, %.1f s per system at %.0f accesses/s, about %d s left in this phase: ",
            anomalies ? "anomalies," : "no anomalies,",
            round + 1,
            rounds,
            slice.toMillis() / 1e3,
            settings.ratePerSec(),
            left.toSeconds());
        for (int i = 0; i < systems.size(); i++) {
          Tally tally = tallies.get((i + round) % systems.size());
          out.print(tally.system.name() + " ");
          out.flush();
          tally.add(
              slice(
                  tally.system,
                  round == 0 ? firstWarmup : laterWarmup,
                  slice,
                  settings.seed() + round,
                  value));
        }
        out.println();
      }
      List<BenchResult.SystemResult> results = new ArrayList<>();
      for (Tally tally : tallies) {
        BenchResult.SystemResult r = tally.result(anomalies);
        results.add(r);
        say(
            "  %-12s read p50 %8.3f p99 %8.3f ms, %.2f messages/read, achieved %.0f/s%s",
            r.system(),
            r.reads().p50Ms(),
            r.reads().p99Ms(),
            r.messagesPerRead(),
            r.achievedRatePerSec(),
            tally.failed() + r.dropped() > 0
                ? String.format(" (%d failed, %d dropped)", tally.failed(), r.dropped())
                : "");
      }
      return results;
    } finally {
      systems.forEach(SystemUnderTest::close);
    }
  }

  /** One measurement of the Netty loopback round trip, given its warm-up and its duration. */
  @FunctionalInterface
  private interface LoopbackMeasurement {
    LoopbackRoundTrip.Result run(Duration warmup, Duration duration) throws Exception;
  }

  /**
   * The Netty loopback round trip, measured in the same run: the floor of one extra hop through the
   * repeater or a plugin, {@code how} (closed loop, or paced at the bench's rate).
   */
  private Optional<LoopbackRoundTrip.Result> loopback(String how, LoopbackMeasurement measurement)
      throws Exception {
    if (settings.loopbackSeconds() == 0) {
      return Optional.empty();
    }
    say(
        "Netty loopback round trip, %s, %d-byte frames, %d s: ",
        how, LoopbackRoundTrip.DEFAULT_FRAME_BYTES, settings.loopbackSeconds());
    LoopbackRoundTrip.Result r =
        measurement.run(Duration.ofSeconds(1), Duration.ofSeconds(settings.loopbackSeconds()));
    out.printf("p50 %.3f ms, p99 %.3f ms%n", r.ms(50), r.ms(99));
    return Optional.of(r);
  }

  /** {@link #loopback} paced at {@code ratePerSec}, described by {@code how} (given the rate). */
  private Optional<LoopbackRoundTrip.Result> pacedLoopback(String how, double ratePerSec)
      throws Exception {
    return loopback(
        String.format(Locale.ROOT, how, ratePerSec),
        (warmup, duration) ->
            LoopbackRoundTrip.measurePaced(
                warmup,
                duration,
                settings.maxAccesses(),
                ratePerSec,
                LoopbackRoundTrip.DEFAULT_FRAME_BYTES));
  }

  /**
   * Client-side hedging: {@code hedged}, whose delay is the hedge percentile of unhedged read
   * latency, measured first; then, from the same measurement, {@code hedged-pP} for each frontier
   * percentile, so that hedging appears on the cost/benefit frontier at several extra loads.
   */
  private List<SystemUnderTest> hedged(List<PlainEnsemble> ensembles, byte[] value)
      throws InterruptedException {
    try (SystemUnderTest unhedged =
        PlainSystems.hedged(ensembles, Long.MAX_VALUE, settings.hedgePercentile())) {
      say("hedged: %d s of unhedged reads set the hedge delays: ", settings.warmupSeconds());
      OpenLoopLoad.Result calibration =
          load(
              new CountingSystem(unhedged),
              settings.ratePerSec(),
              Duration.ZERO,
              Duration.ofSeconds(settings.warmupSeconds()),
              settings.seed(),
              value);
      Histogram unhedgedReads = calibration.classes().get(0).histogram();
      List<SystemUnderTest> systems = new ArrayList<>();
      List<Double> percentiles = new ArrayList<>();
      percentiles.add(settings.hedgePercentile());
      percentiles.addAll(settings.frontierHedgePercentiles());
      for (double percentile : percentiles) {
        long delayMicros = Math.max(1, unhedgedReads.getValueAtPercentile(percentile));
        out.printf(" p%s = %.3f ms", PlainSystems.trim(percentile), delayMicros / 1e3);
        systems.add(
            percentile == settings.hedgePercentile()
                ? PlainSystems.hedged(ensembles, delayMicros, percentile)
                : PlainSystems.hedged(
                    ensembles,
                    delayMicros,
                    percentile,
                    "hedged-p" + PlainSystems.trim(percentile)));
      }
      out.println();
      return systems;
    }
  }

  /**
   * One slice of one system: the messages it sent and the accesses it started, with the load's
   * result.
   */
  private record Slice(
      OpenLoopLoad.Result load, long readMessages, long writeMessages, long reads, long writes) {}

  private Slice slice(
      SystemUnderTest system, Duration warmup, Duration duration, long seed, byte[] value)
      throws InterruptedException {
    long readMessages = system.readMessages();
    long writeMessages = system.writeMessages();
    CountingSystem counting = new CountingSystem(system);
    OpenLoopLoad.Result r = load(counting, settings.ratePerSec(), warmup, duration, seed, value);
    return new Slice(
        r,
        system.readMessages() - readMessages,
        system.writeMessages() - writeMessages,
        counting.reads.get(),
        counting.writes.get());
  }

  /** What the slices of one system add up to. */
  private static final class Tally {
    final SystemUnderTest system;
    final Histogram reads = new Histogram(3);
    final Histogram writes = new Histogram(3);
    long readFailed;
    long writeFailed;
    long dropped;
    double measuredSeconds;
    double completed;
    double offered;
    long readMessages;
    long writeMessages;
    long readsStarted;
    long writesStarted;

    Tally(SystemUnderTest system) {
      this.system = system;
    }

    void add(Slice s) {
      OpenLoopLoad.Result r = s.load();
      reads.add(r.classes().get(0).histogram());
      writes.add(r.classes().get(1).histogram());
      readFailed += r.classes().get(0).failed();
      writeFailed += r.classes().get(1).failed();
      dropped += r.dropped();
      measuredSeconds += r.measuredSeconds();
      completed += r.achievedRatePerSec() * r.measuredSeconds();
      offered = r.offeredRatePerSec();
      readMessages += s.readMessages();
      writeMessages += s.writeMessages();
      readsStarted += s.reads();
      writesStarted += s.writes();
    }

    long failed() {
      return readFailed + writeFailed;
    }

    BenchResult.SystemResult result(boolean anomalies) {
      return new BenchResult.SystemResult(
          system.name(),
          system.description(),
          anomalies,
          Double.NaN,
          offered,
          measuredSeconds == 0 ? Double.NaN : completed / measuredSeconds,
          dropped,
          BenchResult.Latency.of(reads, readFailed, Double.NaN),
          BenchResult.Latency.of(writes, writeFailed, Double.NaN),
          readsStarted == 0 ? Double.NaN : (double) readMessages / readsStarted,
          writesStarted == 0 ? Double.NaN : (double) writeMessages / writesStarted,
          system.hedgeDelayMs());
    }
  }

  /** Counts the reads and writes started, warm-up included, to divide the messages sent by. */
  private record CountingSystem(SystemUnderTest inner, AtomicLong reads, AtomicLong writes) {
    CountingSystem(SystemUnderTest inner) {
      this(inner, new AtomicLong(), new AtomicLong());
    }

    CompletableFuture<?> read(int key) {
      reads.incrementAndGet();
      return inner.read(key);
    }

    CompletableFuture<?> write(int key, byte[] value) {
      writes.incrementAndGet();
      return inner.write(key, value);
    }
  }

  /**
   * The workload: for a given seed, the same arrival times and the same sequence of reads and
   * writes (class 0 and 1) of the same keys, whatever the system.
   */
  private OpenLoopLoad.Result load(
      CountingSystem system,
      double rate,
      Duration warmup,
      Duration duration,
      long seed,
      byte[] value)
      throws InterruptedException {
    int keys = settings.keys();
    double readFraction = settings.readFraction();
    return OpenLoopLoad.builder()
        .ratePerSec(rate)
        .duration(duration)
        .warmup(warmup)
        .maxAccesses(Math.max(1, settings.maxAccesses() / settings.rounds()))
        .maxOutstanding(settings.maxOutstanding())
        .seed(seed)
        .classes(2, k -> isRead(k, seed, readFraction) ? 0 : 1)
        .progress(
            s -> {
              out.print('.');
              out.flush();
            })
        .build()
        .run(
            k ->
                isRead(k, seed, readFraction)
                    ? system.read(key(k, seed, keys))
                    : system.write(key(k, seed, keys), value));
  }

  static boolean isRead(int k, long seed, double readFraction) {
    return (mix(k ^ (seed * 0x9E3779B97F4A7C15L)) >>> 11) * 0x1.0p-53 < readFraction;
  }

  static int key(int k, long seed, int keys) {
    return (int) Long.remainderUnsigned(mix(mix(k) + seed), keys);
  }

  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  private ZoolanderClientBuilder rpClient(
      ChildRepeater repeater, EmbeddedCluster cluster, int duplicates) {
    ZoolanderClientBuilder builder =
        ZoolanderClient.builder()
            .repeater(repeater.host(), repeater.port())
            .basePath(BASE_PATH)
            .requestTimeout(Duration.ofSeconds(30));
    for (int id = 1; id <= duplicates; id++) {
      builder.duplicate(cluster.duplicate(id).connectString());
    }
    return builder;
  }

  /** The same keys and values in every plain ensemble and in Zoolander's tree. */
  private void createData(
      List<PlainEnsemble> ensembles, ChildRepeater repeater, EmbeddedCluster cluster, byte[] value)
      throws Exception {
    for (PlainEnsemble e : ensembles) {
      e.createKeys(settings.keys(), value, CREATES_PER_WRITE);
    }
    try (ZoolanderClient client = rpClient(repeater, cluster, settings.duplicates()).build()) {
      List<Op> ops = new ArrayList<>();
      ops.add(Op.create("/bench", new byte[0]));
      for (int k = 0; k < settings.keys(); k++) {
        ops.add(Op.create(RpSystem.path(k), value));
        if (ops.size() == CREATES_PER_WRITE || k == settings.keys() - 1) {
          client.writeAll(ops).get(SETUP_TIMEOUT_SECONDS, TimeUnit.SECONDS);
          ops.clear();
        }
      }
    }
  }

  /** Plain ZooKeeper's read p99 in that condition: the tau every system is judged at. */
  private static double tau(List<BenchResult.SystemResult> results, boolean anomalies) {
    return results.stream()
        .filter(r -> r.system().equals("plain") && r.anomalies() == anomalies)
        .findFirst()
        .map(r -> r.reads().p99Ms())
        .orElse(Double.NaN);
  }

  private static BenchResult.SystemResult withTau(BenchResult.SystemResult r, double tauMs) {
    return new BenchResult.SystemResult(
        r.system(),
        r.description(),
        r.anomalies(),
        tauMs,
        r.offeredRatePerSec(),
        r.achievedRatePerSec(),
        r.dropped(),
        BenchResult.Latency.of(r.reads().histogram(), r.reads().failed(), tauMs),
        BenchResult.Latency.of(r.writes().histogram(), r.writes().failed(), tauMs),
        r.messagesPerRead(),
        r.messagesPerWrite(),
        r.hedgeDelayMs());
  }

  /**
   * A sustained phase through a client of every duplicate, sampling both heaps after a forced
   * collection.
   */
  private BenchResult.HeapResult heapPhase(
      ChildRepeater repeater, EmbeddedCluster cluster, byte[] value) throws Exception {
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    memory.gc();
    long clientBaseline = memory.getHeapMemoryUsage().getUsed();
    long repeaterBaseline = repeater.heapUsedAfterGc();
    int n = settings.duplicates();
    List<long[]> samples = new ArrayList<>();
    OpenLoopLoad.Result r;
    try (RpSystem system = new RpSystem(rpClient(repeater, cluster, n), n, Double.NaN)) {
      system.connect(SETUP_TIMEOUT_SECONDS);
      say(
          "heap: %s for %d s + %d s warm-up at %.0f accesses/s, both heaps sampled every %d ms ",
          system.name(),
          settings.heapSeconds(),
          settings.warmupSeconds(),
          settings.heapRatePerSec(),
          settings.heapSampleMs());
      Thread sampler =
          new Thread(
              () -> {
                try {
                  Thread.sleep(TimeUnit.SECONDS.toMillis(settings.warmupSeconds()));
                  while (!Thread.currentThread().isInterrupted()) {
                    memory.gc();
                    long client = memory.getHeapMemoryUsage().getUsed();
                    long rep = repeater.heapUsedAfterGc();
                    synchronized (samples) {
                      samples.add(new long[] {client, rep});
                    }
                    Thread.sleep(settings.heapSampleMs());
                  }
                } catch (InterruptedException e) {
                  // the phase is over
                } catch (RuntimeException e) {
                  out.printf("%n[bench] heap sampling stopped: %s%n", e);
                }
              },
              "bench-heap-sampler");
      sampler.setDaemon(true);
      sampler.start();
      try {
        r =
            load(
                new CountingSystem(system),
                settings.heapRatePerSec(),
                Duration.ofSeconds(settings.warmupSeconds()),
                Duration.ofSeconds(settings.heapSeconds()),
                settings.seed(),
                value);
      } finally {
        sampler.interrupt();
        sampler.join(30_000);
      }
    }
    List<long[]> taken;
    synchronized (samples) {
      taken = List.copyOf(samples);
    }
    long clientMax = taken.stream().mapToLong(s -> s[0]).max().orElse(-1);
    long clientMean = (long) taken.stream().mapToLong(s -> s[0]).average().orElse(-1);
    long repeaterMax = taken.stream().mapToLong(s -> s[1]).max().orElse(-1);
    long repeaterMean = (long) taken.stream().mapToLong(s -> s[1]).average().orElse(-1);
    out.printf(
        " achieved %.0f/s of %.0f; client JVM heap %.1f -> max %.1f MB, repeater %.1f -> max %.1f MB%n",
        r.achievedRatePerSec(),
        r.offeredRatePerSec(),
        clientBaseline / 1e6,
        clientMax / 1e6,
        repeaterBaseline / 1e6,
        repeaterMax / 1e6);
    return new BenchResult.HeapResult(
        "rp-" + n,
        r.offeredRatePerSec(),
        r.achievedRatePerSec(),
        r.failed(),
        r.dropped(),
        taken.size(),
        clientBaseline,
        clientMax,
        clientMean,
        repeaterBaseline,
        repeaterMax,
        repeaterMean);
  }

  private static BenchResult.Machine machine(double loadStart, double loadEnd) {
    String cpu = "unknown";
    try {
      cpu =
          Files.readAllLines(Path.of("/proc/cpuinfo"), StandardCharsets.UTF_8).stream()
              .filter(l -> l.startsWith("model name"))
              .map(l -> l.substring(l.indexOf(':') + 1).trim())
              .findFirst()
              .orElse(cpu);
    } catch (IOException | RuntimeException e) {
      // not Linux: unknown
    }
    long memory = -1;
    if (ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.OperatingSystemMXBean os) {
      memory = os.getTotalMemorySize();
    }
    return new BenchResult.Machine(
        Runtime.getRuntime().availableProcessors(),
        cpu,
        memory,
        System.getProperty("os.name")
            + " "
            + System.getProperty("os.version")
            + " "
            + System.getProperty("os.arch"),
        System.getProperty("java.vm.name") + " " + System.getProperty("java.version"),
        loadStart,
        loadEnd);
  }

  private void say(String format, Object... args) {
    out.printf("[bench] " + format + (format.endsWith(" ") ? "" : "%n"), args);
    out.flush();
  }

  /** The plain ensembles: sessions with each duplicate's leader. */
  private record Ensembles(List<PlainEnsemble> list) implements AutoCloseable {
    static Ensembles connect(EmbeddedCluster cluster, int sessions) throws Exception {
      List<PlainEnsemble> list = new ArrayList<>();
      try {
        for (int id : cluster.duplicateIds()) {
          ZooKeeperEnsemble e = cluster.duplicate(id);
          // The injector holds requests at the leader: plain clients talk to it, like Zoolander's
          // plugin.
          String leader =
              e.size() == 1
                  ? e.connectString()
                  : e.connectString(e.awaitLeader(Duration.ofSeconds(30)));
          list.add(PlainEnsemble.connect(leader, sessions));
        }
        return new Ensembles(list);
      } catch (Exception ex) {
        list.forEach(PlainEnsemble::close);
        throw ex;
      }
    }

    @Override
    public void close() {
      list.forEach(PlainEnsemble::close);
    }
  }
}
