package io.zoolander.server.bench;

import io.zoolander.client.PartitionedClient;
import io.zoolander.client.Partitioning;
import io.zoolander.client.ZoolanderClient;
import io.zoolander.client.ZoolanderClientBuilder;
import io.zoolander.server.testing.EmbeddedCluster;
import io.zoolander.server.testing.TreeDigest;
import io.zoolander.server.testing.ZooKeeperEnsemble;
import io.zoolander.server.workload.ClosedLoopLoad;
import io.zoolander.wire.Op;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;
import org.HdrHistogram.Histogram;

/**
 * {@code zoolander bench --write-saturation}: how many sequenced writes a second Zoolander sustains
 * with N duplicates, against plain {@code setData} on one ensemble, in the same run. For each N, a
 * fresh deployment of N single-server duplicates (child JVMs, 1 GiB and G1 each) and a repeater in
 * its own JVM; on it, in interleaved rounds, a closed loop with a fixed number of writes
 * outstanding through plain ZooKeeper's client on duplicate 1's server and through a Zoolander
 * client. A sequenced write is acknowledged at the first duplicate's reply, so after each Zoolander
 * slice the bench waits until every duplicate has applied it and reports writes per second applied
 * everywhere, too. A third system, {@code plain multi +bookkeeping}, prices the plugin's
 * bookkeeping on the same server: the plain write as a multi with the two updates the plugin adds
 * to every write (the state znode and a client record of a typical size), outside Zoolander's tree.
 * The Netty loopback round trip is measured first, as the floor of one extra hop. Bounded in time
 * and count.
 */
public final class WriteSaturationBench {
  private static final String BASE_PATH = "/zoolander";
  private static final int CREATES_PER_WRITE = 50;
  private static final long SETUP_TIMEOUT_SECONDS = 60;
  private static final Duration DRAIN_TIMEOUT = Duration.ofMinutes(2);

  /** Plain ZooKeeper's setData, the base of every ratio. */
  static final String PLAIN_SYSTEM = "plain setData";

  /** The system that prices the plugin's two bookkeeping updates per write. */
  static final String BOOKKEEPING_SYSTEM = "plain multi +bookkeeping";

  private static final String BOOKKEEPING_STATE = "/bench-bookkeeping/state";
  private static final String BOOKKEEPING_RECORD = "/bench-bookkeeping/record";

  /** An encoded BookkeepingState: format byte, epoch, appliedSeq. */
  private static final int STATE_BYTES = 17;

  /**
   * A client record holding its last 32 outcomes of single setData writes (what the bench's writes
   * leave, about 20 bytes an entry); measured records under load are 600 to 700 bytes.
   */
  private static final int RECORD_BYTES = 661;

