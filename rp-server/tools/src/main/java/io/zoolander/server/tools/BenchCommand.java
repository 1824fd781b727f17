package io.zoolander.server.tools;

import io.zoolander.server.bench.AdmissionBench;
import io.zoolander.server.bench.BatchingBench;
import io.zoolander.server.bench.Bench;
import io.zoolander.server.bench.BenchSettings;
import io.zoolander.server.bench.DiurnalBench;
import io.zoolander.server.bench.PlannedSlownessBench;
import io.zoolander.server.bench.WriteSaturationBench;
import io.zoolander.server.cli.CliException;
import io.zoolander.server.repeater.BatchingPolicy;
import io.zoolander.server.testing.ServerMode;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code zoolander bench}: Zoolander against what a user would otherwise pick, on the same
 * ensembles.
 */
@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    header =
        "Measure plain ZooKeeper, replication for throughput, hedged reads and Zoolander on the same"
            + " ensembles, with the same workload.",
    description = {
      "Start an embedded deployment (ZooKeeper duplicates with the plugin in child JVMs, the repeater in its own JVM)"
          + " and measure on the same ensembles, with the same open-loop workload (Poisson arrivals, latency from the"
          + " intended send time, warm-up discarded): plain ZooKeeper through the standard client; replication for"
          + " throughput (reads spread over the ensembles); client-side hedged reads (to a second ensemble after the"
          + " p95 delay measured in warm-up); Zoolander RP with 1, 2, 4 duplicates (first-reply reads, sequenced"
          + " writes) and with hedged reads. Each without and with the anomaly injector, which slows plain ZooKeeper"
          + " clients and Zoolander's accesses alike, server-side. Also hedged reads at the p50 and p90 delays, so"
          + " that the cost/benefit frontier (messages per read against miss rate) compares hedging and RP at equal"
          + " extra load, and the Netty loopback round trip, the floor of one extra hop. Then a sustained phase that"
          + " samples the client's and the repeater's heap.",
      "Writes bench.json, bench.md and PNG charts (latency, miss rate, miss rate against tau, frontier) into --out"
          + " and prints the tables; bench.md also judges the data path's targets, each figure with its 95%%"
          + " interval: met, not met, or undecided when the run had too few samples. Every run is bounded in time"
          + " and count; the defaults take about eight minutes."
    })
