package io.zoolander.server.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Writes a {@link BenchResult}: {@code bench.json} (every number, machine-readable), {@code
 * bench.md} (the tables) and the PNG charts of {@link BenchCharts}.
 */
public final class BenchReport {
  public static final String JSON = "bench.json";
  public static final String MARKDOWN = "bench.md";

  private BenchReport() {}

  /** Writes every file into {@code result.out()}; returns their paths. */
  public static List<Path> write(BenchResult result, String commandLine) throws IOException {
    List<Path> written = new ArrayList<>();
    Path json = result.out().resolve(JSON);
    Files.writeString(json, json(result, commandLine), StandardCharsets.UTF_8);
    written.add(json);
    Path md = result.out().resolve(MARKDOWN);
    Files.writeString(md, markdown(result, commandLine), StandardCharsets.UTF_8);
    written.add(md);
    written.addAll(BenchCharts.write(result));
    return written;
  }

  // ------------------------------------------------------------------ JSON

  /** The whole result as one JSON object; NaN (not measured) is written as null. */
  public static String json(BenchResult r, String commandLine) {
    BenchSettings s = r.settings();
    Json j = new Json();
    j.open();
    j.field("tool", "zoolander bench");
    j.field("command", commandLine);
    j.field("startedAt", r.startedAt().toString());
    j.field("seconds", r.seconds());
    j.key("machine").open();
    j.field("processors", r.machine().processors());
    j.field("cpu", r.machine().cpu());
    j.field("memoryBytes", r.machine().memoryBytes());
    j.field("os", r.machine().os());
    j.field("java", r.machine().java());
    j.field("loadAverageStart", r.machine().loadAverageStart());
    j.field("loadAverageEnd", r.machine().loadAverageEnd());
    j.close();
    j.key("settings").open();
    j.field("duplicates", s.duplicates());
    j.field("serversPerDuplicate", s.serversPerDuplicate());
    j.key("rpCounts").array(s.rpCounts().stream().map(String::valueOf).toList());
    j.field("ratePerSec", s.ratePerSec());
    j.field("readFraction", s.readFraction());
    j.field("seconds", s.seconds());
    j.field("warmupSeconds", s.warmupSeconds());
    j.field("rounds", s.rounds());
    j.field("jvmWarmupSeconds", s.jvmWarmupSeconds());
    j.field("maxAccesses", s.maxAccesses());
    j.field("maxOutstanding", s.maxOutstanding());
    j.field("keys", s.keys());
    j.field("valueBytes", s.valueBytes());
    j.field("sessionsPerEnsemble", s.sessions());
    j.field("balance", s.balance().name().toLowerCase(Locale.ROOT).replace('_', '-'));
    j.field("hedgePercentile", s.hedgePercentile());
    j.key("frontierHedgePercentiles")
        .array(s.frontierHedgePercentiles().stream().map(Json::number).toList());
    j.field("loopbackSeconds", s.loopbackSeconds());
    j.field("anomaly", s.anomaly());
    j.field("heapRatePerSec", s.heapRatePerSec());
    j.field("heapSeconds", s.heapSeconds());
    j.field("fsync", s.fsync());
    j.field("seed", s.seed());
    j.close();
    j.key("tauMs").open();
    j.field("off", r.tauOffMs());
    j.field("on", r.tauOnMs());
    j.close();
    j.key("systems").openArray();
    for (BenchResult.SystemResult sys : r.systems()) {
      j.open();
      j.field("system", sys.system());
      j.field("description", sys.description());
      j.field("anomalies", sys.anomalies());
      j.field("tauMs", sys.tauMs());
      j.field("offeredRatePerSec", sys.offeredRatePerSec());
      j.field("achievedRatePerSec", sys.achievedRatePerSec());
      j.field("dropped", sys.dropped());
      j.field("messagesPerRead", sys.messagesPerRead());
      j.field("messagesPerWrite", sys.messagesPerWrite());
      j.field("hedgeDelayMs", sys.hedgeDelayMs());
      latency(j.key("reads"), sys.reads());
      latency(j.key("writes"), sys.writes());
      j.close();
    }
    j.closeArray();
    if (r.heap().isPresent()) {
      BenchResult.HeapResult h = r.heap().get();
      j.key("heap").open();
      j.field("system", h.system());
      j.field("offeredRatePerSec", h.offeredRatePerSec());
      j.field("achievedRatePerSec", h.achievedRatePerSec());
      j.field("failed", h.failed());
      j.field("dropped", h.dropped());
      j.field("samples", h.samples());
      j.field("clientBaselineBytes", h.clientBaselineBytes());
      j.field("clientMaxBytes", h.clientMaxBytes());
      j.field("clientMeanBytes", h.clientMeanBytes());
      j.field("repeaterBaselineBytes", h.repeaterBaselineBytes());
      j.field("repeaterMaxBytes", h.repeaterMaxBytes());
      j.field("repeaterMeanBytes", h.repeaterMeanBytes());
      j.close();
    } else {
      j.key("heap").raw("null");
    }
    // After the heap: the keys below differ from the systems' so that a reader (or a test) that
    // scans the systems by key does not count them twice.
    loopbackJson(j, "loopback", r.loopback());
    loopbackJson(j, "loopbackPaced", r.loopbackPaced());
    loopbackJson(j, "loopbackPacedWrites", r.loopbackPacedWrites());
    if (r.jitWarmup().isPresent()) {
      JitWarmup.Outcome w = r.jitWarmup().get();
      j.key("jitWarmup").open();
      j.field("turns", w.turns());
      j.field("seconds", w.seconds());
      j.field("quiet", w.quiet());
      j.field("lastTurnShare", w.lastTurnShare());
      j.close();
    } else {
      j.key("jitWarmup").raw("null");
    }
    j.key("missCurves").openArray();
    for (boolean anomalies : new boolean[] {false, true}) {
      Optional<TailAnalysis.Curves> curves =
          TailAnalysis.missCurves(r.systems(), anomalies, TailAnalysis.CURVE_POINTS);
      if (curves.isEmpty()) {
        continue;
      }
      j.open();
      j.field("anomalies", anomalies);
      j.key("tauValuesMs").array(curves.get().tausMs().stream().map(Json::number).toList());
      j.key("curves").openArray();
      for (TailAnalysis.MissCurve c : curves.get().systems()) {
        j.open();
        j.field("name", c.system());
        j.field("msgsPerRead", c.messagesPerRead());
        j.key("misses").array(c.missFractions().stream().map(Json::number).toList());
        j.close();
      }
      j.closeArray();
      j.close();
    }
    j.closeArray();
    j.key("frontiers").openArray();
    for (boolean anomalies : new boolean[] {false, true}) {
      for (TailAnalysis.Frontier f : TailAnalysis.frontiers(r.systems(), anomalies)) {
        j.open();
        j.field("anomalies", anomalies);
        j.field("plainPercentile", f.percentile());
        j.field("atMs", f.tauMs());
        j.key("points").openArray();
        for (TailAnalysis.Point p : f.points()) {
          j.open();
          j.field("name", p.system());
          j.field("msgsPerRead", p.messagesPerRead());
          j.field("miss", p.missFraction());
          j.field("onFrontier", p.onFrontier());
          j.close();
        }
        j.closeArray();
        j.close();
      }
    }
    j.closeArray();
    j.key("targets").openArray();
    for (TargetVerdicts.Row row : TargetVerdicts.judge(r)) {
      j.open();
      j.field("target", row.target());
      j.field("unit", row.unit());
      j.field("measured", row.measured());
      j.field("measuredLow", row.measuredInterval().low());
      j.field("measuredHigh", row.measuredInterval().high());
      j.field("bound", row.bound());
      j.field("boundLow", row.boundInterval().low());
      j.field("boundHigh", row.boundInterval().high());
      j.field("verdict", row.verdict().words());
      j.close();
    }
    j.closeArray();
    j.close();
    return j.toString() + "\n";
  }

