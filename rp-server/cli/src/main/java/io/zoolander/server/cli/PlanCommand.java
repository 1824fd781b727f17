package io.zoolander.server.cli;

import io.zoolander.model.LatencyDistribution;
import io.zoolander.model.LatencyDistributions;
import io.zoolander.model.Planner;
import java.io.PrintWriter;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code zoolander plan}: the best strategy for a node budget, or the fewest nodes for a target
 * SLA.
 */
@Command(
    name = "plan",
    mixinStandardHelpOptions = true,
    description = {
      "Choose between replication for predictability, replication for throughput and mixes.",
      "Give --nodes for the best strategy within a budget, --target-sla for the fewest nodes that meet it, or both."
    })
final class PlanCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Mixin ModelInputs inputs;

  @Option(
      names = "--rate",
      paramLabel = "PER_SEC",
      required = true,
      description = "Total arrivals per second the deployment must serve.")
  double arrivalRatePerSec;

  @Option(
      names = "--nodes",
      description = "Node budget: print the best strategy using at most this many nodes.")
  Integer nodes;

  @Option(
      names = "--target-sla",
      description = "Target SLA in (0, 1), e.g. 0.9999: print the fewest nodes meeting it.")
  Double targetSla;

  @Option(
      names = "--max-nodes",
      defaultValue = "32",
      description = "Largest deployment considered (default: 32).")
  int maxNodes;

  @Override
  public Integer call() {
    if (nodes == null && targetSla == null) {
      throw new CliException("give --nodes, --target-sla or both");
    }
    PrintWriter out = spec.commandLine().getOut();
    LatencyDistribution serviceTime = inputs.serviceTime();
    double tau = inputs.tauMs();
    double networkMs = inputs.networkMs();
    Options.nonNegative(arrivalRatePerSec, "--rate");
    if (maxNodes < 1) {
      throw new CliException("--max-nodes must be >= 1, was " + maxNodes);
    }
    Planner planner =
        Planner.builder()
            .serviceTime(serviceTime)
            .networkDelay(LatencyDistributions.constant(networkMs))
            .tauMs(tau)
            .build();
    out.printf(
        "service time: %s (mean %.3f ms, Cv %.2f); tau %.3f ms; %.1f arrivals/s%n",
        inputs.describe(),
        serviceTime.meanMs(),
        Math.sqrt(serviceTime.scv()),
        tau,
        arrivalRatePerSec);
    if (nodes != null) {
      if (nodes < 1) {
        throw new CliException("--nodes must be >= 1, was " + nodes);
      }
      List<Planner.Plan> plans = planner.evaluateAll(nodes, arrivalRatePerSec);
      Planner.Plan best = planner.best(nodes, arrivalRatePerSec);
      out.printf("%nbest with at most %d nodes: %s%n", nodes, best);
      out.println("top strategies (per replica set: utilisation and predicted SLA):");
      plans.stream()
          .sorted(Comparator.comparingDouble(Planner.Plan::sla).reversed())
          .limit(8)
          .forEach(
              p ->
                  out.printf(
                      "  %-22s nodes %2d  utilisation %.3f  SLA %s%n",
                      p.strategy(),
                      p.strategy().nodes(),
                      p.prediction().maxUtilisation(),
                      Options.sla(p.prediction())));
    }
    if (targetSla != null) {
      double target = Options.probability(targetSla, "--target-sla");
      Optional<Planner.Plan> fewest = planner.fewestNodes(target, arrivalRatePerSec, maxNodes);
      out.printf(
          "%nfewest nodes for SLA %s: %s%n",
          targetSla,
          fewest.map(Planner.Plan::toString).orElse("none within " + maxNodes + " nodes"));
      int budget = nodes != null ? nodes : fewest.map(p -> p.strategy().nodes()).orElse(maxNodes);
      Optional<Planner.Plan> goodput = planner.maxArrivalRate(target, budget);
      out.printf(
          "highest arrival rate meeting SLA %s with %d nodes: %s%n",
          targetSla, budget, goodput.map(Planner.Plan::toString).orElse("none"));
    }
    out.flush();
    return 0;
  }
}