final class BenchCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(
      names = "--quick",
      description =
          "Small counts for a smoke run: 200 accesses/s, 1 s JVM warm-up, 1 s "
              + "warm-up, 1 s per system in 2 rounds, 10 keys, heap phase 2 s at 300/s (explicit flags still win).")
  boolean quick;

  @Option(
      names = "--duplicates",
      paramLabel = "N",
      description =
          "Duplicates (ensembles) started, 1..8 (default: 4;"
              + " --admission: 2). With 1, the systems"
              + " that need two ensembles (balanced, hedged) are left out.")
  Integer duplicates;

  @Option(
      names = "--admission",
      description =
          "Instead: writes offered above capacity (every duplicate's writes "
              + "stalled by the anomaly injector), without and with the repeater's admission control; prints the table and "
              + "writes admission.md into --out. Uses --duplicates, --rate (default: 200), --seconds (default: 10; --quick: "
              + "3), --warmup-seconds (default: 2; --quick: 1), --seed, --out and the --admission-* options.")
  boolean admission;

  @Option(
      names = "--admission-tau-ms",
      description = "With --admission: the SLA's tau in ms (default: 50).")
  Double admissionTauMs;

  @Option(
      names = "--admission-target",
      description = "With --admission: the target SLA (default: 0.95).")
  Double admissionTarget;

  @Option(
      names = "--admission-write-delay-ms",
      description =
          "With --admission: the stall of every write on every "
              + "duplicate, which sets capacity to at most 1000/delay writes/s (default: 10).")
  Double admissionWriteDelayMs;

  @Option(
      names = "--servers-per-duplicate",
      paramLabel = "N",
      description =
          "ZooKeeper servers per duplicate: 1, 3 or 5 (default: 1). Plain clients talk to the leader.")
  Integer serversPerDuplicate;

  @Option(
      names = "--rp-counts",
      split = ",",
      paramLabel = "N,N...",
      description = "Duplicate counts Zoolander RP runs with (default: 1,2,4).")
  List<Integer> rpCounts;

  @Option(
      names = "--partitions",
      split = ",",
      paramLabel = "P,P...",
      description =
          "With --write-saturation: also sequenced writes/s with P partitions of one duplicate and a"
              + " repeater each, one client routing over them, against one partition in the same run"
              + " (default: none).")
  List<Integer> partitionCounts;

  @Option(
      names = "--partition-cores",
      description =
          "With --partitions: run each partition's JVMs (its server and its repeater) on a CPU of"
              + " their own, partition i on the i-th CPU (Linux's taskset), as a stand-in for hosts of"
              + " their own: one partition gets one CPU, P partitions get P. With more CPUs than"
              + " partitions the bench's own JVM, the client, keeps the others; with fewer it shares"
              + " them.")
  boolean partitionCores;

  @Option(
      names = "--rate",
      paramLabel = "PER_SEC",
      description =
          "Offered Poisson arrival rate of accesses per second (default: 500; --quick: 200).")
  Double rate;

  @Option(
      names = "--read-fraction",
      description = "Fraction of accesses that are reads; the rest are writes " + "(default: 0.9).")
  Double readFraction;

  @Option(
      names = "--seconds",
      description = "Measured seconds per system and condition (default: 15; --quick: 1).")
  Integer seconds;

  @Option(
      names = "--rounds",
      description =
          "Interleaved rounds the measured seconds are cut into: each round "
              + "measures every system once, so all share the machine's drifting background load (default: 15; --quick: 2).")
  Integer rounds;

  @Option(
      names = "--warmup-seconds",
      description =
          "Warm-up before a system's first slice, discarded (a quarter of it "
              + "before later slices); hedging measures its delay over as long (default: 2; --quick: 1).")
  Integer warmupSeconds;

  @Option(
      names = "--jvm-warmup-seconds",
      description =
          "Unrecorded load through Zoolander and through plain "
              + "ZooKeeper, each, before the first run, so every JVM has compiled its hot paths (default: 6; --quick: 1).")
  Integer jvmWarmupSeconds;

  @Option(
      names = "--jvm-warmup-accesses",
      description =
          "Then a closed loop of this many accesses, half reads and half writes, "
              + "16 in flight, through Zoolander and through plain ZooKeeper, each, so the write path is "
              + "compiled too (default: 20000; --quick: 500; 0: none).")
  Integer jvmWarmupAccesses;

  @Option(
      names = "--max-accesses",
      description =
          "Bound on the measured accesses of one system in one condition, "
              + "split evenly over the rounds (default: 1000000).")
  Long maxAccesses;

  @Option(
      names = "--max-outstanding",
      description =
          "Accesses in flight at most; arrivals beyond are dropped and "
              + "counted, so an overloaded system sheds load rather than queueing without bound (default: 1000).")
  Integer maxOutstanding;

  @Option(
      names = "--keys",
      description = "Pre-created znodes read and written (default: 100; --quick: 10).")
  Integer keys;

  @Option(names = "--value-bytes", description = "Size of every znode's value (default: 1024).")
  Integer valueBytes;

  @Option(
      names = "--sessions",
      description =
          "Plain ZooKeeper sessions per ensemble; a request goes to the one "
              + "with the fewest outstanding (default: 4).")
  Integer sessions;

  @Option(
      names = "--balance",
      paramLabel = "round-robin|random",
      description =
          "How replication for throughput picks an ensemble per read (default: round-robin).")
  String balance;

  @Option(
      names = "--hedge-percentile",
      description =
          "Percentile of unhedged read latency after which a read is "
              + "hedged, in (0, 100) (default: 95).")
  Double hedgePercentile;

  @Option(
      names = "--frontier-hedge-percentiles",
      split = ",",
      paramLabel = "P,P...|none",
      description =
          "Hedge delays, as percentiles of unhedged read latency, of the extra hedged systems "
              + "(hedged-pP) that put hedging on the cost/benefit frontier at several extra loads, besides "
              + "--hedge-percentile; 'none' for none (default: 50,90).")
  List<String> frontierHedgePercentiles;

  @Option(
      names = "--loopback-seconds",
      description =
          "Seconds of the Netty loopback round-trip measurement (a trivial echo on 127.0.0.1, the floor"
              + " of one extra hop), closed loop and then paced at --rate (threads asleep between"
              + " frames, as at the bench's rate), reported beside the results; 0 skips it (default:"
              + " 3; --quick: 1).")
  Integer loopbackSeconds;

  @Option(
      names = "--write-saturation",
      description =
          "Instead of the comparison above: sequenced writes/s at each N of --rp-counts (default: 1,2,4)"
              + " against plain setData on one ensemble, in the same run: for each N a fresh deployment, a closed"
              + " loop with --outstanding writes in flight, plain, plain with the plugin's bookkeeping updates"
              + " (one multi) and Zoolander interleaved in --rounds rounds"
              + " (default: 2; --quick: 1); also the Netty loopback round trip (--loopback-seconds). Uses"
              + " --seconds (default: 10; --quick: 1), --warmup-seconds (default: 2; --quick: 1), --max-accesses"
              + " (per slice), --keys, --value-bytes, --sessions, --fsync; writes write-saturation.md into --out.")
  boolean writeSaturation;

  @Option(
      names = "--jit-warmup-max-seconds",
      description =
          "Before measuring, after the JVM warm-up, load the deployment (Zoolander and plain"
              + " ZooKeeper 1 s each a turn; with --write-saturation every system of each deployment)"
              + " until the JIT compilers of all its JVMs and the bench's are quiet (at most 3%% of a"
              + " core over 2 turns in a row), for at most this long; fresh JVMs on 2 cores compile for"
              + " tens of seconds (default: 120; --quick: 0, none).")
  Integer jitWarmupMaxSeconds;

  @Option(
      names = "--outstanding",
      paramLabel = "N",
      description =
          "With --write-saturation: writes the closed loop keeps in flight (default: 64).")
  Integer outstanding;

  @Option(
      names = "--anomaly",
      paramLabel = "RECORD|none",
      description =
          "The anomaly injector's settings in every "
              + "duplicate for the runs with anomalies (syntax: docs/architecture.md), or 'none' to skip those runs "
              + "(default: "
              + BenchSettings.DEFAULT_ANOMALY
              + ").")
  String anomaly;

  @Option(
      names = "--heap-rate",
      paramLabel = "PER_SEC",
      description =
          "Offered rate of the heap phase (default: "
              + "10000; --quick: 300). The achieved rate is reported.")
  Double heapRate;

  @Option(
      names = "--heap-seconds",
      description =
          "Measured seconds of the heap phase; 0 skips it (default: 10; " + "--quick: 2).")
  Integer heapSeconds;

  @Option(
      names = "--heap-sample-ms",
      description = "Interval between heap samples (default: 1000; --quick: 500).")
  Integer heapSampleMs;

  @Option(
      names = "--fsync",
      description = "Let ZooKeeper fsync its log (slower, closer to production).")
  boolean fsync;

  @Option(
      names = "--repeater-setting",
      paramLabel = "KEY=VALUE",
      description =
          "An entry of the child repeater's repeater.properties, e.g. clientIoThreads=1 or"
              + " batching=none (repeatable; `zoolander repeater --help` lists the keys). Main bench and"
              + " --write-saturation.")
  Map<String, String> repeaterSettings = new LinkedHashMap<>();

  @Option(
      names = "--trace-writes",
      description =
          "Also record, for every 8th write of the Zoolander systems, when it passes each stage (client,"
              + " repeater, plugin, ZooKeeper multi) in every process, and report where a sequenced"
              + " write's time goes: write-trace.md in --out. Main bench only.")
  boolean traceWrites;

  @Option(
      names = "--seed",
      description = "Seed of arrivals, keys and the read/write sequence (default: 1).")
  Long seed;

  @Option(
      names = "--out",
      paramLabel = "DIR",
      description =
          "Directory for bench.json, bench.md and the charts "
              + "(default: a new temporary directory, printed).")
  Path out;

  @Option(
      names = "--batching",
      description =
          "Instead of the comparison above: compare the repeater's batching "
              + "policies (--batching-policies) on write-only open-loop load at each --batching-rates rate, in "
              + "--batching-rounds rounds, ZooKeeper fsyncing (docs/benchmarks.md). Uses --duplicates (default 2), --seconds "
              + "(default 5; --quick 1) and --warmup-seconds (default 2; --quick 1); writes batching.md into --out if given.")
  boolean batching;

  @Option(
      names = "--batching-rates",
      split = ",",
      paramLabel = "PER_SEC,...",
      description =
          "Offered write rates of --batching (default: 200,10000,14000; --quick: 100,400).")
  List<Double> batchingRates;

  @Option(
      names = "--batching-policies",
      split = ",",
      paramLabel = "POLICY,...",
      description =
          "Policies of --batching, each 'none', 'adaptive' or an interval in microseconds (default: "
              + "none,1000,5000,adaptive).")
  List<String> batchingPolicies;

  @Option(
      names = "--batching-rounds",
      paramLabel = "N",
      description =
          "Runs of each policy at each rate of "
              + "--batching, the order rotated each round; the table gives the medians and every run (default: 3; --quick: "
              + "1).")
  Integer batchingRounds;

  @Option(
      names = "--planned-slowness",
      description =
          "Instead of the comparison above: read tails with frequent "
              + "ZooKeeper snapshots (snapCount "
              + PlannedSlownessBench.SNAP_COUNT
              + ", "
              + PlannedSlownessBench.KEYS
              + " znodes), without and with the plugins announcing them to clients (docs/benchmarks.md). Uses --duplicates "
              + "(default 2), --rate (default 500), --read-fraction (default 0.5), --seconds (default 20; --quick 2) and "
              + "--warmup-seconds (default 2; --quick 1); writes planned-slowness.md into --out if given.")
  boolean plannedSlowness;

  @Option(
      names = "--diurnal",
      description =
          "Instead of the comparison above: a compressed day (open-loop reads and writes rising from a tenth"
              + " of --rate to --rate and back, two anomalies on duplicate 1), run once with the repeater's load"
              + " controller (from --diurnal-min-duplicates up to the budget --diurnal-max-duplicates, adding"
              + " spares) and once per static number of duplicates in that range, on the same schedule; reports"
              + " the SLO violations (1-s windows with fewer than --diurnal-target of the reads within"
              + " --diurnal-tau-ms) and node-seconds of each, names the best static configuration at no more"
              + " node-seconds than the controller, and writes diurnal.md and diurnal.json into --out. Uses --rate"
              + " (default: 400; --quick: 100), --read-fraction (default: 0.5), --seed and --out.")
  boolean diurnal;

  @Option(
      names = "--diurnal-day-seconds",
      paramLabel = "S",
      description = "With --diurnal: the length of the compressed day (default: 60; --quick: 8).")
  Integer diurnalDaySeconds;

  @Option(
      names = "--diurnal-min-duplicates",
      paramLabel = "N",
      description =
          "With --diurnal: the controller's minimum and the smallest static configuration (default: 1).")
  Integer diurnalMinDuplicates;

  @Option(
      names = "--diurnal-max-duplicates",
      paramLabel = "N",
      description =
          "With --diurnal: the controller's budget and the largest static configuration (default: 3;"
              + " --quick: 2).")
  Integer diurnalMaxDuplicates;

  @Option(
      names = "--diurnal-tau-ms",
      description = "With --diurnal: the SLO's and the controller's tau in ms (default: 10).")
  Double diurnalTauMs;

  @Option(
      names = "--diurnal-target",
      description =
          "With --diurnal: the fraction of a window's reads within tau the SLO asks, and the"
              + " controller's target SLA (default: 0.95).")
  Double diurnalTarget;

  @Override
  public Integer call() throws Exception {
    PrintWriter console = spec.commandLine().getOut();
    String command =
        "zoolander " + String.join(" ", spec.commandLine().getParseResult().originalArgs());
    if ((admission ? 1 : 0)
            + (batching ? 1 : 0)
            + (plannedSlowness ? 1 : 0)
            + (writeSaturation ? 1 : 0)
            + (diurnal ? 1 : 0)
        > 1) {
      throw CliException.usage(
          "--admission, --batching, --diurnal, --planned-slowness and --write-saturation are"
              + " separate benchmarks: choose one");
    }
    if (diurnal) {
      DiurnalBench.Settings diurnalSettings;
      try {
        diurnalSettings = diurnalSettings();
      } catch (IllegalArgumentException e) {
        throw CliException.usage(e.getMessage());
      }
      new DiurnalBench(diurnalSettings, console).run(command);
      return 0;
    }
    if (writeSaturation) {
      WriteSaturationBench.Settings saturation;
      try {
        saturation = writeSaturationSettings();
      } catch (IllegalArgumentException e) {
        throw CliException.usage(e.getMessage());
      }
      new WriteSaturationBench(saturation, console).run(command);
      return 0;
    }
    if (admission) {
      AdmissionBench.Settings admissionSettings;
      try {
        admissionSettings = admissionSettings();
      } catch (IllegalArgumentException e) {
        throw CliException.usage(e.getMessage());
      }
      new AdmissionBench(admissionSettings, console).run(command);
      return 0;
    }
    if (batching) {
      return runBatching(console);
    }
    if (plannedSlowness) {
      return runPlannedSlowness(console);
    }
    BenchSettings settings;
    try {
      settings = settings();
    } catch (IllegalArgumentException | NullPointerException e) {
      throw CliException.usage(e.getMessage());
    }
    new Bench(settings, console).run(command);
    return 0;
  }

  private WriteSaturationBench.Settings writeSaturationSettings() {
    return new WriteSaturationBench.Settings(
        rpCounts != null ? rpCounts : WriteSaturationBench.Settings.DEFAULT_DUPLICATE_COUNTS,
        partitionCounts != null ? partitionCounts : List.of(),
        partitionCores,
        outstanding != null ? outstanding : WriteSaturationBench.Settings.DEFAULT_OUTSTANDING,
        seconds != null
            ? seconds
            : quick
                ? WriteSaturationBench.Settings.QUICK_SECONDS
                : WriteSaturationBench.Settings.DEFAULT_SECONDS,
        warmupSeconds != null
            ? warmupSeconds
            : quick
                ? WriteSaturationBench.Settings.QUICK_WARMUP_SECONDS
                : WriteSaturationBench.Settings.DEFAULT_WARMUP_SECONDS,
        jitWarmupMaxSeconds != null
            ? jitWarmupMaxSeconds
            : quick
                ? WriteSaturationBench.Settings.QUICK_JIT_WARMUP_MAX_SECONDS
                : WriteSaturationBench.Settings.DEFAULT_JIT_WARMUP_MAX_SECONDS,
        rounds != null
            ? rounds
            : quick
                ? WriteSaturationBench.Settings.QUICK_ROUNDS
                : WriteSaturationBench.Settings.DEFAULT_ROUNDS,
        maxAccesses != null ? maxAccesses : WriteSaturationBench.Settings.DEFAULT_MAX_WRITES,
        keys != null
            ? keys
            : quick
                ? WriteSaturationBench.Settings.QUICK_KEYS
                : WriteSaturationBench.Settings.DEFAULT_KEYS,
        valueBytes != null ? valueBytes : WriteSaturationBench.Settings.DEFAULT_VALUE_BYTES,
        sessions != null ? sessions : BenchSettings.DEFAULT_SESSIONS,
        loopbackSeconds != null
            ? loopbackSeconds
            : quick
                ? WriteSaturationBench.Settings.QUICK_LOOPBACK_SECONDS
                : WriteSaturationBench.Settings.DEFAULT_LOOPBACK_SECONDS,
        fsync,
        repeaterSettings,
        out);
  }

  private DiurnalBench.Settings diurnalSettings() {
    return new DiurnalBench.Settings(
        diurnalMinDuplicates != null
            ? diurnalMinDuplicates
            : DiurnalBench.Settings.DEFAULT_MIN_DUPLICATES,
        diurnalMaxDuplicates != null
            ? diurnalMaxDuplicates
            : quick
                ? DiurnalBench.Settings.QUICK_MAX_DUPLICATES
                : DiurnalBench.Settings.DEFAULT_MAX_DUPLICATES,
        diurnalDaySeconds != null
            ? diurnalDaySeconds
            : quick
                ? DiurnalBench.Settings.QUICK_DAY_SECONDS
                : DiurnalBench.Settings.DEFAULT_DAY_SECONDS,
        rate != null
            ? rate
            : quick
                ? DiurnalBench.Settings.QUICK_PEAK_RATE_PER_SEC
                : DiurnalBench.Settings.DEFAULT_PEAK_RATE_PER_SEC,
        readFraction != null ? readFraction : DiurnalBench.Settings.DEFAULT_READ_FRACTION,
        diurnalTauMs != null ? diurnalTauMs : DiurnalBench.Settings.DEFAULT_TAU_MS,
        diurnalTarget != null ? diurnalTarget : DiurnalBench.Settings.DEFAULT_TARGET_SLA,
        out,
        seed != null ? seed : 1,
        ServerMode.CHILD_JVM);
  }

  private AdmissionBench.Settings admissionSettings() {
    return new AdmissionBench.Settings(
        duplicates != null ? duplicates : AdmissionBench.Settings.DEFAULT_DUPLICATES,
        rate != null ? rate : AdmissionBench.Settings.DEFAULT_RATE_PER_SEC,
        seconds != null
            ? seconds
            : quick
                ? AdmissionBench.Settings.QUICK_SECONDS
                : AdmissionBench.Settings.DEFAULT_SECONDS,
        warmupSeconds != null
            ? warmupSeconds
            : quick
                ? AdmissionBench.Settings.QUICK_WARMUP_SECONDS
                : AdmissionBench.Settings.DEFAULT_WARMUP_SECONDS,
        admissionTauMs != null ? admissionTauMs : AdmissionBench.Settings.DEFAULT_TAU_MS,
        admissionTarget != null ? admissionTarget : AdmissionBench.Settings.DEFAULT_TARGET_SLA,
        admissionWriteDelayMs != null
            ? admissionWriteDelayMs
            : AdmissionBench.Settings.DEFAULT_WRITE_DELAY_MS,
        out,
        seed != null ? seed : 1);
  }

  private Integer runBatching(PrintWriter console) throws Exception {
    BatchingBench bench;
    try {
      bench =
          new BatchingBench(
              duplicates == null ? 2 : duplicates,
              true,
              batchingRates != null
                  ? batchingRates
                  : quick ? List.of(100.0, 400.0) : List.of(200.0, 10000.0, 14000.0),
              batchingPolicies == null
                  ? BatchingBench.standardPolicies()
                  : batchingPolicies.stream().map(BatchingPolicy::parse).toList(),
              batchingRounds != null ? batchingRounds : quick ? 1 : 3,
              Duration.ofSeconds(seconds != null ? seconds : quick ? 1 : 5),
              Duration.ofSeconds(warmupSeconds != null ? warmupSeconds : quick ? 1 : 2));
    } catch (IllegalArgumentException e) {
      throw CliException.usage(e.getMessage());
    }
    List<BatchingBench.Row> rows =
        bench.run(
            line -> {
              console.println(line);
              console.flush();
            });
    writeTable(console, BatchingBench.markdown(rows), "batching.md");
    return 0;
  }

  private Integer runPlannedSlowness(PrintWriter console) throws Exception {
    PlannedSlownessBench bench;
    try {
      bench =
          new PlannedSlownessBench(
              duplicates == null ? 2 : duplicates,
              rate == null ? 500 : rate,
              readFraction == null ? 0.5 : readFraction,
              Duration.ofSeconds(seconds != null ? seconds : quick ? 2 : 20),
              Duration.ofSeconds(warmupSeconds != null ? warmupSeconds : quick ? 1 : 2));
    } catch (IllegalArgumentException e) {
      throw CliException.usage(e.getMessage());
    }
    List<PlannedSlownessBench.Row> rows =
        bench.run(
            line -> {
              console.println(line);
              console.flush();
            });
    writeTable(console, PlannedSlownessBench.markdown(rows), "planned-slowness.md");
    return 0;
  }

  private void writeTable(PrintWriter console, String table, String file) throws IOException {
    console.println();
    console.print(table);
    console.flush();
    if (out != null) {
      Files.createDirectories(out);
      Files.writeString(
          out.resolve(file),
          "`zoolander "
              + String.join(" ", spec.commandLine().getParseResult().originalArgs())
              + "`\n\n"
              + table,
          StandardCharsets.UTF_8);
    }
  }

  private static Double percentile(String text) {
    try {
      return Double.valueOf(text.strip());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "frontier hedge percentiles must be numbers in (0, 100) or 'none', not '" + text + "'",
          e);
    }
  }

  private BenchSettings settings() {
    BenchSettings.Builder b = BenchSettings.builder();
    if (quick) {
      b.quick();
    }
    if (duplicates != null) {
      b.duplicates(duplicates);
    }
    if (serversPerDuplicate != null) {
      b.serversPerDuplicate(serversPerDuplicate);
    }
    if (rpCounts != null) {
      b.rpCounts(rpCounts);
    }
    if (rate != null) {
      b.ratePerSec(rate);
    }
    if (readFraction != null) {
      b.readFraction(readFraction);
    }
    if (seconds != null) {
      b.seconds(seconds);
    }
    if (rounds != null) {
      b.rounds(rounds);
    }
    if (warmupSeconds != null) {
      b.warmupSeconds(warmupSeconds);
    }
    if (jvmWarmupSeconds != null) {
      b.jvmWarmupSeconds(jvmWarmupSeconds);
    }
    if (jvmWarmupAccesses != null) {
      b.jvmWarmupAccesses(jvmWarmupAccesses);
    }
    if (jitWarmupMaxSeconds != null) {
      b.jitWarmupMaxSeconds(jitWarmupMaxSeconds);
    }
    if (maxAccesses != null) {
      b.maxAccesses(maxAccesses);
    }
    if (maxOutstanding != null) {
      b.maxOutstanding(maxOutstanding);
    }
    if (keys != null) {
      b.keys(keys);
    }
    if (valueBytes != null) {
      b.valueBytes(valueBytes);
    }
    if (sessions != null) {
      b.sessions(sessions);
    }
    if (balance != null) {
      b.balance(
          switch (balance.toLowerCase(Locale.ROOT)) {
            case "round-robin" -> BenchSettings.Balance.ROUND_ROBIN;
            case "random" -> BenchSettings.Balance.RANDOM;
            default ->
                throw new IllegalArgumentException(
                    "balance must be round-robin or random, was '" + balance + "'");
          });
    }
    if (hedgePercentile != null) {
      b.hedgePercentile(hedgePercentile);
    }
    if (frontierHedgePercentiles != null) {
      b.frontierHedgePercentiles(
          frontierHedgePercentiles.size() == 1
                  && frontierHedgePercentiles.get(0).equalsIgnoreCase("none")
              ? List.of()
              : frontierHedgePercentiles.stream().map(BenchCommand::percentile).toList());
    }
    if (loopbackSeconds != null) {
      b.loopbackSeconds(loopbackSeconds);
    }
    if (anomaly != null) {
      b.anomaly(anomaly.equalsIgnoreCase("none") ? null : anomaly);
    }
    if (heapRate != null) {
      b.heapRatePerSec(heapRate);
    }
    if (heapSeconds != null) {
      b.heapSeconds(heapSeconds);
    }
    if (heapSampleMs != null) {
      b.heapSampleMs(heapSampleMs);
    }
    if (seed != null) {
      b.seed(seed);
    }
    if (out != null) {
      b.out(out);
    }
    return b.fsync(fsync).repeaterSettings(repeaterSettings).traceWrites(traceWrites).build();
  }
}
