package io.zoolander.server.cli;

import io.zoolander.model.ExchangeableDependence;
import io.zoolander.model.LatencyDistribution;
import io.zoolander.model.LatencyDistributions;
import io.zoolander.model.Planner;
import io.zoolander.model.SlaEngine;
import io.zoolander.model.SlaEstimate;
import io.zoolander.model.Strategy;
import java.io.PrintWriter;
import java.util.ArrayList;
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
 * SLA, predicted by the engine, with the thesis baseline beside it.
 */
@Command(
    name = "plan",
    mixinStandardHelpOptions = true,
    description = {
      "Choose between replication for predictability, replication for throughput and mixes.",
      "Give --nodes for the best strategy within a budget, --target-sla for the fewest nodes that meet it, or both."
    })
final class PlanCommand implements Callable<Integer> {
  /** Strategies listed besides the best of each kind. */
  private static final int LISTED = 8;

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
      throw CliException.usage("give --nodes, --target-sla or both");
    }
    PrintWriter out = spec.commandLine().getOut();
    LatencyDistribution serviceTime = inputs.serviceTime();
    double tau = inputs.tauMs();
    double networkMs = inputs.networkMs();
    Options.nonNegative(arrivalRatePerSec, "--rate");
    if (maxNodes < 1) {
      throw CliException.usage("--max-nodes must be >= 1, was " + maxNodes);
    }
    if (nodes != null && nodes < 1) {
      throw CliException.usage("--nodes must be >= 1, was " + nodes);
    }
    Double target = targetSla == null ? null : Options.probability(targetSla, "--target-sla");
    PairedSamples pairs = inputs.pairedSamples();
    SlaEngine.Builder template = SlaEngine.builder();
    if (pairs != null) {
      template.dependence(ExchangeableDependence.estimate(pairs.rowsMs()));
    }
    Planner engine =
        Planner.builder()
            .engine(template)
            .serviceTime(serviceTime)
            .networkDelay(LatencyDistributions.constant(networkMs))
            .tauMs(tau)
            .build();
    Planner thesis =
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
    out.println(
        "predicted by the engine (shared arrival stream, waits as distributions); the thesis baseline"
            + " beside it");
    if (pairs != null) {
      out.printf(
          "duplicates' dependence fitted from %d paired accesses of %d duplicates%n",
          pairs.rows(), pairs.columns());
    }
    if (nodes != null) {
      printBudget(out, engine, thesis, nodes);
    }
    if (target != null) {
      Optional<Planner.Plan> fewest = engine.fewestNodes(target, arrivalRatePerSec, maxNodes);
      out.printf(
          "%nfewest nodes for SLA %s: %s%n",
          targetSla,
          fewest.map(p -> describe(engine, p)).orElse("none within " + maxNodes + " nodes"));
      if (fewest.isEmpty()) {
        Planner.Plan closest = engine.best(maxNodes, arrivalRatePerSec);
        out.printf("  closest within %d nodes: %s%n", maxNodes, describe(engine, closest));
      }
      int budget = nodes != null ? nodes : fewest.map(p -> p.strategy().nodes()).orElse(maxNodes);
      Optional<Planner.Plan> goodput = engine.maxArrivalRate(target, budget);
      out.printf(
          "highest arrival rate meeting SLA %s with %d nodes: %s%n",
          targetSla, budget, goodput.map(p -> describe(engine, p)).orElse("none"));
    }
    out.flush();
    return 0;
  }

  /** The best strategy within {@code budget} nodes, why it wins, and the strategies it beat. */
  private void printBudget(PrintWriter out, Planner engine, Planner thesis, int budget) {
    List<Planner.Plan> plans = new ArrayList<>(engine.evaluateAll(budget, arrivalRatePerSec));
    Comparator<Planner.Plan> bySla =
        Comparator.comparingDouble(Planner.Plan::sla)
            .thenComparing(p -> -p.strategy().nodes())
            .thenComparing(p -> -p.strategy().replicaSets());
    plans.sort(bySla.reversed());
    Planner.Plan best = plans.get(0);
    out.printf("%nbest with at most %d nodes: %s%n", budget, describe(engine, best));
    List<Planner.Plan> shown = new ArrayList<>(plans.subList(0, Math.min(LISTED, plans.size())));
    for (Kind kind : Kind.values()) {
      plans.stream()
          .filter(p -> Kind.of(p.strategy()) == kind)
          .findFirst()
          .ifPresent(
              p -> {
                if (!shown.contains(p)) {
                  shown.add(p);
                }
                if (p != best) {
                  out.println("  " + why(best, p));
                }
              });
    }
    out.printf(
        "strategies with at most %d nodes (the first %d by predicted SLA, and the best of each kind):%n",
        budget, LISTED);
    out.printf(
        "  %-22s  %-14s  %5s  %11s  %10s  %9s  %15s%n",
        "strategy", "kind", "nodes", "utilisation", "engine", "miss", "thesis baseline");
    for (Planner.Plan p : shown) {
      out.printf(
          "  %-22s  %-14s  %5d  %11.3f  %10s  %9s  %15s%n",
          p.strategy(),
          Kind.of(p.strategy()).label,
          p.strategy().nodes(),
          p.prediction().maxUtilisation(),
          Options.sla(p.prediction()),
          p.prediction().isStable() ? String.format("%.2e", p.prediction().missRatio()) : "-",
          Options.sla(thesis.evaluate(p.strategy(), arrivalRatePerSec).prediction()));
    }
  }

  /** A plan with the engine's interval for it. */
  private String describe(Planner engine, Planner.Plan plan) {
    SlaEstimate e = engine.estimate(plan.strategy(), plan.arrivalRatePerSec());
    return String.format(
        "%s at %.1f/s: SLA %s (95%%: %s), utilisation %.3f",
        plan.strategy(),
        plan.arrivalRatePerSec(),
        Options.sla(e),
        Options.interval(e),
        e.utilisation());
  }

  /** Why {@code best} beats {@code other}, from their utilisations and duplicates per access. */
  static String why(Planner.Plan best, Planner.Plan other) {
    Strategy b = best.strategy();
    Strategy o = other.strategy();
    double ub = best.prediction().maxUtilisation();
    double uo = other.prediction().maxUtilisation();
    String head =
        String.format(
            "beats the best %s, %s (SLA %s): ",
            Kind.of(o).label, o, Options.sla(other.prediction()));
    if (!other.prediction().isStable()) {
      return head
          + String.format(
              "its nodes are overloaded (utilisation %.2f: every duplicate serves every access of its set)",
              uo);
    }
    List<String> reasons = new ArrayList<>();
    if (uo > ub * 1.05) {
      reasons.add(
          String.format(
              "its nodes are busier (utilisation %.3f against %.3f), so more accesses queue behind a"
                  + " slow one",
              uo, ub));
    }
    if (o.duplicatesPerSet() < b.duplicatesPerSet()) {
      reasons.add(
          String.format(
              "it sends each access to %s against %d, so it masks fewer anomalies",
              o.duplicatesPerSet() == 1 ? "one copy" : o.duplicatesPerSet() + " copies",
              b.duplicatesPerSet()));
    }
    if (reasons.isEmpty()) {
      reasons.add(
          b.nodes() < o.nodes()
              ? "as good with fewer nodes"
              : "the shared arrival stream correlates its duplicates' waits");
    }
    return head + String.join("; ", reasons);
  }

  /** The three kinds of strategy the planner compares. */
  enum Kind {
    PREDICTABILITY("RP"),
    THROUGHPUT("throughput"),
    MIX("mix");

    final String label;

    Kind(String label) {
      this.label = label;
    }

    static Kind of(Strategy s) {
      if (s.replicaSets() == 1) {
        return PREDICTABILITY;
      }
      return s.duplicatesPerSet() == 1 ? THROUGHPUT : MIX;
    }
  }
}