  private static void latency(Json j, BenchResult.Latency l) {
    j.open();
    j.field("count", l.count());
    j.field("failed", l.failed());
    j.field("p50Ms", l.p50Ms());
    j.field("p90Ms", l.p90Ms());
    j.field("p99Ms", l.p99Ms());
    j.field("p999Ms", l.p999Ms());
    j.field("maxMs", l.maxMs());
    j.field("meanMs", l.meanMs());
    j.field("missFraction", l.missFraction());
    j.close();
  }

  /**
   * A minimal JSON writer: objects, arrays, strings, numbers, booleans, with commas and
   * indentation.
   */
  private static final class Json {
    private final StringBuilder b = new StringBuilder();
    private final java.util.ArrayDeque<boolean[]> firsts =
        new java.util.ArrayDeque<>(); // per open container
    private boolean afterKey;

    Json key(String key) {
      element();
      string(key);
      b.append(": ");
      afterKey = true;
      return this;
    }

    Json open() {
      element();
      b.append('{');
      firsts.push(new boolean[] {true});
      return this;
    }

    Json openArray() {
      element();
      b.append('[');
      firsts.push(new boolean[] {true});
      return this;
    }

    void close() {
      end('}');
    }

    void closeArray() {
      end(']');
    }

    /** An array of already formatted values, on one line. */
    void array(List<String> values) {
      element();
      b.append('[').append(String.join(", ", values)).append(']');
    }