  /**
   * What to run.
   *
   * @param duplicateCounts the N of each deployment, 1..8
   * @param partitionCounts the P of each partitioned deployment (P partitions of one duplicate and
   *     a repeater each), 1..8; empty for none
   * @param partitionCores whether each partition's JVMs (its duplicate's server and its repeater)
   *     run on a CPU of their own, as {@link CpuAffinity.Plan} assigns them: a stand-in for hosts
   *     of their own; needs partition counts
   * @param outstanding writes kept in flight by the closed loop, 1..10000
   * @param seconds measured seconds per system and N (over all rounds), 1..3600
   * @param warmupSeconds discarded seconds before a system's first slice (a quarter before later
   *     ones), 0..600
   * @param jitWarmupMaxSeconds before measuring a deployment, load it until its JVMs' JIT compilers
   *     are quiet ({@link JitWarmup}), for at most this long; 0..3600, 0 for none
   * @param rounds slices the measured seconds are cut into, interleaving plain and Zoolander,
   *     1..100
   * @param maxWrites measured writes per slice at most
   * @param keys znodes written (round robin), 1..100000
   * @param valueBytes bytes per write, 0..500000
   * @param sessions plain ZooKeeper sessions, 1..64
   * @param loopbackSeconds seconds of the Netty loopback measurement, 0 to skip it
   * @param fsync whether ZooKeeper fsyncs its log
   * @param out where write-saturation.md goes; null for a new temporary directory
   */
  public record Settings(
      List<Integer> duplicateCounts,
      List<Integer> partitionCounts,
      boolean partitionCores,
      int outstanding,
      int seconds,
      int warmupSeconds,
      int jitWarmupMaxSeconds,
      int rounds,
      long maxWrites,
      int keys,
      int valueBytes,
      int sessions,
      int loopbackSeconds,
      boolean fsync,
      Map<String, String> repeaterSettings,
      Path out) {
    public static final List<Integer> DEFAULT_DUPLICATE_COUNTS = List.of(1, 2, 4);
    public static final int DEFAULT_OUTSTANDING = 64;
    public static final int DEFAULT_SECONDS = 10;
    public static final int QUICK_SECONDS = 1;
    public static final int DEFAULT_WARMUP_SECONDS = 2;
    public static final int QUICK_WARMUP_SECONDS = 1;
    public static final int DEFAULT_JIT_WARMUP_MAX_SECONDS = 120;
    public static final int QUICK_JIT_WARMUP_MAX_SECONDS = 0;
    public static final int DEFAULT_ROUNDS = 2;
    public static final int QUICK_ROUNDS = 1;
    public static final long DEFAULT_MAX_WRITES = 1_000_000;
    public static final int DEFAULT_KEYS = 100;
    public static final int QUICK_KEYS = 10;
    public static final int DEFAULT_VALUE_BYTES = 1_024;
    public static final int DEFAULT_LOOPBACK_SECONDS = 3;
    public static final int QUICK_LOOPBACK_SECONDS = 1;

    /**
     * @throws IllegalArgumentException naming the first field out of range
     */
    public Settings {
      check(
          duplicateCounts != null && !duplicateCounts.isEmpty(),
          "write saturation needs at least one duplicate count");
      for (Integer n : duplicateCounts) {
        check(n != null && n >= 1 && n <= 8, "every rp count must be in 1..8, was " + n);
      }
      duplicateCounts = List.copyOf(new TreeSet<>(duplicateCounts));
      check(partitionCounts != null, "partition counts must not be null");
      for (Integer p : partitionCounts) {
        check(p != null && p >= 1 && p <= 8, "every partition count must be in 1..8, was " + p);
      }
      partitionCounts = List.copyOf(new TreeSet<>(partitionCounts));
      check(
          !partitionCores || !partitionCounts.isEmpty(),
          "partition cores need partition counts (--partitions)");
      repeaterSettings = ChildRepeater.checkSettings(repeaterSettings);
      check(
          outstanding >= 1 && outstanding <= 10_000,
          "outstanding writes must be in 1..10000, was " + outstanding);
      check(seconds >= 1 && seconds <= 3_600, "seconds must be in 1..3600, was " + seconds);
      check(
          warmupSeconds >= 0 && warmupSeconds <= 600,
          "warm-up seconds must be in 0..600, was " + warmupSeconds);
      check(
          jitWarmupMaxSeconds >= 0 && jitWarmupMaxSeconds <= 3_600,
          "JIT warm-up max seconds must be in 0..3600, was " + jitWarmupMaxSeconds);
      check(rounds >= 1 && rounds <= 100, "rounds must be in 1..100, was " + rounds);
      check(
          seconds * 1000L / rounds >= 100,
          "seconds / rounds must be at least 0.1 s, was " + seconds + " / " + rounds);
      check(maxWrites >= 1, "max accesses must be >= 1, was " + maxWrites);
      check(keys >= 1 && keys <= 100_000, "keys must be in 1..100000, was " + keys);
      check(
          valueBytes >= 0 && valueBytes <= 500_000,
          "value bytes must be in 0..500000, was " + valueBytes);
      check(sessions >= 1 && sessions <= 64, "sessions must be in 1..64, was " + sessions);
      check(
          loopbackSeconds >= 0 && loopbackSeconds <= 600,
          "loopback seconds must be in 0..600, was " + loopbackSeconds);
    }

    private static void check(boolean ok, String message) {
      if (!ok) {
        throw new IllegalArgumentException(message);
      }
    }
  }

