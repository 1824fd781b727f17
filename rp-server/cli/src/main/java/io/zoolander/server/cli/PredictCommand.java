package io.zoolander.server.cli;

import io.zoolander.model.Deployment;
import io.zoolander.model.ExchangeableDependence;
import io.zoolander.model.LateCount;
import io.zoolander.model.LatencyDistribution;
import io.zoolander.model.LatencyDistributions;
import io.zoolander.model.QueueingModel;
import io.zoolander.model.SlaEngine;
import io.zoolander.model.SlaEstimate;
import io.zoolander.model.SlaPrediction;
import io.zoolander.model.Strategy;
import io.zoolander.model.ThesisModel;
import io.zoolander.model.TradeOff;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.IntStream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code zoolander predict}: the predicted SLA per duplicate count from a service-time sample. */
@Command(
    name = "predict",
    mixinStandardHelpOptions = true,
    description = "Predict the SLA of replication for predictability for several duplicate counts.")
final class PredictCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Mixin ModelInputs inputs;

  @Option(
      names = "--rate",
      paramLabel = "PER_SEC",
      description =
          "Arrivals per second every duplicate serves (default: 5%% utilisation of one duplicate;"
              + " with --paired-samples 0, the samples' own load).")
  Double arrivalRatePerSec;

  @Option(
      names = "--duplicates",
      split = ",",
      description =
          "Duplicate counts to predict (default: 1,2,4,8; with --paired-samples 1 up to twice its columns).")
  List<Integer> duplicates;

  @Option(
      names = "--queueing",
      defaultValue = "MG1",
      description =
          "Queueing formula of the thesis model: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
  QueueingModel queueing;

  @Option(
      names = "--chart",
      paramLabel = "FILE",
      description =
          "Also draw the predicted misses against the bound for each duplicate count as a PNG.")
  java.nio.file.Path chart;

  @Option(
      names = "--tradeoff",
      description =
          "Also compare RP with replication for throughput for 1..32 nodes at 1%%, 5%% and 15%% utilisation.")
  boolean tradeoff;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    LatencyDistribution serviceTime = inputs.serviceTime();
    PairedSamples pairs = inputs.pairedSamples();
    double tau = inputs.tauMs();
    double networkMs = inputs.networkMs();
    double rate =
        arrivalRatePerSec != null
            ? Options.nonNegative(arrivalRatePerSec, "--rate")
            : pairs != null ? 0 : 0.05 * 1000 / serviceTime.meanMs();
    List<Integer> counts = duplicates != null ? duplicates : defaultCounts(pairs);
    for (int n : counts) {
      if (n < 1) {
        throw CliException.usage("--duplicates must be >= 1, was " + n);
      }
    }
    out.printf("service time: %s%n", inputs.describe());
    out.printf(
        "  mean %.3f ms, p50 %.3f ms, p99 %.3f ms, p99.9 %.3f ms, Cv %.2f%n",
        serviceTime.meanMs(),
        serviceTime.quantile(0.5),
        serviceTime.quantile(0.99),
        serviceTime.quantile(0.999),
        Math.sqrt(serviceTime.scv()));
    out.printf("tau %.3f ms, %.1f arrivals/s, network %.3f ms%n", tau, rate, networkMs);
    SlaEngine.Builder engine =
        SlaEngine.builder()
            .serviceTime(serviceTime)
            .networkDelay(LatencyDistributions.constant(networkMs))
            .arrivalRatePerSec(rate);
    LateCount lateCount = null;
    if (pairs != null) {
      ExchangeableDependence dependence = ExchangeableDependence.estimate(pairs.rowsMs());
      engine.dependence(dependence);
      lateCount = dependence.lateCountAt(tau - networkMs);
      printDependence(
          out, pairs, dependence, lateCount, tau - networkMs, arrivalRatePerSec != null);
    }
    out.println();
    ThesisModel thesis = ThesisModel.builder().queueing(queueing).build();
    String format =
        "%10s  %11s  %10s  %20s  %9s  %9s  %21s" + (pairs != null ? "  %12s%n" : "%s%n");
    out.printf(
        format,
        "duplicates",
        "utilisation",
        "engine",
        "95% interval",
        "miss",
        "method",
        "thesis baseline (" + queueing + ")",
        pairs != null ? "measured" : "");
    for (int n : counts) {
      SlaEstimate e = engine.strategy(Strategy.predictability(n)).build().predict(tau);
      Deployment deployment =
          Deployment.builder()
              .networkDelay(LatencyDistributions.constant(networkMs))
              .duplicates(n, serviceTime)
              .arrivalRatePerSec(rate)
              .build();
      SlaPrediction t = thesis.predict(deployment, tau);
      String measured = "";
      if (lateCount != null) {
        measured =
            n <= lateCount.duplicates()
                ? String.format("%.6f", 1 - lateCount.allLate(n))
                : "extrapolated";
      }
      out.printf(
          format,
          n,
          String.format("%.3f", e.utilisation()),
          Options.sla(e),
          Options.interval(e),
          Options.miss(e),
          Options.method(e),
          Options.sla(t),
          measured);
    }
    out.println();
    out.println(
        "engine: the duplicates share one arrival stream and waits are distributions (docs/model.md, \"The engine\");");
    out.println(
        pairs != null
            ? "  its interval holds its Monte-Carlo error and the number of samples and of paired accesses."
            : "  its interval holds its Monte-Carlo error and, for a sample file, the sample's size.");
    out.println(
        "thesis baseline: mean waits subtracted from tau, duplicates independent (the thesis's formula).");
    if (lateCount != null) {
      out.printf(
          "measured: the share of the paired accesses on which not all of n given duplicates were late"
              + " (n <= %d, the columns measured);%n"
              + "  beyond, the engine extrapolates: each further duplicate keeps the last measured step"
              + " of the dependence.%n",
          lateCount.duplicates());
    }
    if (tradeoff) {
      printTradeOff(out, serviceTime, tau);
    }
    if (chart != null) {
      if (!chartLibraryPresent()) {
        throw new CliException(
            "--chart needs the chart library, which the slim server jar (zoolander-server.jar) "
                + "leaves out: run predict with zoolander.jar (./zoolander) to write a chart");
      }
      out.println(
          "chart written to "
              + PredictionChart.write(engine, serviceTime.quantile(0.999), rate, counts, tau, chart)
                  .toAbsolutePath());
    }
    out.flush();
    return 0;
  }

  /** 1, 2, 4, 8; with paired samples of {@code M} columns, 1 up to {@code 2 M}. */
  private static List<Integer> defaultCounts(PairedSamples pairs) {
    if (pairs == null) {
      return List.of(1, 2, 4, 8);
    }
    return IntStream.rangeClosed(1, 2 * pairs.columns()).boxed().toList();
  }

  private static void printDependence(
      PrintWriter out,
      PairedSamples pairs,
      ExchangeableDependence dependence,
      LateCount count,
      double boundMs,
      boolean rateGiven) {
    int m = pairs.columns();
    double late = count.meanLate();
    out.printf(
        "paired samples: %d accesses x %d duplicates (%s)%n",
        pairs.rows(), m, String.join(", ", pairs.columnNames()));
    out.printf(
        "  at the service bound %.3f ms: one duplicate late %.4f; all %d late %.3g measured (%.3g if"
            + " independent); correlation %.3f%n",
        boundMs, late, m, count.allLate(m), Math.pow(late, m), dependence.correlationAt(boundMs));
    if (!rateGiven) {
      out.println(
          "  no queueing added (rate 0): the samples are response times at the load they were measured"
              + " under; --rate adds queueing as if they were service times");
    }
  }

  private static void printTradeOff(PrintWriter out, LatencyDistribution serviceTime, double tau) {
    double[] utilisations = {0.01, 0.05, 0.15};
    out.printf(
        "%nRP (n duplicates) vs replication for throughput (n replicas), thesis model, tau %.3f ms%n",
        tau);
    out.printf("%6s", "nodes");
    for (double u : utilisations) {
      out.printf("  %12s  %12s", "RP@" + pct(u), "thru@" + pct(u));
    }
    out.println();
    List<List<TradeOff.Row>> columns =
        List.of(
            TradeOff.compare(ThesisModel.create(), serviceTime, tau, utilisations[0], 32),
            TradeOff.compare(ThesisModel.create(), serviceTime, tau, utilisations[1], 32),
            TradeOff.compare(ThesisModel.create(), serviceTime, tau, utilisations[2], 32));
    for (int n : new int[] {1, 2, 3, 4, 6, 8, 16, 32}) {
      out.printf("%6d", n);
      for (List<TradeOff.Row> column : columns) {
        TradeOff.Row row = column.get(n - 1);
        out.printf(
            "  %11.6f%s  %12.6f",
            row.predictability().sla(),
            row.predictabilityWins() ? "*" : " ",
            row.throughput().sla());
      }
      out.println();
    }
    out.println(
        "(* RP wins: at low utilisation extra duplicates mask anomalies; at high utilisation queueing wins)");
  }

  private static String pct(double u) {
    return Math.round(u * 100) + "%";
  }

  /**
   * Whether XChart is on the class path: the tools' jar has it, the slim server jar of the images
   * does not.
   */
  private static boolean chartLibraryPresent() {
    try {
      Class.forName("org.knowm.xchart.XYChart", false, PredictCommand.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException e) {
      return false;
    }
  }
}