    void raw(String value) {
      element();
      b.append(value);
    }

    void field(String key, String value) {
      key(key);
      element();
      if (value == null) {
        b.append("null");
      } else {
        string(value);
      }
    }

    void field(String key, double value) {
      key(key).raw(Double.isNaN(value) || Double.isInfinite(value) ? "null" : number(value));
    }

    void field(String key, long value) {
      key(key).raw(Long.toString(value));
    }

    void field(String key, boolean value) {
      key(key).raw(Boolean.toString(value));
    }

    /**
     * Where a value or key starts: right after its key, else on a new line after a comma if needed.
     */
    private void element() {
      if (afterKey) {
        afterKey = false;
        return;
      }
      if (!firsts.isEmpty()) {
        boolean[] first = firsts.peek();
        b.append(first[0] ? "\n" : ",\n").append("  ".repeat(firsts.size()));
        first[0] = false;
      }
    }

    private void end(char bracket) {
      boolean empty = firsts.pop()[0];
      if (!empty) {
        b.append('\n').append("  ".repeat(firsts.size()));
      }
      b.append(bracket);
    }

    private void string(String s) {
      b.append('"');
      for (int i = 0; i < s.length(); i++) {
        char c = s.charAt(i);
        switch (c) {
          case '"' -> b.append("\\\"");
          case '\\' -> b.append("\\\\");
          case '\n' -> b.append("\\n");
          case '\r' -> b.append("\\r");
          case '\t' -> b.append("\\t");
          default -> {
            if (c < 0x20) {
              b.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
            } else {
              b.append(c);
            }
          }
        }
      }
      b.append('"');
    }

    /** A number as JSON: NaN and infinities as null. */
    static String number(double v) {
      if (Double.isNaN(v) || Double.isInfinite(v)) {
        return "null";
      }
      if (v == Math.rint(v) && Math.abs(v) < 1e15) {
        return Long.toString((long) v);
      }
      return new java.math.BigDecimal(v)
          .round(new java.math.MathContext(6))
          .stripTrailingZeros()
          .toString();
    }

    @Override
    public String toString() {
      return b.toString();
    }
  }

  // ------------------------------------------------------------------ Markdown