  /**
   * One system at one N, over all its slices.
   *
   * @param duplicates the deployment's N
   * @param system {@code plain setData} or {@code rp-N}
   * @param completed measured writes completed
   * @param failed of those, failed
   * @param seconds measured seconds
   * @param drainSeconds for Zoolander, how long the slowest duplicate took after the slices to
   *     apply what had been acknowledged (summed over the slices); 0 for plain
   * @param histogram closed-loop latencies in microseconds (from issue: not a user's latency)
   */
  public record Row(
      int duplicates,
      String system,
      long completed,
      long failed,
      double seconds,
      double drainSeconds,
      Histogram histogram) {

    /** Acknowledged writes per measured second. */
    public double writesPerSec() {
      return seconds <= 0 ? Double.NaN : (completed - failed) / seconds;
    }

    /** Writes per second applied by every duplicate: the drain counts as time. */
    public double appliedEverywherePerSec() {
      return seconds + drainSeconds <= 0
          ? Double.NaN
          : (completed - failed) / (seconds + drainSeconds);
    }
  }

  private final Settings settings;
  private final PrintWriter out;
  private final JitActivity jit = JitActivity.ofThisJvmAndDescendants();

  /** How each deployment's JIT warm-up ended, by deployment ("N = 2", "P = 1"). */
  private final Map<String, JitWarmup.Outcome> jitWarmups = new LinkedHashMap<>();

  /** The CPU each partitioned deployment's measurement used, by P. */
  private final Map<Integer, CpuUse> partitionCpuUse = new LinkedHashMap<>();

  public WriteSaturationBench(Settings settings, PrintWriter out) {
    this.settings = settings;
    this.out = out;
  }

  /** Runs it, prints the table and writes {@code write-saturation.md}; returns the table. */
  public String run(String commandLine) throws Exception {
    long t0 = System.nanoTime();
    double loadStart = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    Path dir =
        settings.out() != null
            ? Files.createDirectories(settings.out())
            : Files.createTempDirectory("zoolander-bench-write-saturation-");
    say("results go to %s", dir.toAbsolutePath());
    List<Integer> allowed = List.of(); // this JVM's CPUs, given back after the partitions
    Optional<CpuAffinity.Plan> cpus = Optional.empty();
    if (settings.partitionCores()) {
      CpuAffinity.requireTaskset(); // before anything starts
      allowed = CpuAffinity.allowedCpus();
      cpus = Optional.of(CpuAffinity.Plan.of(allowed, Collections.max(settings.partitionCounts())));
      say(
          "partitions on CPUs %s, the client on CPUs %s%s",
          cpus.get().partitionCpus(),
          cpus.get().clientCpus(),
          cpus.get().clientShares() ? " (shared: no more CPUs than partitions)" : "");
    }
    Optional<LoopbackRoundTrip.Result> loopback = loopback();
    byte[] value = new byte[settings.valueBytes()];
    new SplittableRandom(1).nextBytes(value);
    List<Row> rows = new ArrayList<>();
    for (int n : settings.duplicateCounts()) {
      rows.addAll(deployment(n, value, dir));
    }
    List<Row> partitioned = new ArrayList<>();
    long self = ProcessHandle.current().pid();
    boolean pinClient = cpus.isPresent() && !cpus.get().clientShares();
    if (pinClient) {
      CpuAffinity.pin(self, cpus.get().clientCpus());
    }
    try {
      for (int p : settings.partitionCounts()) {
        partitioned.add(partitioned(p, value, dir, cpus));
      }
    } finally {
      if (pinClient) {
        CpuAffinity.pin(self, allowed);
      }
    }
    double loadEnd = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    String table =
        markdown(
            rows,
            partitioned,
            cpus,
            partitionCpuUse,
            jitWarmups,
            loopback,
            settings,
            commandLine,
            loadStart,
            loadEnd,
            (System.nanoTime() - t0) / 1e9);
    Path md = dir.resolve("write-saturation.md");
    Files.writeString(md, table, StandardCharsets.UTF_8);
    say("wrote %s", md.toAbsolutePath());
    out.println();
    out.println(table);
    out.flush();
    return table;
  }

  private Optional<LoopbackRoundTrip.Result> loopback() throws Exception {
    if (settings.loopbackSeconds() == 0) {
      return Optional.empty();
    }
    say("Netty loopback round trip: %d s ", settings.loopbackSeconds());
    LoopbackRoundTrip.Result r =
        LoopbackRoundTrip.measure(
            Duration.ofSeconds(1),
            Duration.ofSeconds(settings.loopbackSeconds()),
            10_000_000,
            LoopbackRoundTrip.DEFAULT_OUTSTANDING,
            LoopbackRoundTrip.DEFAULT_FRAME_BYTES);
    out.printf(" p50 %.3f ms, p99 %.3f ms%n", r.ms(50), r.ms(99));
    return Optional.of(r);
  }

