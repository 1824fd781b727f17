package io.zoolander.server.bench;

import io.zoolander.wire.internal.WriteTrace;
import io.zoolander.wire.internal.WriteTrace.Stage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Joins the records {@link WriteTrace} left in a directory (one file per process: the client, the
 * repeater, each plugin) by {@code (clientId, requestId)} and reports, per step between two stages,
 * the median, the 90th percentile and the mean over the writes traced whole. For the plugin's
 * stages it takes the duplicate whose REPLY went first, as the client does. The clock is one per
 * host ({@code CLOCK_MONOTONIC}), so the processes must have run on one host.
 */
public final class WriteTraceReport {

  /**
   * One step: from one stage to the next, over {@code writes} writes.
   *
   * @param from the earlier stage
   * @param to the later one
   * @param p50Micros median time between them
   * @param p90Micros 90th percentile
   * @param meanMicros mean
   */
  public record Step(Stage from, Stage to, double p50Micros, double p90Micros, double meanMicros) {}

  /**
   * The steps of every write traced whole, in stage order, and the whole path.
   *
   * @param writes writes traced whole
   * @param steps one per consecutive pair of stages
   * @param total from {@link Stage#CLIENT_CALLED} to {@link Stage#CLIENT_ANSWERED}
   */
  public record Report(int writes, List<Step> steps, Step total) {
    /** As a Markdown table with a heading line. */
    public String markdown() {
      StringBuilder b =
          new StringBuilder(
              String.format(
                  Locale.ROOT,
                  "Where a sequenced write's time goes (%d writes traced whole; microseconds; plugin"
                      + " stages of the duplicate that replied first):%n%n",
                  writes));
      b.append("| from | to | p50 us | p90 us | mean us |\n|---|---|---:|---:|---:|\n");
      for (Step s : steps) {
        row(b, s.from().words(), s.to().words(), s);
      }
      row(b, "**" + total.from().words() + "**", "**" + total.to().words() + "**", total);
      return b.toString();
    }

    private static void row(StringBuilder b, String from, String to, Step s) {
      b.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %.0f | %.0f | %.0f |%n",
              from,
              to,
              s.p50Micros(),
              s.p90Micros(),
              s.meanMicros()));
    }
  }

  private WriteTraceReport() {}

  /**
   * Reads every {@code *.trace} file of {@code dir}.
   *
   * @throws IOException if the directory or a file cannot be read
   * @throws IllegalArgumentException if a line is malformed, or no write was traced whole
   */
  public static Report read(Path dir) throws IOException {
    return read(dir, Long.MIN_VALUE);
  }

  /**
   * As {@link #read(Path)}, keeping only the writes called at or after {@code sinceNanos} ({@link
   * System#nanoTime()}; {@link Long#MIN_VALUE}: all): the measured runs, not the warm-up's closed
   * loop, whose queueing is not a user's latency.
   */
  public static Report read(Path dir, long sinceNanos) throws IOException {
    Map<String, EnumMap<Stage, Long>> outside = new HashMap<>();
    Map<String, List<EnumMap<Stage, Long>>> plugins = new HashMap<>();
    List<Path> files;
    try (Stream<Path> listed = Files.list(dir)) {
      files = listed.filter(p -> p.getFileName().toString().endsWith(".trace")).sorted().toList();
    }
    for (Path file : files) {
      Map<String, EnumMap<Stage, Long>> pluginOfFile = new HashMap<>();
      for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
        String[] f = line.split(" ");
        if (f.length != 4) {
          throw new IllegalArgumentException(
              file + ": not 'stage clientId requestId nanos': " + line);
        }
        Stage stage = Stage.valueOf(f[0]);
        String write = f[1] + ' ' + f[2];
        long nanos = Long.parseLong(f[3]);
        Map<String, EnumMap<Stage, Long>> into = stage.inPlugin() ? pluginOfFile : outside;
        into.computeIfAbsent(write, w -> new EnumMap<>(Stage.class)).putIfAbsent(stage, nanos);
      }
      pluginOfFile.forEach(
          (write, stages) -> plugins.computeIfAbsent(write, w -> new ArrayList<>()).add(stages));
    }
    List<long[]> whole = new ArrayList<>(); // per write: nanos per stage, in stage order
    Stage[] stages = Stage.values();
    outside.forEach(
        (write, mine) -> {
          EnumMap<Stage, Long> first = null;
          for (EnumMap<Stage, Long> p : plugins.getOrDefault(write, List.of())) {
            if (p.size() == countInPlugin()
                && (first == null
                    || p.get(Stage.PLUGIN_REPLIED) < first.get(Stage.PLUGIN_REPLIED))) {
              first = p;
            }
          }
          if (first == null || mine.size() != stages.length - countInPlugin()) {
            return; // not traced whole (e.g. started before the trace, or a plain write)
          }
          if (sinceNanos != Long.MIN_VALUE && mine.get(Stage.CLIENT_CALLED) - sinceNanos < 0) {
            return; // before the measured runs
          }
          long[] t = new long[stages.length];
          for (Stage s : stages) {
            t[s.ordinal()] = s.inPlugin() ? first.get(s) : mine.get(s);
          }
          whole.add(t);
        });
    if (whole.isEmpty()) {
      throw new IllegalArgumentException("no write was traced whole in " + dir);
    }
    List<Step> steps = new ArrayList<>();
    for (int i = 0; i + 1 < stages.length; i++) {
      steps.add(step(whole, stages[i], stages[i + 1]));
    }
    return new Report(whole.size(), steps, step(whole, Stage.CLIENT_CALLED, Stage.CLIENT_ANSWERED));
  }

  private static int countInPlugin() {
    int n = 0;
    for (Stage s : Stage.values()) {
      n += s.inPlugin() ? 1 : 0;
    }
    return n;
  }

  private static Step step(List<long[]> whole, Stage from, Stage to) {
    double[] micros = new double[whole.size()];
    double sum = 0;
    for (int i = 0; i < micros.length; i++) {
      micros[i] = (whole.get(i)[to.ordinal()] - whole.get(i)[from.ordinal()]) / 1_000.0;
      sum += micros[i];
    }
    java.util.Arrays.sort(micros);
    return new Step(
        from,
        to,
        micros[(micros.length - 1) / 2],
        micros[(int) Math.min(micros.length - 1, Math.ceil(0.9 * micros.length) - 1)],
        sum / micros.length);
  }
}
