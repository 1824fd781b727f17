package io.zoolander.server.tools;

import io.zoolander.server.cli.CliException;
import io.zoolander.server.demo.Demo;
import io.zoolander.server.demo.DemoChart;
import io.zoolander.server.demo.DemoJson;
import io.zoolander.server.demo.DemoSettings;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code zoolander demo}: what replication for predictability buys, observed beside predicted. */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    // The command list shows the header: the description's first line alone stopped mid-sentence.
    header =
        "Show what replication for predictability buys: the observed SLA of 1, 2, 4... duplicates"
            + " beside the model's prediction.",
    description = {
      "Start an embedded deployment (ZooKeeper duplicates with the plugin in child JVMs, a repeater), warm it up,",
      "run an open-loop read/write workload against 1, 2, 4... duplicates, and print the observed SLA beside the",
      "engine's prediction (with the 95%% interval of the observation) and the thesis baseline, with a PNG chart.",
      "Every run calibrates itself: every duplicate replies to every access; the even accesses are the engine's",
      "input (reads and writes apart), the odd ones are observed.",
      "Anomalies (GC-pause-like extra delays) are injected on the server side so the effect is visible on loopback.",
      "Prints a progress bar and the table; its log goes to zoolander-demo.log."
    })
final class DemoCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(
      names = "--duplicates",
      defaultValue = "4",
      description = "Duplicates to start (default: ${DEFAULT-VALUE}).")
  int duplicates;

  @Option(
      names = "--counts",
      split = ",",
      defaultValue = "1,2,4",
      description = "Duplicate counts to compare (default: ${DEFAULT-VALUE}).")
  List<Integer> counts;

  @Option(
      names = "--rate",
      defaultValue = "300",
      paramLabel = "PER_SEC",
      description = "Open-loop (Poisson) accesses per second (default: ${DEFAULT-VALUE}).")
  double rate;

  @Option(
      names = "--read-fraction",
      defaultValue = "0.8",
      description = "Fraction of reads (default: ${DEFAULT-VALUE}).")
  double readFraction;

  @Option(
      names = "--seconds",
      defaultValue = "10",
      description =
          "Seconds per compared count, half calibration, half observation (default:"
              + " ${DEFAULT-VALUE}).")
  int runSeconds;

  @Option(
      names = "--warmup-seconds",
      defaultValue = "2",
      description = "Warm-up per run, not recorded (default: ${DEFAULT-VALUE}).")
  int warmupSeconds;

  @Option(
      names = "--tau-ms",
      description = "SLA bound tau (default: one duplicate's measured p90).")
  Double tauMs;

  @Option(
      names = "--value-bytes",
      defaultValue = "256",
      description = "Size of written values (default: ${DEFAULT-VALUE}).")
  int valueBytes;

  @Option(
      names = "--anomaly-probability",
      defaultValue = "0.05",
      description =
          "Independent per-duplicate anomaly probability per access; 0 turns the injector off "
              + "(default: ${DEFAULT-VALUE}).")
  double anomalyProbability;

  @Option(
      names = "--anomaly-delay-ms",
      defaultValue = "10",
      description = "Mean extra delay of an anomaly (default: ${DEFAULT-VALUE}).")
  double anomalyDelayMs;

  @Option(
      names = "--anomaly-distribution",
      defaultValue = "exponential",
      description = "fixed, exponential or pareto (default: ${DEFAULT-VALUE}).")
  String anomalyDistribution;

  @Option(
      names = "--common-probability",
      defaultValue = "0",
      description =
          "Probability that an access is slowed on every duplicate at once (default: ${DEFAULT-VALUE}).")
  double commonProbability;

  @Option(
      names = "--common-delay-ms",
      defaultValue = "10",
      description = "Extra delay of a common-mode slowdown (default: ${DEFAULT-VALUE}).")
  double commonDelayMs;

  @Option(
      names = "--chart",
      defaultValue = "zoolander-demo.png",
      description =
          "Where to write the PNG chart; 'none' for no chart (default: ${DEFAULT-VALUE}).")
  String chart;

  @Option(
      names = "--json",
      paramLabel = "FILE",
      description =
          "Also write the table as JSON: tauMs and one row per duplicate count (observed, predicted, low, high, thesis).")
  Path json;

  @Option(
      names = "--fsync",
      description = "Let ZooKeeper fsync its log (slower, closer to production).")
  boolean fsync;

  @Option(
      names = "--seed",
      defaultValue = "1",
      description = "Seed of arrivals and common-mode anomalies.")
  long seed;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    DemoSettings settings;
    try {
      settings =
          new DemoSettings(
                  duplicates,
                  counts,
                  rate,
                  readFraction,
                  runSeconds,
                  warmupSeconds,
                  tauMs == null ? Double.NaN : tauMs,
                  valueBytes,
                  anomalyProbability,
                  anomalyDelayMs,
                  anomalyDistribution,
                  commonProbability,
                  commonDelayMs,
                  chart.equals("none") ? null : Path.of(chart),
                  fsync,
                  seed)
              .validate();
    } catch (IllegalArgumentException e) {
      throw CliException.usage(e.getMessage());
    }
    Demo.Outcome outcome = new Demo(settings, out).run();
    if (settings.chart() != null) {
      Path written = DemoChart.write(outcome, settings.chart());
      out.println("chart written to " + written.toAbsolutePath());
    }
    if (json != null) {
      out.println("JSON written to " + DemoJson.write(outcome, json).toAbsolutePath());
    }
    String log = System.getProperty(ZoolanderTools.LOG_FILE_PROPERTY);
    if (log != null && !log.startsWith("System.")) {
      out.println("log written to " + Path.of(log).toAbsolutePath());
    }
    out.flush();
    return 0;
  }
}