  /** One deployment of {@code n} duplicates: plain and Zoolander, interleaved. */
  private List<Row> deployment(int n, byte[] value, Path dir) throws Exception {
    say(
        "N = %d: starting %d duplicate%s and a repeater in child JVMs ...",
        n, n, n == 1 ? "" : "s");
    try (EmbeddedCluster cluster = duplicates(n)) {
      Map<Integer, String> connectStrings = new LinkedHashMap<>();
      for (int id : cluster.duplicateIds()) {
        connectStrings.put(id, cluster.duplicate(id).connectString());
      }
      ZooKeeperEnsemble first = cluster.duplicate(cluster.duplicateIds().get(0));
      try (ChildRepeater repeater =
              ChildRepeater.start(
                  connectStrings,
                  BASE_PATH,
                  settings.repeaterSettings(),
                  List.of(),
                  dir.resolve("logs-n" + n));
          PlainEnsemble plain = PlainEnsemble.connect(first.connectString(), settings.sessions())) {
        ZoolanderClientBuilder builder = clientOf(repeater, connectStrings.values());
        createData(plain, builder, value);
        try (RpSystem rp = new RpSystem(builder, n, Double.NaN)) {
          rp.connect(SETUP_TIMEOUT_SECONDS);
          jitWarmup(
              "N = " + n,
              () -> {
                closedLoop(
                    k -> plain.setData(PlainSystems.path(k % settings.keys()), value),
                    Duration.ZERO,
                    JitWarmup.SLICE_PER_SYSTEM);
                closedLoop(
                    k -> plain.multi(withBookkeeping(k, value)),
                    Duration.ZERO,
                    JitWarmup.SLICE_PER_SYSTEM);
                closedLoop(
                    k -> rp.write(k % settings.keys(), value),
                    Duration.ZERO,
                    JitWarmup.SLICE_PER_SYSTEM);
                drain(cluster);
              });
          Tally plainTally = new Tally(n, PLAIN_SYSTEM);
          Tally bookkeepingTally = new Tally(n, BOOKKEEPING_SYSTEM);
          Tally rpTally = new Tally(n, rp.name());
          int rounds = settings.rounds();
          Duration slice = Duration.ofMillis(settings.seconds() * 1000L / rounds);
          Duration firstWarmup = Duration.ofSeconds(settings.warmupSeconds());
          for (int round = 0; round < rounds; round++) {
            Duration warmup = round == 0 ? firstWarmup : firstWarmup.dividedBy(4);
            // Three systems a round, each a warm-up and a slice (Zoolander's drain not counted).
            Duration left =
                slice.plus(firstWarmup.dividedBy(4)).multipliedBy(3L * (rounds - round));
            say(
                "N = %d, round %d/%d, about %d s left for this N: ",
                n,
                round + 1,
                rounds,
                left.plus(round == 0 ? firstWarmup.multipliedBy(3).dividedBy(4) : Duration.ZERO)
                    .toSeconds());
            // Rotate the order of the three systems from round to round: all see the same noise.
            for (int i = 0; i < 3; i++) {
              switch ((i + round) % 3) {
                case 0 -> {
                  out.print("plain ");
                  out.flush();
                  plainTally.add(
                      closedLoop(
                          k -> plain.setData(PlainSystems.path(k % settings.keys()), value),
                          warmup,
                          slice),
                      0);
                }
                case 1 -> {
                  out.print("bookkeeping ");
                  out.flush();
                  bookkeepingTally.add(
                      closedLoop(k -> plain.multi(withBookkeeping(k, value)), warmup, slice), 0);
                }
                default -> {
                  out.print(rp.name() + " ");
                  out.flush();
                  ClosedLoopLoad.Result r =
                      closedLoop(k -> rp.write(k % settings.keys(), value), warmup, slice);
                  rpTally.add(r, drain(cluster));
                }
              }
            }
            out.println();
          }
          Row p = plainTally.row();
          Row b = bookkeepingTally.row();
          Row z = rpTally.row();
          say(
              "N = %d: plain setData %.0f writes/s, %s %.0f writes/s acknowledged (%.0f applied"
                  + " everywhere)",
              n, p.writesPerSec(), z.system(), z.writesPerSec(), z.appliedEverywherePerSec());
          return List.of(p, b, z);
        }
      }
    }
  }

