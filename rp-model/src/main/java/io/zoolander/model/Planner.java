package io.zoolander.model;

import static io.zoolander.model.internal.Preconditions.checkNonNegative;
import static io.zoolander.model.internal.Preconditions.checkNotNull;
import static io.zoolander.model.internal.Preconditions.checkOpenProbability;
import static io.zoolander.model.internal.Preconditions.checkPositive;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Chooses how to spend nodes: replication for predictability, replication for throughput, or a mix
 * ({@link Strategy}). Every node has the same service-time distribution and network delay; a
 * strategy of {@code r} sets of {@code d} duplicates is predicted as one set of {@code d}
 * duplicates seeing {@code lambda / r}.
 *
 * <p>Answers three questions: the best strategy for a node budget ({@link #best}), the fewest nodes
 * that meet a target SLA ({@link #fewestNodes}) and the highest arrival rate that still meets it
 * ({@link #maxArrivalRate}).
 *
 * <p>Two predictors: by default the thesis baseline ({@link ThesisModel}, or any {@link SlaModel}
 * given to {@link Builder#model}), which subtracts mean waits from tau and so scores every strategy
 * 0 when a heavy tail makes the mean wait exceed tau; or, with {@link Builder#engine()}, the {@link
 * SlaEngine}, which keeps the waits as distributions and the duplicates' shared arrival stream.
 * With the engine, one simulation per number of replica sets serves every duplicate count (common
 * random numbers), so planning over 32 nodes costs about 16 simulations.
 */
public final class Planner {

  /**
   * A strategy evaluated at an arrival rate.
   *
   * @param strategy how the nodes are used
   * @param arrivalRatePerSec total arrivals per second over all replica sets
   * @param prediction the model's prediction for one replica set
   */
  public record Plan(Strategy strategy, double arrivalRatePerSec, SlaPrediction prediction) {
    public double sla() {
      return prediction.sla();
    }

    @Override
    public String toString() {
      return String.format(
          "%s at %.1f/s: SLA %.6f (%s, utilisation %.3f)",
          strategy,
          arrivalRatePerSec,
          prediction.sla(),
          prediction.status(),
          prediction.maxUtilisation());
    }
  }

  /** Orders plans by SLA, then fewer nodes, then fewer replica sets (simpler to run). */
  private static final Comparator<Plan> BY_SLA =
      Comparator.comparingDouble(Plan::sla)
          .thenComparing(p -> -p.strategy().nodes())
          .thenComparing(p -> -p.strategy().replicaSets());

  /** Simulated accesses per step of the engine's goodput search. */
  private static final long QUICK_ACCESSES = 20_000;

  /** Bisection steps of the goodput search at most. */
  private static final int MAX_BISECTIONS = 16;

  /** The goodput search stops when its bracket is this narrow, relative to its top. */
  private static final double RATE_TOLERANCE = 1e-3;

  /** Relative rate step back when the full run misses the target the short runs met. */
  private static final double STEP_BACK = 0.01;

  private final SlaModel model;
  private final SlaEngine.Builder engine; // null: use model
  // The engine's last evaluateAll (guarded by this).
  private List<Plan> lastPlans;
  private int lastNodes;
  private double lastRate;
  private final LatencyDistribution serviceTime;
  private final LatencyDistribution networkDelay;
  private final double tauMs;

  private Planner(
      SlaModel model,
      SlaEngine.Builder engine,
      LatencyDistribution serviceTime,
      LatencyDistribution networkDelay,
      double tauMs) {
    this.model = model;
    this.engine =
        engine == null
            ? null
            : engine.copy().serviceTime(serviceTime).networkDelay(networkDelay).prepare();
    this.serviceTime = serviceTime;
    this.networkDelay = networkDelay;
    this.tauMs = tauMs;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Whether this planner predicts with the {@link SlaEngine} (else the thesis baseline). */
  public boolean usesEngine() {
    return engine != null;
  }

  /**
   * The engine's full estimate (with its interval) of one strategy at a total arrival rate.
   *
   * @throws IllegalStateException if this planner does not use the engine
   */
  public SlaEstimate estimate(Strategy strategy, double arrivalRatePerSec) {
    checkNotNull(strategy, "strategy");
    checkNonNegative(arrivalRatePerSec, "arrivalRatePerSec");
    if (engine == null) {
      throw new IllegalStateException("this planner uses " + model + ", not the engine");
    }
    return engine
        .copy()
        .strategy(strategy)
        .arrivalRatePerSec(arrivalRatePerSec)
        .build()
        .predict(tauMs);
  }

  /** Predicts one strategy at a total arrival rate. */
  public Plan evaluate(Strategy strategy, double arrivalRatePerSec) {
    checkNotNull(strategy, "strategy");
    checkNonNegative(arrivalRatePerSec, "arrivalRatePerSec");
    if (engine != null) {
      return enginePlans(strategy.replicaSets(), strategy.duplicatesPerSet(), arrivalRatePerSec)
          .get(strategy.duplicatesPerSet() - 1);
    }
    return new Plan(
        strategy, arrivalRatePerSec, model.predict(replicaSet(strategy, arrivalRatePerSec), tauMs));
  }

  /**
   * Every strategy with at most {@code nodes} nodes, in order of replica sets then duplicates (an
   * unmodifiable list). With the engine the last answer is kept: {@link #best} and {@link
   * #fewestNodes} asked about the same nodes and rate (as {@code zoolander plan} does) simulate
   * once.
   */
  public List<Plan> evaluateAll(int nodes, double arrivalRatePerSec) {
    checkPositive(nodes, "nodes");
    checkNonNegative(arrivalRatePerSec, "arrivalRatePerSec");
    if (engine == null) {
      return List.copyOf(evaluateEach(nodes, arrivalRatePerSec));
    }
    synchronized (this) {
      if (lastPlans == null
          || lastNodes != nodes
          || Double.compare(lastRate, arrivalRatePerSec) != 0) {
        lastPlans = List.copyOf(evaluateEach(nodes, arrivalRatePerSec));
        lastNodes = nodes;
        lastRate = arrivalRatePerSec;
      }
      return lastPlans;
    }
  }

  private List<Plan> evaluateEach(int nodes, double arrivalRatePerSec) {
    List<Plan> plans = new ArrayList<>();
    for (int r = 1; r <= nodes; r++) {
      if (engine != null) {
        plans.addAll(enginePlans(r, nodes / r, arrivalRatePerSec));
        continue;
      }
      for (int d = 1; r * d <= nodes; d++) {
        plans.add(evaluate(new Strategy(r, d), arrivalRatePerSec));
      }
    }
    return plans;
  }

  /** With the engine: {@code r} sets of {@code 1..maxDuplicates} duplicates, one simulation. */
  private List<Plan> enginePlans(int r, int maxDuplicates, double arrivalRatePerSec) {
    double setRate = arrivalRatePerSec / r;
    double rho = setRate * serviceTime.meanMs() / 1000;
    double[] miss = SlaEngine.missByDuplicates(engine, setRate, maxDuplicates, tauMs);
    List<Plan> plans = new ArrayList<>(maxDuplicates);
    for (int d = 1; d <= maxDuplicates; d++) {
      Strategy strategy = new Strategy(r, d);
      SlaPrediction prediction;
      if (miss == null) {
        prediction = SlaPrediction.unstable(tauMs, rho, d);
      } else {
        double[] onTime = new double[d];
        java.util.Arrays.fill(onTime, 1 - miss[0]);
        prediction =
            new SlaPrediction(SlaPrediction.Status.STABLE, 1 - miss[d - 1], tauMs, rho, onTime);
      }
      plans.add(new Plan(strategy, arrivalRatePerSec, prediction));
    }
    return plans;
  }

  /**
   * The strategy with the highest predicted SLA using at most {@code nodes} nodes (ties: fewer
   * nodes).
   */
  public Plan best(int nodes, double arrivalRatePerSec) {
    return evaluateAll(nodes, arrivalRatePerSec).stream().max(BY_SLA).orElseThrow();
  }

  /**
   * The strategy meeting {@code targetSla} with the fewest nodes, up to {@code maxNodes}; empty if
   * none does.
   */
  public Optional<Plan> fewestNodes(double targetSla, double arrivalRatePerSec, int maxNodes) {
    checkOpenProbability(targetSla, "targetSla");
    checkPositive(maxNodes, "maxNodes");
    if (engine != null) {
      // One evaluation of every strategy; the smallest budget whose best plan meets the target.
      List<Plan> all = evaluateAll(maxNodes, arrivalRatePerSec);
      for (int nodes = 1; nodes <= maxNodes; nodes++) {
        int budget = nodes;
        Plan best =
            all.stream().filter(p -> p.strategy().nodes() <= budget).max(BY_SLA).orElseThrow();
        if (best.prediction().meets(targetSla)) {
          return Optional.of(best);
        }
      }
      return Optional.empty();
    }
    for (int nodes = 1; nodes <= maxNodes; nodes++) {
      Plan best = best(nodes, arrivalRatePerSec);
      if (best.prediction().meets(targetSla)) {
        return Optional.of(best);
      }
    }
    return Optional.empty();
  }

  /**
   * The strategy with at most {@code nodes} nodes that sustains the highest total arrival rate
   * while meeting {@code targetSla} (its goodput), evaluated at that rate; empty if no strategy
   * meets the target even when idle.
   */
  public Optional<Plan> maxArrivalRate(double targetSla, int nodes) {
    checkOpenProbability(targetSla, "targetSla");
    checkPositive(nodes, "nodes");
    if (engine != null) {
      return engineMaxArrivalRate(targetSla, nodes);
    }
    Plan best = null;
    for (int r = 1; r <= nodes; r++) {
      for (int d = 1; r * d <= nodes; d++) {
        Strategy strategy = new Strategy(r, d);
        double perSet =
            Capacity.maxArrivalRatePerSec(model, replicaSet(strategy, 0), tauMs, targetSla);
        if (perSet > 0 && (best == null || perSet * r > best.arrivalRatePerSec())) {
          best = evaluate(strategy, perSet * r);
        }
      }
    }
    return Optional.ofNullable(best);
  }

  /**
   * {@link #maxArrivalRate} with the engine. The goodput of {@code r} sets of {@code d} duplicates
   * is {@code r} times the highest rate one set of {@code d} sustains, which depends on {@code d}
   * only and does not fall as {@code d} grows (more copies of the same arrivals). So only the
   * strategies with the most sets for their {@code d} and the most duplicates for their {@code r}
   * can win ({@code (r, nodes / r)} with {@code r = nodes / d}: about {@code 2 sqrt(nodes)} of
   * them); they are searched from the most sets down, each bisection (short simulations) starting
   * from what the previous one found, and skipped when even a saturated set could not beat the best
   * so far.
   */
  private Optional<Plan> engineMaxArrivalRate(double targetSla, int nodes) {
    SlaEngine.Builder quick = engine.copy().accesses(QUICK_ACCESSES);
    double saturation = 1000 / serviceTime.meanMs();
    Strategy best = null;
    double bestRate = 0;
    double floor = 0; // a set rate the previous (fewer) duplicates sustained
    for (int r = nodes; r >= 1; r--) {
      int d = nodes / r;
      if (nodes / d != r || r * saturation <= bestRate) {
        continue;
      }
      double lo = Math.max(floor, bestRate / r);
      boolean feasible =
          lo == floor ? floor > 0 || meets(quick, 0, d, targetSla) : meets(quick, lo, d, targetSla);
      if (!feasible) {
        continue;
      }
      double hi = saturation;
      for (int i = 0; i < MAX_BISECTIONS && hi - lo > RATE_TOLERANCE * hi; i++) {
        double mid = (lo + hi) / 2;
        if (meets(quick, mid, d, targetSla)) {
          lo = mid;
        } else {
          hi = mid;
        }
      }
      floor = lo;
      if (lo > 0 && lo * r > bestRate) {
        best = new Strategy(r, d);
        bestRate = lo * r;
      }
    }
    if (best == null) {
      return Optional.empty();
    }
    // The short runs and the full one differ by their Monte-Carlo error: step back until the plan
    // reported (the full run) meets the target too.
    Plan plan = evaluate(best, bestRate);
    for (int i = 0; i < MAX_BISECTIONS && !plan.prediction().meets(targetSla); i++) {
      plan = evaluate(best, plan.arrivalRatePerSec() * (1 - STEP_BACK));
    }
    return plan.prediction().meets(targetSla) ? Optional.of(plan) : Optional.empty();
  }

  /** Whether one set of {@code d} duplicates at {@code setRatePerSec} meets the target. */
  private boolean meets(SlaEngine.Builder quick, double setRatePerSec, int d, double targetSla) {
    double[] miss = SlaEngine.missByDuplicates(quick, setRatePerSec, d, tauMs);
    return miss != null && 1 - miss[d - 1] >= targetSla;
  }

  private Deployment replicaSet(Strategy strategy, double arrivalRatePerSec) {
    return Deployment.builder()
        .networkDelay(networkDelay)
        .duplicates(strategy.duplicatesPerSet(), serviceTime)
        .arrivalRatePerSec(strategy.perSetArrivalRate(arrivalRatePerSec))
        .build();
  }

  /** Builds a {@link Planner}. */
  public static final class Builder {
    private SlaModel model = ThesisModel.create();
    private SlaEngine.Builder engine;
    private LatencyDistribution serviceTime;
    private LatencyDistribution networkDelay = LatencyDistributions.constant(0);
    private double tauMs = Double.NaN;

    private Builder() {}

    /**
     * The predictor; the thesis baseline (thesis model with M/G/1 queueing) by default. Turns the
     * engine off.
     */
    public Builder model(SlaModel model) {
      this.model = checkNotNull(model, "model");
      this.engine = null;
      return this;
    }

    /** Predict with the {@link SlaEngine} (default settings) instead of the thesis baseline. */
    public Builder engine() {
      return engine(SlaEngine.builder());
    }

    /**
     * Predict with the {@link SlaEngine} configured like {@code template} (seed, dependence,
     * accesses; the planner sets the service time, network delay, strategy and rate).
     */
    public Builder engine(SlaEngine.Builder template) {
      this.engine = checkNotNull(template, "template").copy();
      return this;
    }

    /** Every node's service-time distribution (required). */
    public Builder serviceTime(LatencyDistribution serviceTime) {
      this.serviceTime = checkNotNull(serviceTime, "serviceTime");
      return this;
    }

    /** Round-trip network delay to every node; none by default. */
    public Builder networkDelay(LatencyDistribution networkDelay) {
      this.networkDelay = checkNotNull(networkDelay, "networkDelay");
      return this;
    }

    /** The SLA's latency bound (required). */
    public Builder tauMs(double tauMs) {
      this.tauMs = checkNonNegative(tauMs, "tauMs");
      return this;
    }

    /**
     * @throws IllegalStateException if the service time or tau is missing
     */
    public Planner build() {
      if (serviceTime == null) {
        throw new IllegalStateException("serviceTime must be set");
      }
      if (Double.isNaN(tauMs)) {
        throw new IllegalStateException("tauMs must be set");
      }
      return new Planner(model, engine, serviceTime, networkDelay, tauMs);
    }
  }
}