  /** The tables, for a terminal and for {@code docs/benchmarks.md}. */
  public static String markdown(BenchResult r, String commandLine) {
    BenchSettings s = r.settings();
    StringBuilder md = new StringBuilder();
    md.append("# zoolander bench, ").append(r.startedAt()).append("\n\n");
    md.append("    ").append(commandLine).append("\n\n");
    BenchResult.Machine m = r.machine();
    md.append(
        String.format(
            Locale.ROOT,
            "Machine: %d processors (%s), %s memory, %s, %s; one-minute load average "
                + "%.2f at the start, %.2f at the end (other processes share the machine). Run took %.0f s.%n%n",
            m.processors(),
            m.cpu(),
            m.memoryBytes() < 0
                ? "unknown"
                : String.format(Locale.ROOT, "%.1f GiB", m.memoryBytes() / (double) (1L << 30)),
            m.os(),
            m.java(),
            m.loadAverageStart(),
            m.loadAverageEnd(),
            r.seconds()));
    md.append(
        String.format(
            Locale.ROOT,
            "Workload: %d duplicate%s of %d ZooKeeper server%s (child JVMs, fsync %s), "
                + "repeater in its own JVM; Poisson arrivals at %.0f accesses/s, %.0f%% reads (getData) and %.0f%% writes "
                + "(setData) of %d keys with %d-byte values, the same sequence for every system; %d s measured per system "
                + "and condition, in %d interleaved rounds (every round measures each system once, so all share the "
                + "machine's drifting background load), each slice after a discarded warm-up (%d s for a system's first, a "
                + "quarter of it later), at most %d accesses per slice, after %d s and %d closed-loop accesses of JVM "
                + "warm-up through each path%s; latency "
                + "from the intended send time; at most %d accesses in flight (arrivals beyond are dropped and counted). "
                + "Plain ZooKeeper uses %d sessions per ensemble. Anomaly injector: %s.%n%n",
            s.duplicates(),
            s.duplicates() == 1 ? "" : "s",
            s.serversPerDuplicate(),
            s.serversPerDuplicate() == 1 ? "" : "s",
            s.fsync() ? "on" : "off",
            s.ratePerSec(),
            s.readFraction() * 100,
            (1 - s.readFraction()) * 100,
            s.keys(),
            s.valueBytes(),
            s.seconds(),
            s.rounds(),
            s.warmupSeconds(),
            Math.max(1, s.maxAccesses() / s.rounds()),
            s.jvmWarmupSeconds(),
            s.jvmWarmupAccesses(),
            r.jitWarmup()
                .map(
                    w ->
                        ", then 1-s turns through each until the JIT compilers were quiet: "
                            + w.describe())
                .orElse(""),
            s.maxOutstanding(),
            s.sessions(),
            s.anomaly() == null
                ? "not used"
                : "`" + s.anomaly() + "` in every duplicate, independently"));
    md.append("Systems:\n\n");
    r.systems().stream()
        .filter(x -> !x.anomalies())
        .forEach(
            x ->
                md.append("- `")
                    .append(x.system())
                    .append("`: ")
                    .append(x.description())
                    .append('\n'));
    md.append('\n');
    for (boolean anomalies : new boolean[] {false, true}) {
      List<BenchResult.SystemResult> rows =
          r.systems().stream().filter(x -> x.anomalies() == anomalies).toList();
      if (rows.isEmpty()) {
        continue;
      }
      double tau = anomalies ? r.tauOnMs() : r.tauOffMs();
      md.append(
          String.format(
              Locale.ROOT,
              "## Reads, anomaly injector %s (tau = plain read p99 = %.3f ms)%n%n",
              anomalies ? "on" : "off",
              tau));
      md.append(
          "| system | msgs/read | offered/s | achieved/s (dropped) | p50 ms | p90 ms | p99 ms | p99.9 ms "
              + "| max ms | missing tau | plain / this |\n");
      md.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
      double plainMiss =
          rows.stream()
              .filter(x -> x.system().equals("plain"))
              .findFirst()
              .map(x -> x.reads().missFraction())
              .orElse(Double.NaN);
      for (BenchResult.SystemResult x : rows) {
        BenchResult.Latency l = x.reads();
        md.append(
            String.format(
                Locale.ROOT,
                "| %s | %.2f | %.0f | %.0f (%d) | %.3f | %.3f | %.3f | %.3f | %.3f | %s "
                    + "| %s |%n",
                x.system(),
                x.messagesPerRead(),
                x.offeredRatePerSec(),
                x.achievedRatePerSec(),
                x.dropped(),
                l.p50Ms(),
                l.p90Ms(),
                l.p99Ms(),
                l.p999Ms(),
                l.maxMs(),
                fraction(l.missFraction(), l.count() + l.failed()),
                ratio(plainMiss, l.missFraction(), l.count() + l.failed())));
      }
      md.append('\n');
    }
    md.append("## Writes\n\n");
    md.append(
        "| system | injector | msgs/write | p50 ms | p90 ms | p99 ms | p99.9 ms | max ms | failed |\n");
    md.append("|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (BenchResult.SystemResult x : r.systems()) {
      BenchResult.Latency l = x.writes();
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %.2f | %.3f | %.3f | %.3f | %.3f | %.3f | %d |%n",
              x.system(),
              x.anomalies() ? "on" : "off",
              x.messagesPerWrite(),
              l.p50Ms(),
              l.p90Ms(),
              l.p99Ms(),
              l.p999Ms(),
              l.maxMs(),
              l.failed()));
    }
    md.append(
        "\n(msgs/write: requests the client sends; the repeater then sends each sequenced write to every "
            + "duplicate, so every duplicate applies every write in every system but `plain`.)\n\n");
    tailSummary(r, md);
    missByTau(r, md);
    frontiers(r, md);
    md.append(loopbackMarkdown(r.loopback(), r.loopbackPaced(), r.loopbackPacedWrites()));
    writeOverhead(r, md);
    md.append(TargetVerdicts.markdown(TargetVerdicts.judge(r)));
    if (r.heap().isPresent()) {
      BenchResult.HeapResult h = r.heap().get();
      md.append("## Heap under sustained load\n\n");
      md.append(
          String.format(
              Locale.ROOT,
              "`%s`, offered %.0f accesses/s, achieved %.0f/s (%d failed, %d dropped); "
                  + "%d samples of the used heap right after a forced full collection.%n%n",
              h.system(),
              h.offeredRatePerSec(),
              h.achievedRatePerSec(),
              h.failed(),
              h.dropped(),
              h.samples()));
      md.append(
          "| JVM | before MB | mean MB | max MB | max - before MB |\n|---|---:|---:|---:|---:|\n");
      md.append(
          String.format(
              Locale.ROOT,
              "| benchmark (client + load generator) | %.1f | %.1f | %.1f | %.1f |%n",
              h.clientBaselineBytes() / 1e6,
              h.clientMeanBytes() / 1e6,
              h.clientMaxBytes() / 1e6,
              (h.clientMaxBytes() - h.clientBaselineBytes()) / 1e6));
      md.append(
          String.format(
              Locale.ROOT,
              "| repeater | %.1f | %.1f | %.1f | %.1f |%n%n",
              h.repeaterBaselineBytes() / 1e6,
              h.repeaterMeanBytes() / 1e6,
              h.repeaterMaxBytes() / 1e6,
              (h.repeaterMaxBytes() - h.repeaterBaselineBytes()) / 1e6));
    }
    md.append("Charts: ").append(String.join(", ", BenchCharts.FILES)).append(".\n");
    return md.toString();
  }

  /**
   * The miss rate of every system at a few taus (plain's read p50, p90, p99, p99.9), per condition;
   * the chart {@code miss-vs-tau-*.png} has the whole curve.
   */
  private static void missByTau(BenchResult r, StringBuilder md) {
    for (boolean anomalies : new boolean[] {false, true}) {
      List<Double> taus = new ArrayList<>();
      for (double p : TailAnalysis.TABLE_PERCENTILES) {
        TailAnalysis.plainReadMs(r.systems(), anomalies, p).ifPresent(taus::add);
      }
      if (taus.size() != TailAnalysis.TABLE_PERCENTILES.size()) {
        continue;
      }
      TailAnalysis.Curves c = TailAnalysis.missCurves(r.systems(), anomalies, taus);
      md.append(
          String.format(
              Locale.ROOT,
              "## Miss rate by tau, anomaly injector %s%n%n",
              anomalies ? "on" : "off"));
      md.append("| system | msgs/read |");
      for (int i = 0; i < taus.size(); i++) {
        md.append(
            String.format(
                Locale.ROOT,
                " tau = plain p%s (%.3f ms) |",
                PlainSystems.trim(TailAnalysis.TABLE_PERCENTILES.get(i)),
                taus.get(i)));
      }
      md.append("\n|---|---:|").append("---:|".repeat(taus.size())).append('\n');
      for (TailAnalysis.MissCurve curve : c.systems()) {
        long n = r.system(curve.system(), anomalies).map(BenchReport::total).orElse(0L);
        md.append(
            String.format(Locale.ROOT, "| %s | %.2f |", curve.system(), curve.messagesPerRead()));
        for (double miss : curve.missFractions()) {
          md.append(' ').append(fraction(miss, n)).append(" |");
        }
        md.append('\n');
      }
      md.append(
          String.format(
              Locale.ROOT,
              "%nThe whole curve, %d taus from plain's read p50 to its p99.9: miss-vs-tau-%s.png.%n%n",
              TailAnalysis.CURVE_POINTS,
              anomalies ? "on" : "off"));
    }
  }

  /**
   * The cost/benefit frontier per condition and tau: the systems no other beats on both messages
   * per read and miss rate, cheapest first.
   */
  private static void frontiers(BenchResult r, StringBuilder md) {
    boolean any = false;
    for (boolean anomalies : new boolean[] {false, true}) {
      List<TailAnalysis.Frontier> frontiers = TailAnalysis.frontiers(r.systems(), anomalies);
      if (frontiers.isEmpty()) {
        continue;
      }
      if (!any) {
        md.append("## Cost/benefit frontier\n\n");
        md.append(
            "Messages per read (counted where sent) against the fraction of reads missing tau. On the"
                + " frontier: no other system missed as rarely or more rarely with as few or fewer messages,"
                + " better in one. Hedged reads run at several hedge delays (percentiles of unhedged reads"
                + " measured just before, in each condition), so that hedging and RP are compared at equal"
                + " extra load.\n\n");
        for (boolean a : new boolean[] {false, true}) {
          List<String> delays =
              r.systems().stream()
                  .filter(x -> x.anomalies() == a && !Double.isNaN(x.hedgeDelayMs()))
                  .map(
                      x -> String.format(Locale.ROOT, "`%s` %.3f ms", x.system(), x.hedgeDelayMs()))
                  .toList();
          if (!delays.isEmpty()) {
            md.append(
                String.format(
                    Locale.ROOT,
                    "Hedge delays, injector %s: %s.%n",
                    a ? "on" : "off",
                    String.join(", ", delays)));
          }
        }
        md.append('\n');
        md.append(
            "| injector | tau | frontier, cheapest first: system (msgs/read, missing tau) |\n");
        md.append("|---|---|---|\n");
        any = true;
      }
      for (TailAnalysis.Frontier f : frontiers) {
        List<String> on = new ArrayList<>();
        f.points().stream()
            .filter(TailAnalysis.Point::onFrontier)
            .sorted(
                java.util.Comparator.comparingDouble(TailAnalysis.Point::messagesPerRead)
                    .thenComparingDouble(TailAnalysis.Point::missFraction))
            .forEach(
                p ->
                    on.add(
                        String.format(
                            Locale.ROOT,
                            "`%s` (%.2f, %s)",
                            p.system(),
                            p.messagesPerRead(),
                            pct(p.missFraction()))));
        md.append(
            String.format(
                Locale.ROOT,
                "| %s | plain p%s = %.3f ms | %s |%n",
                anomalies ? "on" : "off",
                PlainSystems.trim(f.percentile()),
                f.tauMs(),
                String.join(" -> ", on)));
      }
    }
    if (any) {
      md.append(
          "\nEvery system's point: frontier-off.png, frontier-on.png and bench.json (`frontiers`).\n\n");
    }
  }

  private static void loopbackJson(
      Json j, String key, Optional<LoopbackRoundTrip.Result> loopback) {
    if (loopback.isEmpty()) {
      j.key(key).raw("null");
      return;
    }
    LoopbackRoundTrip.Result l = loopback.get();
    j.key(key).open();
    j.field("frameBytes", l.frameBytes());
    j.field("outstanding", l.outstanding());
    j.field("ratePerSec", l.ratePerSec());
    j.field("roundTrips", l.roundTrips());
    j.field("measuredSeconds", l.seconds());
    j.field("rttP50Ms", l.ms(50));
    j.field("rttP90Ms", l.ms(90));
    j.field("rttP99Ms", l.ms(99));
    j.field("rttP999Ms", l.ms(99.9));
    j.field("rttMaxMs", l.ms(100));
    j.field("rttMeanMs", l.meanMs());
    j.close();
  }

  /**
   * The Netty loopback round trip: the floor of one extra hop, measured in the same run, closed
   * loop and, if measured, paced at the bench's rate.
   */
  static String loopbackMarkdown(
      Optional<LoopbackRoundTrip.Result> closed,
      Optional<LoopbackRoundTrip.Result> paced,
      Optional<LoopbackRoundTrip.Result> pacedWrites) {
    if (closed.isEmpty() && paced.isEmpty() && pacedWrites.isEmpty()) {
      return "";
    }
    StringBuilder md = new StringBuilder("## Netty loopback round trip\n\n");
    md.append(
        "The floor of one extra hop (through the repeater, or from a client to a plugin), measured in"
            + " the same run: a trivial Netty client and echo server on 127.0.0.1, each on its own NIO"
            + " event loop, TCP_NODELAY. Closed loop: each echo sends the next frame at once, so both"
            + " threads stay awake (the hop on running threads). Paced: frames sent at the bench's"
            + " rate, both threads asleep in between (the hop with the wake-up every hop of a write"
            + " pays at that rate); at the write rate too, since the repeater's threads and the"
            + " applier see only the writes and sleep longer between two.\n\n");
    md.append("| mode | frames | p50 ms | p90 ms | p99 ms | p99.9 ms | max ms | mean ms |\n");
    md.append("|---|---|---:|---:|---:|---:|---:|---:|\n");
    closed.ifPresent(
        l ->
            loopbackRow(
                md,
                String.format(
                    Locale.ROOT,
                    "closed loop, %d outstanding, %.1f s after %.1f s of warm-up",
                    l.outstanding(),
                    l.seconds(),
                    l.warmupSeconds()),
                l));
    paced.ifPresent(l -> pacedRow(md, "paced at", l));
    pacedWrites.ifPresent(l -> pacedRow(md, "paced at the write rate,", l));
    md.append("\n");
    return md.toString();
  }

  /**
   * The write path's overhead without the injector, against its floor: each {@code rp-N}'s write
   * p50 against plain's plus {@value TargetVerdicts#WRITE_HOPS_ALLOWED} loopback round trips (paced
   * at the bench's rate, and at its write rate), and its p99 against {@value
   * TargetVerdicts#WRITE_P99_RATIO_ALLOWED}x plain's.
   */
  static void writeOverhead(BenchResult r, StringBuilder md) {
    Optional<BenchResult.SystemResult> plain = r.system("plain", false);
    if (plain.isEmpty() || r.loopbackPaced().isEmpty()) {
      return;
    }
    BenchResult.Latency p = plain.get().writes();
    double atRate = p.p50Ms() + TargetVerdicts.WRITE_HOPS_ALLOWED * r.loopbackPaced().get().ms(50);
    Optional<Double> atWriteRate =
        r.loopbackPacedWrites().map(l -> p.p50Ms() + TargetVerdicts.WRITE_HOPS_ALLOWED * l.ms(50));
    md.append("## Write overhead against its floor (injector off)\n\n");
    md.append(
        String.format(
            Locale.ROOT,
            "A sequenced write's p50 may be plain `setData`'s (%.3f ms) plus %.1f loopback round"
                + " trips, its p99 %.1fx plain's (%.3f ms). The allowance with the round trip paced"
                + " at the bench's rate: %.3f ms",
            p.p50Ms(),
            TargetVerdicts.WRITE_HOPS_ALLOWED,
            TargetVerdicts.WRITE_P99_RATIO_ALLOWED,
            p.p99Ms(),
            atRate));
    atWriteRate.ifPresent(
        a -> md.append(String.format(Locale.ROOT, "; paced at the write rate: %.3f ms", a)));
    md.append(".\n\n");
    md.append("| system | write p50 ms | vs plain | p50 within allowance (rate");
    md.append(atWriteRate.isPresent() ? " / write rate)" : ")");
    md.append(" | write p99 ms | vs plain | p99 within |\n|---|---:|---:|---|---:|---:|---|\n");
    for (BenchResult.SystemResult s : r.systems()) {
      if (s.anomalies() || !s.system().startsWith("rp-") || s.system().contains("hedged")) {
        continue;
      }
      BenchResult.Latency w = s.writes();
      String within = yesNo(w.p50Ms() <= atRate);
      if (atWriteRate.isPresent()) {
        within += " / " + yesNo(w.p50Ms() <= atWriteRate.get());
      }
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %.3f | %.2fx | %s | %.3f | %.2fx | %s |%n",
              s.system(),
              w.p50Ms(),
              w.p50Ms() / p.p50Ms(),
              within,
              w.p99Ms(),
              w.p99Ms() / p.p99Ms(),
              yesNo(w.p99Ms() <= TargetVerdicts.WRITE_P99_RATIO_ALLOWED * p.p99Ms())));
    }
    md.append("\n");
  }

  private static String yesNo(boolean yes) {
    return yes ? "yes" : "no";
  }

  private static void pacedRow(StringBuilder md, String how, LoopbackRoundTrip.Result l) {
    loopbackRow(
        md,
        String.format(
            Locale.ROOT,
            "%s %.0f/s, %.1f s after %.1f s of warm-up",
            how,
            l.ratePerSec(),
            l.seconds(),
            l.warmupSeconds()),
        l);
  }

  private static void loopbackRow(StringBuilder md, String mode, LoopbackRoundTrip.Result l) {
    md.append(
        String.format(
            Locale.ROOT,
            "| %s | %d round trips of %d bytes | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f |%n",
            mode,
            l.roundTrips(),
            l.frameBytes(),
            l.ms(50),
            l.ms(90),
            l.ms(99),
            l.ms(99.9),
            l.ms(100),
            l.meanMs()));
  }

  /** The tail target's figures: RP with the most duplicates against plain and hedged, at tau. */
  private static void tailSummary(BenchResult r, StringBuilder md) {
    int largest = r.settings().rpCounts().get(r.settings().rpCounts().size() - 1);
    String rp = "rp-" + largest;
    md.append("## Tail at tau\n\n");
    for (boolean anomalies : new boolean[] {false, true}) {
      Optional<BenchResult.SystemResult> plain = r.system("plain", anomalies);
      Optional<BenchResult.SystemResult> hedged = r.system("hedged", anomalies);
      Optional<BenchResult.SystemResult> best = r.system(rp, anomalies);
      if (plain.isEmpty() || hedged.isEmpty() || best.isEmpty()) {
        continue;
      }
      double p = plain.get().reads().missFraction();
      double h = hedged.get().reads().missFraction();
      double b = best.get().reads().missFraction();
      md.append(
          String.format(
              Locale.ROOT,
              "- injector %s, tau %.3f ms: `plain` misses %s, `hedged` %s at %.2f "
                  + "msgs/read, `%s` %s at %.2f msgs/read: plain/%s = %s, hedged/%s = %s.%n",
              anomalies ? "on" : "off",
              plain.get().tauMs(),
              pct(p),
              pct(h),
              hedged.get().messagesPerRead(),
              rp,
              pct(b),
              best.get().messagesPerRead(),
              rp,
              ratio(p, b, total(best.get())),
              rp,
              ratio(h, b, total(best.get()))));
    }
    md.append('\n');
  }

  private static long total(BenchResult.SystemResult s) {
    return s.reads().count() + s.reads().failed();
  }

  private static String pct(double fraction) {
    return Double.isNaN(fraction) ? "n/a" : String.format(Locale.ROOT, "%.3f%%", fraction * 100);
  }

  /** A miss fraction, with the count behind it when small. */
  private static String fraction(double fraction, long total) {
    if (Double.isNaN(fraction)) {
      return "n/a";
    }
    long misses = Math.round(fraction * total);
    return String.format(Locale.ROOT, "%.3f%% (%d)", fraction * 100, misses);
  }

  /**
   * {@code a / b}. When {@code b} saw no miss among {@code n} reads, the ratio is at least what one
   * miss would have given, {@code a * n}: written as a lower bound.
   */
  private static String ratio(double a, double b, long n) {
    if (Double.isNaN(a) || Double.isNaN(b)) {
      return "n/a";
    }
    if (b == 0) {
      return a == 0 ? "both 0" : String.format(Locale.ROOT, "> %.0fx (0 of %d)", a * n, n);
    }
    return String.format(Locale.ROOT, "%.2fx", a / b);
  }
}