  /**
   * {@code p} partitions, each one single-server duplicate and a repeater in child JVMs, and a
   * {@link PartitionedClient} spreading the closed loop's writes over them (key {@code k} in
   * partition {@code k mod p}). With one duplicate a partition, a write acknowledged is applied
   * everywhere. The row's {@code duplicates} is {@code p}.
   */
  private Row partitioned(int p, byte[] value, Path dir, Optional<CpuAffinity.Plan> cpus)
      throws Exception {
    say(
        "P = %d: starting %d partition%s of one duplicate and a repeater ...",
        p, p, p == 1 ? "" : "s");
    List<AutoCloseable> opened = new ArrayList<>();
    List<Long> partitionPids = new ArrayList<>();
    try {
      Partitioning.Builder routes = Partitioning.builder().partitions(p);
      PartitionedClient.Builder client = PartitionedClient.builder();
      for (int i = 0; i < p; i++) {
        EmbeddedCluster cluster = duplicates(1);
        opened.add(cluster);
        int duplicateId = cluster.duplicateIds().get(0);
        ZooKeeperEnsemble ensemble = cluster.duplicate(duplicateId);
        String connectString = ensemble.connectString();
        ChildRepeater repeater =
            ChildRepeater.start(
                Map.of(duplicateId, connectString),
                BASE_PATH,
                settings.repeaterSettings(),
                List.of(),
                dir.resolve("logs-p" + p + "-" + i));
        opened.add(repeater);
        // This partition's JVMs: its repeater and its duplicate's servers.
        List<Long> pids = new ArrayList<>(List.of(repeater.pid()));
        for (int server : ensemble.serverIds()) {
          int partition = i;
          pids.add(
              ensemble
                  .pid(server)
                  .orElseThrow(
                      () ->
                          new IllegalStateException(
                              "partition "
                                  + partition
                                  + ": server "
                                  + server
                                  + " is not running")));
        }
        partitionPids.addAll(pids);
        if (cpus.isPresent()) {
          List<Integer> partitionCpus = cpus.get().partitionCpus();
          int cpu = partitionCpus.get(i % partitionCpus.size());
          for (long pid : pids) {
            CpuAffinity.pin(pid, cpu);
          }
          say("P = %d: partition %d's JVMs on CPU %d", p, i, cpu);
        }
        routes.route(partitionName(i), i);
        client.partition(i, clientOf(repeater, List.of(connectString)).build());
      }
      PartitionedClient partitions = client.partitioning(routes.build()).build();
      opened.add(partitions);
      for (int i = 0; i < p; i++) {
        List<Op> ops = new ArrayList<>();
        ops.add(Op.create("/" + partitionName(i), new byte[0]));
        for (int k = i; k < settings.keys(); k += p) {
          ops.add(Op.create(partitionedPath(k, p), value));
          if (ops.size() == CREATES_PER_WRITE) {
            partitions.writeAll(ops).get(SETUP_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            ops.clear();
          }
        }
        if (!ops.isEmpty()) {
          partitions.writeAll(ops).get(SETUP_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        }
      }
      jitWarmup(
          "P = " + p,
          () ->
              closedLoop(
                  k -> partitions.setData(partitionedPath(k % settings.keys(), p), value, -1),
                  Duration.ZERO,
                  JitWarmup.SLICE_PER_SYSTEM));
      String system = p + " partition" + (p == 1 ? "" : "s");
      Tally tally = new Tally(p, system);
      int rounds = settings.rounds();
      Duration slice = Duration.ofMillis(settings.seconds() * 1000L / rounds);
      Duration firstWarmup = Duration.ofSeconds(settings.warmupSeconds());
      CpuUse.Meter cpuMeter = new CpuUse.Meter(partitionPids);
      for (int round = 0; round < rounds; round++) {
        Duration warmup = round == 0 ? firstWarmup : firstWarmup.dividedBy(4);
        say("P = %d, round %d/%d: ", p, round + 1, rounds);
        tally.add(
            closedLoop(
                k -> partitions.setData(partitionedPath(k % settings.keys(), p), value, -1),
                warmup,
                slice),
            0);
        out.println();
      }
      CpuUse cpu = cpuMeter.stop();
      partitionCpuUse.put(p, cpu);
      Row row = tally.row();
      say(
          "P = %d: %.0f writes/s; CPU: the client %.2f cores, the partitions' JVMs %.2f",
          p, row.writesPerSec(), cpu.clientCores(), cpu.partitionCores());
      return row;
    } finally {
      for (int i = opened.size() - 1; i >= 0; i--) {
        opened.get(i).close();
      }
    }
  }

  /** {@code n} single-server duplicates in child JVMs, without a repeater: the bench starts one. */
  private EmbeddedCluster duplicates(int n) throws Exception {
    return EmbeddedCluster.builder()
        .duplicates(n)
        .fsync(settings.fsync())
        .basePath(BASE_PATH)
        .duplicateJvmArgs(BatchingBench.DUPLICATE_JVM_ARGS.toArray(String[]::new))
        .startRepeater(false)
        .start();
  }

  /** A client of the repeater in its child JVM and of these duplicates. */
  private static ZoolanderClientBuilder clientOf(
      ChildRepeater repeater, Collection<String> connectStrings) {
    ZoolanderClientBuilder builder =
        ZoolanderClient.builder()
            .repeater(repeater.host(), repeater.port())
            .basePath(BASE_PATH)
            .requestTimeout(Duration.ofSeconds(30));
    connectStrings.forEach(builder::duplicate);
    return builder;
  }

  /**
   * Runs {@code turn} until the JIT compilers of this JVM and of the deployment's are quiet, at
   * most {@code jitWarmupMaxSeconds}: fresh JVMs on 2 cores compile for tens of seconds, and a
   * slice measured meanwhile measures the compilers. Skipped (and said) where {@code /proc} cannot
   * tell.
   */
  private void jitWarmup(String deployment, JitWarmup.Turn turn) throws Exception {
    JitWarmup.untilQuiet(jit, settings.jitWarmupMaxSeconds(), turn, out, deployment + ": ")
        .ifPresent(outcome -> jitWarmups.put(deployment, outcome));
  }

  private static String partitionName(int partition) {
    return "p" + partition;
  }

  /** Key {@code k}'s znode when the keys are spread over {@code p} partitions. */
  private static String partitionedPath(int k, int p) {
    return "/" + partitionName(k % p) + "/k" + k;
  }

  private ClosedLoopLoad.Result closedLoop(
      java.util.function.IntFunction<? extends java.util.concurrent.CompletionStage<?>> write,
      Duration warmup,
      Duration duration)
      throws InterruptedException {
    return ClosedLoopLoad.run(
        write, settings.outstanding(), warmup, duration, settings.maxWrites(), DRAIN_TIMEOUT);
  }

  /**
   * Waits until every duplicate has applied what the fastest one has (all acknowledged writes),
   * returns how long that took in seconds.
   */
  private static double drain(EmbeddedCluster cluster) throws Exception {
    long start = System.nanoTime();
    long seq =
        cluster.digests().values().stream().mapToLong(d -> d.state().appliedSeq()).max().orElse(0);
    Map<Integer, TreeDigest> converged = cluster.awaitConverged(seq, DRAIN_TIMEOUT);
    if (converged.isEmpty()) {
      throw new IllegalStateException("no duplicate to converge");
    }
    return (System.nanoTime() - start) / 1e9;
  }

  private void createData(PlainEnsemble plain, ZoolanderClientBuilder builder, byte[] value)
      throws Exception {
    plain.createKeys(settings.keys(), value, CREATES_PER_WRITE);
    plain.createIfAbsent(BOOKKEEPING_STATE, new byte[STATE_BYTES]);
    plain.createIfAbsent(BOOKKEEPING_RECORD, new byte[RECORD_BYTES]);
    try (ZoolanderClient client = builder.build()) {
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

  /** Plain write {@code k} with the plugin's two bookkeeping updates, as one multi. */
  private List<org.apache.zookeeper.Op> withBookkeeping(int k, byte[] value) {
    return List.of(
        org.apache.zookeeper.Op.setData(BOOKKEEPING_STATE, STATE_BOOKKEEPING, -1),
        org.apache.zookeeper.Op.setData(BOOKKEEPING_RECORD, RECORD_BOOKKEEPING, -1),
        org.apache.zookeeper.Op.setData(PlainSystems.path(k % settings.keys()), value, -1));
  }

  private static final byte[] STATE_BOOKKEEPING = new byte[STATE_BYTES];
  private static final byte[] RECORD_BOOKKEEPING = new byte[RECORD_BYTES];

  /** What the slices of one system at one N add up to. */
  private static final class Tally {
    final int duplicates;
    final String system;
    final Histogram histogram = new Histogram(3);
    long completed;
    long failed;
    double seconds;
    double drainSeconds;

    Tally(int duplicates, String system) {
      this.duplicates = duplicates;
      this.system = system;
    }

    void add(ClosedLoopLoad.Result r, double drain) {
      histogram.add(r.histogram());
      completed += r.completed();
      failed += r.failed();
      seconds += r.measuredSeconds();
      drainSeconds += drain;
    }

    Row row() {
      return new Row(duplicates, system, completed, failed, seconds, drainSeconds, histogram);
    }
  }

  /** The table, with its method and the loopback floor. */
  static String markdown(
      List<Row> rows,
      List<Row> partitioned,
      Optional<CpuAffinity.Plan> cpus,
      Map<Integer, CpuUse> partitionCpuUse,
      Map<String, JitWarmup.Outcome> jitWarmups,
      Optional<LoopbackRoundTrip.Result> loopback,
      Settings s,
      String commandLine,
      double loadStart,
      double loadEnd,
      double seconds) {
    StringBuilder b = new StringBuilder();
    b.append("`").append(commandLine).append("`\n\n");
    b.append(
        String.format(
            Locale.ROOT,
            "Write saturation: for each N, a fresh deployment of N single-server duplicates (child JVMs, "
                + "fsync %s) and a repeater in its own JVM; a closed loop keeps %d writes of %d bytes "
                + "outstanding (round robin over %d znodes), through plain ZooKeeper's client (%d sessions) on "
                + "duplicate 1's server and through a Zoolander client, interleaved in %d round%s, %d s measured "
                + "per system after %d s of warm-up (a quarter of it before later slices). Latencies are the "
                + "closed loop's, from issue: they grow with the queue, they are not a user's. One-minute load "
                + "average %.2f at the start, %.2f at the end; %.0f s.%n%n",
            s.fsync() ? "on" : "off",
            s.outstanding(),
            s.valueBytes(),
            s.keys(),
            s.sessions(),
            s.rounds(),
            s.rounds() == 1 ? "" : "s",
            s.seconds(),
            s.warmupSeconds(),
            loadStart,
            loadEnd,
            seconds));
    if (!jitWarmups.isEmpty()) {
      b.append(
          String.format(
              Locale.ROOT,
              "Before measuring, each deployment was loaded (each system %d s a turn) until the JIT"
                  + " compilers of all its JVMs and the bench's spent at most %.0f%% of a core over %d"
                  + " turns in a row, for at most %d s:%n%n",
              JitWarmup.SLICE_PER_SYSTEM.toSeconds(),
              JitWarmup.QUIET_SHARE * 100,
              JitWarmup.QUIET_TURNS,
              s.jitWarmupMaxSeconds()));
      jitWarmups.forEach(
          (deployment, o) ->
              b.append("- ").append(deployment).append(": ").append(o.describe()).append('\n'));
      b.append('\n');
    }
    b.append(
        "| N | system | writes/s | applied everywhere/s | vs plain | p50 ms | p99 ms | completed | failed |\n");
    b.append("|---:|---|---:|---:|---:|---:|---:|---:|---:|\n");
    Map<Integer, Double> plainRate = new LinkedHashMap<>();
    for (Row r : rows) {
      if (r.system().equals(PLAIN_SYSTEM)) {
        plainRate.put(r.duplicates(), r.writesPerSec());
      }
    }
    for (Row r : rows) {
      boolean plain = r.system().startsWith("plain");
      boolean base = r.system().equals(PLAIN_SYSTEM);
      double baseRate = plainRate.getOrDefault(r.duplicates(), Double.NaN);
      b.append(
          String.format(
              Locale.ROOT,
              "| %d | %s | %.0f | %s | %s | %.3f | %.3f | %d | %d |%n",
              r.duplicates(),
              r.system(),
              r.writesPerSec(),
              plain ? "" : String.format(Locale.ROOT, "%.0f", r.appliedEverywherePerSec()),
              base ? "1.00x" : String.format(Locale.ROOT, "%.2fx", r.writesPerSec() / baseRate),
              percentileMs(r.histogram(), 50),
              percentileMs(r.histogram(), 99),
              r.completed(),
              r.failed()));
    }
    b.append(
        "\nwrites/s: writes acknowledged per measured second (a sequenced write at the first duplicate's"
            + " reply). applied everywhere/s: the same writes over the measured time plus the time the"
            + " slowest duplicate then took to apply them all. vs plain: writes/s against plain setData"
            + " in the same deployment. "
            + BOOKKEEPING_SYSTEM
            + ": the plain setData in a multi with the two updates the plugin adds to every write (a "
            + STATE_BYTES
            + "-byte state and a "
            + RECORD_BYTES
            + "-byte client record), on the same server: what the bookkeeping costs by itself.\n\n");
    if (!partitioned.isEmpty()) {
      b.append(
          "Partitions: P deployments of one single-server duplicate and a repeater each (child JVMs,"
              + " as above), one PartitionedClient spreading the same closed loop's setData writes over"
              + " them (key k in partition k mod P)."
              + cpus.map(WriteSaturationBench::cpuPlanMarkdown).orElse("")
              + "\n\n");
      b.append(
          "| P | writes/s | vs 1 partition | p50 ms | p99 ms | completed | failed | client CPU"
              + " | partitions' CPU |\n");
      b.append("|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
      double one =
          partitioned.stream()
              .filter(r -> r.duplicates() == 1)
              .mapToDouble(Row::writesPerSec)
              .findFirst()
              .orElse(Double.NaN);
      for (Row r : partitioned) {
        b.append(
            String.format(
                Locale.ROOT,
                "| %d | %.0f | %s | %.3f | %.3f | %d | %d | %s | %s |%n",
                r.duplicates(),
                r.writesPerSec(),
                Double.isNaN(one)
                    ? ""
                    : String.format(Locale.ROOT, "%.2fx", r.writesPerSec() / one),
                percentileMs(r.histogram(), 50),
                percentileMs(r.histogram(), 99),
                r.completed(),
                r.failed(),
                cores(partitionCpuUse.get(r.duplicates()), CpuUse::clientCores),
                cores(partitionCpuUse.get(r.duplicates()), CpuUse::partitionCores)));
      }
      b.append(
          "\nclient CPU, partitions' CPU: the cores the bench's JVM and the partitions' JVMs (servers"
              + " and repeaters) used on average over the measured rounds, warm-ups between them"
              + " included.\n");
      b.append(
          cpus.isPresent()
              ? "\nOne partition has one CPU, P partitions have P: the ratio is what a partition on a"
                  + " host of its own adds"
                  + (cpus.get().clientShares()
                      ? ", less what the client, running beside them, takes from them.\n\n"
                      : ", the client's CPUs the same for every P.\n\n")
              : "\nOn one host the partitions share its cores; on hosts of their own each partition"
                  + " sequences and applies only its writes.\n\n");
    }
    b.append(BenchReport.loopbackMarkdown(loopback, Optional.empty(), Optional.empty()));
    return b.toString();
  }

  private static String cores(CpuUse use, ToDoubleFunction<CpuUse> which) {
    if (use == null || Double.isNaN(which.applyAsDouble(use))) {
      return "";
    }
    return String.format(Locale.ROOT, "%.2f", which.applyAsDouble(use));
  }

  /** Where the partitions and the client ran, with {@code --partition-cores}. */
  static String cpuPlanMarkdown(CpuAffinity.Plan plan) {
    return " Each partition's JVMs (its server and its repeater) on a CPU of their own, a stand-in for"
        + " hosts of their own (--partition-cores): partition i on the i-th of CPUs "
        + plan.partitionCpus()
        + (plan.clientShares()
            ? "; the bench's JVM, the client, on any of CPUs "
                + plan.clientCpus()
                + ", shared with them (the host has no more CPUs than partitions)."
            : "; the bench's JVM, the client, on CPUs " + plan.clientCpus() + " alone.");
  }

  /** A percentile of a histogram of microseconds, in ms; NaN when it is empty. */
  private static double percentileMs(Histogram histogram, double percentile) {
    return histogram.getTotalCount() == 0
        ? Double.NaN
        : histogram.getValueAtPercentile(percentile) / 1e3;
  }

  private void say(String format, Object... args) {
    out.printf("[bench] " + format + (format.endsWith(" ") ? "" : "%n"), args);
    out.flush();
  }
}
