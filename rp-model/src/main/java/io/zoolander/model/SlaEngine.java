package io.zoolander.model;

import static io.zoolander.model.internal.Preconditions.checkNonNegative;
import static io.zoolander.model.internal.Preconditions.checkNotNull;
import static io.zoolander.model.internal.Preconditions.checkOpenProbability;
import static io.zoolander.model.internal.Preconditions.checkProbability;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.FutureTask;
import org.apache.commons.math3.distribution.NormalDistribution;

/**
 * The prediction engine: SLA(tau) and the miss curve of a deployment of {@code r} replica sets of
 * {@code d} duplicates serving a mix of reads and writes.
 *
 * <p>What it models:
 *
 * <ul>
 *   <li>Poisson arrivals at {@link Builder#arrivalRatePerSec total rate}; a fraction {@link
 *       Builder#writeFraction} are writes, sequenced through one repeater and applied by every
 *       node, completing on the first reply; a read goes to one replica set (uniformly) and there
 *       to {@link Builder#readConcurrency C} of its {@code d} duplicates (uniformly), completing on
 *       the first reply.
 *   <li>Every node is one FIFO server (reads and writes in arrival order, no cancellation of the
 *       losing copies); each reply adds a network delay.
 *   <li>The duplicates share the arrival stream: an access that arrives right behind another waits
 *       on every duplicate at once. So the duplicates' waits are correlated, which formulas that
 *       combine per-duplicate response times as independent miss (the thesis's, and {@link
 *       DistributionModel}).
 *   <li>Heavy tails: waiting times are distributions, never means subtracted from tau.
 *   <li>Correlated anomalies: an {@link AnomalyDependence} (e.g. {@link ExchangeableDependence}
 *       fitted from paired per-duplicate samples) combines the duplicates' late probabilities of
 *       each access.
 * </ul>
 *
 * <p>How: when every access is served by one node (one duplicate, or {@code C = 1} reads without
 * writes) each node is an M/G/1 queue and the SLA is computed exactly ({@link
 * SlaEstimate.Method#EXACT}: the Pollaczek-Khinchine waiting time solved numerically, error below
 * 1e-5). Otherwise a seeded simulation ({@link SlaEstimate.Method#SIMULATED}): Lindley's recursion
 * per node over one shared arrival stream, conditional Monte Carlo (each access contributes the
 * probability that all its replies are late given the waits it found) and the exact single-node
 * miss ratio as control variate; its standard error from batch means. Every estimate carries an
 * interval that adds the uncertainty due to the size of the service-time sample (a Poisson
 * bootstrap over the sample). See {@code docs/model.md}, "The engine".
 *
 * <pre>{@code
 * SlaEngine engine = SlaEngine.builder()
 *     .strategy(Strategy.predictability(4))
 *     .serviceTime(EmpiricalLatency.of(measuredMs))
 *     .networkDelay(LatencyDistributions.constant(0.1))
 *     .arrivalRatePerSec(2_000)
 *     .build();
 * SlaEstimate at5 = engine.predict(5.0);        // at5.sla(), at5.low(), at5.high()
 * MissCurve curve = engine.missCurve(0.5, 20, 40);
 * }</pre>
 *
 * <p>Immutable and thread-safe; a prediction is a pure function of the configuration (seeded). A
 * simulated prediction runs its measured run on the common fork-join pool beside its pilot, so on
 * two free cores it takes about one run's time.
 */
public final class SlaEngine {
  /** Grid cells of the exact M/G/1 solution. */
  static final int GRID = 2048;

  /** Cells of the tabulated survival function the simulation looks up. */
  static final int TABLE = 4096;

  /**
   * Node services (accesses times nodes per access) of the shortest run: the planner's fixed
   * budget, and the least the adaptive budget's run simulates.
   */
  static final long NODE_SERVICE_BUDGET = 1_500_000;

  static final long MIN_ACCESSES = 20_000;

  /**
   * Relative Monte-Carlo error of a miss ratio the adaptive budget sizes its run for (unless an
   * error of {@link #ABSOLUTE_ERROR} is already reached, or the cap is).
   */
  static final double TARGET_RELATIVE_ERROR = 0.1;

  /** Monte-Carlo standard error of a miss ratio small enough whatever the ratio. */
  static final double ABSOLUTE_ERROR = 1e-7;

  /** Cap of the adaptive budget in node services (accesses times nodes per access). */
  static final long MAX_NODE_SERVICES = 48_000_000;

  /** Mixed into the seed of the pilot run, so that it draws none of the measured run's numbers. */
  private static final long PILOT_SEED = 0x9170_7EED_5EED_1L;

  /** Fewest exchangeable duplicates simulated for the subset average. */
  static final int MIN_COPIES = 16;

  static final long MAX_ACCESSES = 400_000;

  /** Cap of the adaptive budget in accesses. */
  static final long MAX_ADAPTIVE_ACCESSES = 8_000_000;

  private static final int NETWORK_POINTS = 16;

  private final Strategy strategy;
  private final int readConcurrency;
  private final double arrivalRatePerSec;
  private final double writeFraction;
  private final LatencyDistribution readService;
  private final LatencyDistribution writeService;
  private final LatencyDistribution networkDelay;
  private final AnomalyDependence dependence;
  private final long seed;
  private final long accesses;
  private final double confidence;
  private final int bootstrapReplicates;
  private final EngineLaw readLaw;
  private final EngineLaw writeLaw;
  private final double[] networkPoints;

  private SlaEngine(Builder b) {
    this.strategy = b.strategy;
    this.readConcurrency =
        b.readConcurrency == 0 ? b.strategy.duplicatesPerSet() : b.readConcurrency;
    this.arrivalRatePerSec = b.arrivalRatePerSec;
    this.writeFraction = b.writeFraction;
    this.readService = b.readService;
    this.writeService = b.writeService;
    this.networkDelay = b.networkDelay;
    this.dependence = b.dependence;
    this.seed = b.seed;
    this.accesses = b.accesses;
    this.confidence = b.confidence;
    this.bootstrapReplicates = b.bootstrapReplicates;
    this.readLaw = b.readLaw != null ? b.readLaw : EngineLaw.of(readService);
    this.writeLaw =
        writeService == readService
            ? readLaw
            : b.writeLaw != null ? b.writeLaw : EngineLaw.of(writeService);
    this.networkPoints = networkPoints(networkDelay);
  }

  public static Builder builder() {
    return new Builder();
  }

  /** A builder holding this engine's configuration, e.g. to vary one input. */
  public Builder toBuilder() {
    return new Builder(this);
  }

  public Strategy strategy() {
    return strategy;
  }

  public double arrivalRatePerSec() {
    return arrivalRatePerSec;
  }

  public double writeFraction() {
    return writeFraction;
  }

  public int readConcurrency() {
    return readConcurrency;
  }

  /** Utilisation of every node: {@code (lambda_writes E[S_w] + lambda_reads,node E[S_r])}. */
  public double utilisation() {
    double[] rates = nodeRatesPerMs();
    return rates[0] * readLaw.mean() + rates[1] * writeLaw.mean();
  }

  /**
   * The predicted SLA of the access mix at {@code tauMs}, with its interval.
   *
   * @throws IllegalArgumentException if {@code tauMs} is negative, NaN or infinite
   */
  public SlaEstimate predict(double tauMs) {
    return missCurve(new double[] {tauMs}).all().get(0);
  }

  /**
   * The miss curve at {@code points} bounds evenly spaced from {@code fromMs} to {@code toMs}.
   *
   * @throws IllegalArgumentException if a bound is negative or not finite, {@code toMs < fromMs},
   *     or {@code points < 1}
   */
  public MissCurve missCurve(double fromMs, double toMs, int points) {
    checkNonNegative(fromMs, "fromMs");
    checkNonNegative(toMs, "toMs");
    if (toMs < fromMs) {
      throw new IllegalArgumentException("toMs must be >= fromMs, was " + toMs + " < " + fromMs);
    }
    if (points < 1) {
      throw new IllegalArgumentException("points must be >= 1, was " + points);
    }
    double[] taus = new double[points];
    for (int i = 0; i < points; i++) {
      taus[i] = points == 1 ? fromMs : fromMs + (toMs - fromMs) * i / (points - 1);
    }
    return missCurve(taus);
  }

  /**
   * The miss curve at the given bounds (one simulation serves them all).
   *
   * @throws IllegalArgumentException if there are no bounds or one is negative, NaN or infinite
   */
  public MissCurve missCurve(double... tausMs) {
    checkNotNull(tausMs, "tausMs");
    if (tausMs.length == 0) {
      throw new IllegalArgumentException("tausMs must not be empty");
    }
    for (int i = 0; i < tausMs.length; i++) {
      checkNonNegative(tausMs[i], "tausMs[" + i + "]");
    }
    return compute(tausMs.clone());
  }

  /**
   * The thesis's formula for the same deployment, as a baseline: one replica set of {@code d}
   * duplicates at the rate each node sees, the read service time, mean waits subtracted from tau
   * (M/G/1), independent duplicates.
   */
  public SlaPrediction thesisBaseline(double tauMs) {
    checkNonNegative(tauMs, "tauMs");
    double lambda = utilisation() * 1000 / readService.meanMs();
    Deployment deployment =
        Deployment.builder()
            .networkDelay(networkDelay)
            .duplicates(readConcurrency, readService)
            .arrivalRatePerSec(Double.isFinite(lambda) ? lambda : 0)
            .build();
    return ThesisModel.create().predict(deployment, tauMs);
  }

  /** Arrivals per ms at each node: [reads, writes]. */
  private double[] nodeRatesPerMs() {
    double reads =
        arrivalRatePerSec
            * (1 - writeFraction)
            / strategy.replicaSets()
            * readConcurrency
            / strategy.duplicatesPerSet()
            / 1000;
    double writes = arrivalRatePerSec * writeFraction / 1000;
    return new double[] {reads, writes};
  }

  private boolean exact() {
    boolean readsAlone = readConcurrency == 1;
    boolean writesAlone = strategy.nodes() == 1;
    return (writeFraction == 0 && readsAlone)
        || (writeFraction == 1 && writesAlone)
        || (readsAlone && writesAlone);
  }

  private MissCurve compute(double[] taus) {
    int t = taus.length;
    double rho = utilisation();
    double[] rates = nodeRatesPerMs();
    double readShare = 1 - writeFraction;
    if (rho >= 1) {
      List<SlaEstimate> unstable = new ArrayList<>();
      for (double tau : taus) {
        unstable.add(
            new SlaEstimate(tau, 0, 0, 0, confidence, 0, 0, SlaEstimate.Method.UNSTABLE, rho));
      }
      return new MissCurve(
          unstable, readShare > 0 ? unstable : List.of(), writeFraction > 0 ? unstable : List.of());
    }
    double maxTau = Arrays.stream(taus).max().orElseThrow();
    double minNet = networkPoints[0];
    double serviceMax = Math.max(maxTau - minNet, 1e-9);
    EngineLaw[] laws = {readLaw, writeLaw};
    PollaczekKhinchine pk = new PollaczekKhinchine(laws, rates, serviceMax, GRID);
    double[][] single = new double[2][t];
    for (int c = 0; c < 2; c++) {
      for (int i = 0; i < t; i++) {
        single[c][i] = 1 - sojourn(pk, c, taus[i]);
      }
    }
    double[][] miss = new double[2][];
    double[][] mcError = new double[2][t];
    SlaEstimate.Method method;
    SharedArrivalSimulation sim = null;
    SharedArrivalSimulation.Result result = null;
    if (exact()) {
      method = SlaEstimate.Method.EXACT;
      miss[0] = single[0];
      miss[1] = single[1];
    } else {
      method = SlaEstimate.Method.SIMULATED;
      if (accesses == 0) {
        SimulatedRun run = adaptiveRun(taus, single);
        sim = run.simulation();
        result = run.result();
      } else {
        sim = simulation(taus, single, 0);
        result = sim.run();
      }
      for (int c = 0; c < 2; c++) {
        int index = sim.exchangeable ? sim.duplicates - 1 : c;
        miss[c] = result.miss[index].clone();
        mcError[c] = result.standardError[index].clone();
      }
    }
    SampleBootstrap spread =
        new SampleBootstrap(
            this, readLaw, writeLaw, dependence, seed, bootstrapReplicates, writeFraction);
    double[][][] factors = spread.factors(taus, rates, serviceMax, sim, result);
    double z =
        new NormalDistribution(null, 0, 1).inverseCumulativeProbability(0.5 + confidence / 2);
    List<SlaEstimate> all = new ArrayList<>();
    List<SlaEstimate> reads = new ArrayList<>();
    List<SlaEstimate> writes = new ArrayList<>();
    for (int i = 0; i < t; i++) {
      double[] share = {readShare, writeFraction};
      double m = 0;
      double se2 = 0;
      for (int c = 0; c < 2; c++) {
        if (share[c] > 0) {
          m += share[c] * miss[c][i];
          se2 += share[c] * share[c] * mcError[c][i] * mcError[c][i];
          SlaEstimate e =
              estimate(
                  taus[i],
                  miss[c][i],
                  mcError[c][i],
                  spread.relativeSpread(factors, c, i, miss),
                  z,
                  method,
                  rho);
          (c == 0 ? reads : writes).add(e);
        }
      }
      all.add(
          estimate(
              taus[i],
              m,
              Math.sqrt(se2),
              spread.relativeSpread(factors, -1, i, miss),
              z,
              method,
              rho));
    }
    return new MissCurve(all, reads, writes);
  }

  /**
   * The adaptive budget: a pilot run, which only sets the length of a fresh run with independent
   * draws; the estimate and its error come from that run alone, so the decision to simulate more
   * never selects the estimate. The fresh run is never shorter than the fixed budget, so one of
   * that length starts beside the pilot, on the common fork-join pool; it is the answer unless the
   * pilot asks for more, and then it is abandoned and a run of the asked length made (same seed, so
   * the result is the one the two runs one after the other would give).
   */
  private SimulatedRun adaptiveRun(double[] taus, double[][] single) {
    SharedArrivalSimulation pilot = simulation(taus, single, 0);
    SharedArrivalSimulation measured = simulation(taus, single, 0);
    measured.seed = seed; // fixed budget, as the pilot
    FutureTask<SharedArrivalSimulation.Result> speculative = new FutureTask<>(measured::run);
    ForkJoinPool.commonPool().execute(speculative);
    SharedArrivalSimulation.Result pilotResult;
    try {
      pilotResult = pilot.run();
    } catch (RuntimeException | Error e) {
      measured.abandon();
      speculative.cancel(false);
      throw e;
    }
    long length = adaptiveLength(pilot, pilotResult);
    if (length == measured.accesses) {
      speculative.run(); // runs it here if the pool has not started it; else a no-op
      return new SimulatedRun(measured, outcome(speculative));
    }
    measured.abandon();
    speculative.cancel(false);
    SharedArrivalSimulation longer = simulation(taus, single, 0);
    longer.seed = seed;
    longer.accesses = length;
    longer.warmup = warmup(length);
    return new SimulatedRun(longer, longer.run());
  }

  /** A simulation and what its run measured. */
  private record SimulatedRun(
      SharedArrivalSimulation simulation, SharedArrivalSimulation.Result result) {}

  private static SharedArrivalSimulation.Result outcome(
      FutureTask<SharedArrivalSimulation.Result> task) {
    try {
      return task.get();
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof RuntimeException r) {
        throw r;
      }
      if (cause instanceof Error err) {
        throw err;
      }
      throw new IllegalStateException(cause);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while simulating", e);
    }
  }

  /**
   * The adaptive budget's rule: from a pilot run, the accesses that bring the Monte-Carlo standard
   * error of every miss ratio the prediction reports (reads or writes, where they occur) down to
   * {@link #TARGET_RELATIVE_ERROR} of it or to {@link #ABSOLUTE_ERROR} (the error falls as one over
   * the root of the accesses), at least the fixed budget's, at most the cap's.
   */
  private long adaptiveLength(SharedArrivalSimulation pilot, SharedArrivalSimulation.Result r) {
    long least = fixedAccesses(pilot);
    long most =
        Math.max(
            least, Math.min(MAX_ADAPTIVE_ACCESSES, (long) (MAX_NODE_SERVICES / touched(pilot))));
    double factor = 0;
    double[] share = {1 - writeFraction, writeFraction};
    for (int c = 0; c < 2; c++) {
      if (share[c] == 0) {
        continue;
      }
      int index = pilot.exchangeable ? pilot.duplicates - 1 : c;
      for (int i = 0; i < r.miss[index].length; i++) {
        double se = r.standardError[index][i];
        double target = Math.max(ABSOLUTE_ERROR, TARGET_RELATIVE_ERROR * r.miss[index][i]);
        if (se > 0) {
          factor = Math.max(factor, (se / target) * (se / target));
        }
      }
    }
    double wanted = Math.ceil(r.accesses * factor);
    return wanted >= most ? most : Math.max(least, (long) wanted);
  }

  private SlaEstimate estimate(
      double tau,
      double miss,
      double mcError,
      double relative,
      double z,
      SlaEstimate.Method method,
      double rho) {
    double lowMiss;
    double highMiss;
    if (miss > 0) {
      double mcRelative = mcError / miss;
      double total = Math.sqrt(relative * relative + mcRelative * mcRelative);
      lowMiss = miss * Math.exp(-z * total);
      highMiss = Math.min(1, miss * Math.exp(z * total));
    } else {
      lowMiss = 0;
      highMiss = Math.min(1, z * mcError);
    }
    return new SlaEstimate(
        tau, 1 - miss, 1 - highMiss, 1 - lowMiss, confidence, mcError, relative, method, rho);
  }

  /** {@code P(W + S_c + net <= tau)} from a solved single node. */
  double sojourn(PollaczekKhinchine pk, int c, double tau) {
    double sum = 0;
    for (double net : networkPoints) {
      sum += pk.sojournCdf(c, tau - net);
    }
    return sum / networkPoints.length;
  }

  /** {@code P(S_c + net > x)}. */
  double survival(EngineLaw law, double x) {
    double sum = 0;
    for (double net : networkPoints) {
      sum += law.cdf(x - net);
    }
    return 1 - sum / networkPoints.length;
  }

  /**
   * The simulation of this deployment; {@code maxDuplicates > 0} for the planner's reads-only
   * variant (one set, reads to every duplicate, results for {@code 1..maxDuplicates}).
   */
  SharedArrivalSimulation simulation(double[] taus, double[][] single, int maxDuplicates) {
    SharedArrivalSimulation sim = new SharedArrivalSimulation();
    int t = taus.length;
    boolean readsOnly = writeFraction == 0;
    boolean planner = maxDuplicates > 0;
    int d = planner ? maxDuplicates : strategy.duplicatesPerSet();
    boolean everyNode = planner || (readsOnly && readConcurrency == d) || writeFraction == 1;
    sim.exchangeable = everyNode && dependence instanceof AnomalyDependence.Independent;
    sim.prefix = planner && !sim.exchangeable;
    sim.virtualGap = sim.exchangeable && !planner;
    sim.writeFraction = planner ? 0 : writeFraction;
    if (sim.exchangeable) {
      int n = writeFraction == 1 && !planner ? strategy.nodes() : d;
      sim.duplicates = n;
      // The planner's run serves every N up to n from 2n copies; a prediction for N = n alone
      // simulates max(16, n): beyond 16 copies an access's spread comes from the arrivals, not the
      // copies (ZooKeeper-like sample, rho 60%, N = 16, p99: 128 copies gave 64% relative spread
      // per 10^5 accesses, 32 gave 70%, 16 gave 78%, for a quarter and an eighth of the services).
      sim.copies = Math.max(MIN_COPIES, planner ? 2 * n : n);
      sim.sets = 1;
      sim.readConcurrency = n;
      sim.ratePerMs =
          writeFraction == 1 && !planner
              ? arrivalRatePerSec / 1000
              : arrivalRatePerSec / strategy.replicaSets() / 1000;
    } else {
      sim.sets = readsOnly || planner ? 1 : strategy.replicaSets();
      sim.duplicates = d;
      sim.readConcurrency = planner ? d : readConcurrency;
      sim.ratePerMs =
          readsOnly || planner
              ? arrivalRatePerSec / strategy.replicaSets() / 1000
              : arrivalRatePerSec / 1000;
    }
    sim.laws = new EngineLaw[] {readLaw, writeLaw};
    double maxTau = Arrays.stream(taus).max().orElseThrow();
    double step = Math.max(maxTau, 1e-9) / TABLE;
    sim.tableStep = step;
    sim.survivalTable = new double[2][];
    sim.survivalAtTau = new double[2][t];
    for (int c = 0; c < 2; c++) {
      if (c == 1 && writeLaw == readLaw) {
        sim.survivalTable[1] = sim.survivalTable[0];
        sim.survivalAtTau[1] = sim.survivalAtTau[0];
        continue;
      }
      double[] table = new double[TABLE + 1];
      for (int i = 0; i <= TABLE; i++) {
        table[i] = survival(sim.laws[c], i * step);
      }
      sim.survivalTable[c] = table;
      for (int i = 0; i < t; i++) {
        sim.survivalAtTau[c][i] = survival(sim.laws[c], taus[i]);
      }
    }
    sim.taus = taus;
    sim.singleNodeMiss = single;
    sim.combiners = sim.exchangeable ? null : combiners(taus, Math.max(d, strategy.nodes()));
    long n;
    if (accesses > 0) {
      n = accesses;
      sim.seed = seed;
    } else if (planner) {
      n = fixedAccesses(sim);
      sim.seed = seed;
    } else {
      // The adaptive budget's pilot: the fixed budget, with its own draws. Not shorter: where rare
      // large contributions dominate, a pilot of 20 000 accesses saw a tenth of the miss ratio and
      // sized the run for it (Pareto sample, rho 10%, N = 16, p90).
      n = fixedAccesses(sim);
      sim.seed = new SplittableRandom(seed ^ PILOT_SEED).nextLong();
    }
    sim.accesses = n;
    sim.warmup = warmup(n);
    return sim;
  }

  /** Mean nodes an access of the simulation is sent to. */
  private static double touched(SharedArrivalSimulation sim) {
    double touched;
    if (sim.exchangeable) {
      touched = sim.copies;
    } else {
      touched =
          sim.writeFraction * sim.sets * sim.duplicates
              + (1 - sim.writeFraction) * sim.readConcurrency;
    }
    return Math.max(1, touched);
  }

  /** Accesses of the fixed budget: {@link #NODE_SERVICE_BUDGET} node services. */
  private static long fixedAccesses(SharedArrivalSimulation sim) {
    return Math.max(
        MIN_ACCESSES, Math.min(MAX_ACCESSES, (long) (NODE_SERVICE_BUDGET / touched(sim))));
  }

  private static long warmup(long accesses) {
    return Math.max(2_000, accesses / 10);
  }

  private SharedArrivalSimulation.Combiner[] combiners(double[] taus, int maxNodes) {
    return combiners(taus, maxNodes, null);
  }

  /**
   * How the duplicates' late probabilities combine at each bound; with {@code replicate} (not null)
   * the dependence's steps come from a bootstrap replicate of its paired samples.
   */
  SharedArrivalSimulation.Combiner[] combiners(
      double[] taus, int maxNodes, SplittableRandom replicate) {
    if (dependence instanceof AnomalyDependence.Independent) {
      return null;
    }
    double meanNet = networkDelay.meanMs();
    SharedArrivalSimulation.Combiner[] out = new SharedArrivalSimulation.Combiner[taus.length];
    for (int i = 0; i < taus.length; i++) {
      double bound = taus[i] - meanNet;
      if (dependence instanceof ExchangeableDependence e) {
        double[] steps =
            replicate == null
                ? e.steps(bound, maxNodes)
                : e.replicateSteps(bound, maxNodes, replicate);
        out[i] =
            (late, k) -> {
              double[] sorted = Arrays.copyOf(late, k);
              Arrays.sort(sorted);
              double all = sorted[0];
              for (int j = 1; j < k; j++) {
                all *= ExchangeableDependence.lateGiven(sorted[j], steps[j], j);
              }
              return all;
            };
      } else if (dependence instanceof CommonShock s) {
        double shock = s.probabilityAt(bound);
        out[i] =
            (late, k) -> {
              double min = 1;
              for (int j = 0; j < k; j++) {
                min = Math.min(min, late[j]);
              }
              double c = Math.min(shock, min);
              if (c >= 1) {
                return 1;
              }
              double independent = 1;
              for (int j = 0; j < k; j++) {
                independent *= (late[j] - c) / (1 - c);
              }
              return c + (1 - c) * independent;
            };
      } else {
        AnomalyDependence generic = dependence;
        out[i] =
            (late, k) -> {
              double[] onTime = new double[k];
              double[] bounds = new double[k];
              for (int j = 0; j < k; j++) {
                onTime[j] = 1 - late[j];
                bounds[j] = bound;
              }
              return 1 - generic.firstReplyOnTime(onTime, bounds);
            };
      }
    }
    return out;
  }

  /**
   * For the planner: the miss ratio at {@code tauMs} of reads sent to all of the first {@code d}
   * duplicates, {@code d = 1..maxDuplicates} (index {@code d - 1}), one replica set at {@code
   * setRatePerSec}, reads only; one simulation (common random numbers) serves every {@code d}.
   * Index 0 is exact. Returns null when a node is unstable.
   */
  static double[] missByDuplicates(
      Builder template, double setRatePerSec, int maxDuplicates, double tauMs) {
    SlaEngine engine =
        template
            .copy()
            .strategy(Strategy.predictability(maxDuplicates))
            .writeFraction(0)
            .readConcurrency(maxDuplicates)
            .arrivalRatePerSec(setRatePerSec)
            .build();
    double[] rates = {setRatePerSec / 1000, 0};
    if (engine.utilisation() >= 1) {
      return null;
    }
    double[] taus = {tauMs};
    double serviceMax = Math.max(tauMs - engine.networkPoints[0], 1e-9);
    PollaczekKhinchine pk =
        new PollaczekKhinchine(
            new EngineLaw[] {engine.readLaw, engine.writeLaw}, rates, serviceMax, GRID);
    double[][] single = {{1 - engine.sojourn(pk, 0, tauMs)}, {1 - engine.sojourn(pk, 1, tauMs)}};
    double[] out = new double[maxDuplicates];
    out[0] = single[0][0];
    if (maxDuplicates > 1) {
      SharedArrivalSimulation.Result r = engine.simulation(taus, single, maxDuplicates).run();
      for (int d = 2; d <= maxDuplicates; d++) {
        out[d - 1] = r.miss[d - 1][0];
      }
    }
    return out;
  }

  private static double[] networkPoints(LatencyDistribution network) {
    if (network.varianceMs2() == 0) {
      return new double[] {network.meanMs()};
    }
    double[] points = new double[NETWORK_POINTS];
    for (int i = 0; i < NETWORK_POINTS; i++) {
      points[i] = network.quantile((i + 0.5) / NETWORK_POINTS);
    }
    Arrays.sort(points);
    return points;
  }

  @Override
  public String toString() {
    return "SlaEngine["
        + strategy
        + ", "
        + arrivalRatePerSec
        + "/s, writes "
        + writeFraction
        + ", C="
        + readConcurrency
        + ", reads "
        + readService
        + (writeService == readService ? "" : ", writes " + writeService)
        + ", network "
        + networkDelay
        + ", "
        + dependence
        + "]";
  }

  /**
   * Configures an {@link SlaEngine}. Every setter checks its argument at once ({@link
   * NullPointerException} or {@link IllegalArgumentException} naming it); {@link #build()} checks
   * that they fit together. Required: a service time and the arrival rate.
   */
  public static final class Builder {
    private Strategy strategy = Strategy.predictability(1);
    private int readConcurrency; // 0: every duplicate of the set
    private double arrivalRatePerSec = Double.NaN;
    private double writeFraction;
    private LatencyDistribution readService;
    private LatencyDistribution writeService;
    private LatencyDistribution networkDelay = LatencyDistributions.constant(0);
    private AnomalyDependence dependence = AnomalyDependence.independent();
    private long seed = 0x5EEDL;
    private long accesses;
    private double confidence = 0.95;
    private int bootstrapReplicates = 32;
    private EngineLaw readLaw; // cached from a previous build (the planner builds many engines)
    private EngineLaw writeLaw;

    private Builder() {}

    private Builder(SlaEngine e) {
      strategy = e.strategy;
      readConcurrency = e.readConcurrency;
      arrivalRatePerSec = e.arrivalRatePerSec;
      writeFraction = e.writeFraction;
      readService = e.readService;
      writeService = e.writeService;
      networkDelay = e.networkDelay;
      dependence = e.dependence;
      seed = e.seed;
      accesses = e.accesses;
      confidence = e.confidence;
      bootstrapReplicates = e.bootstrapReplicates;
      readLaw = e.readLaw;
      writeLaw = e.writeLaw;
    }

    Builder copy() {
      Builder b = new Builder();
      b.strategy = strategy;
      b.readConcurrency = readConcurrency;
      b.arrivalRatePerSec = arrivalRatePerSec;
      b.writeFraction = writeFraction;
      b.readService = readService;
      b.writeService = writeService;
      b.networkDelay = networkDelay;
      b.dependence = dependence;
      b.seed = seed;
      b.accesses = accesses;
      b.confidence = confidence;
      b.bootstrapReplicates = bootstrapReplicates;
      b.readLaw = readLaw;
      b.writeLaw = writeLaw;
      return b;
    }

    /** Builds the service laws once, so copies of this builder reuse them. */
    Builder prepare() {
      if (readService != null && readLaw == null) {
        readLaw = EngineLaw.of(readService);
      }
      if (writeService != null && writeLaw == null) {
        writeLaw = writeService == readService ? readLaw : EngineLaw.of(writeService);
      }
      return this;
    }

    /** Replica sets and duplicates per set; RP with one duplicate by default. */
    public Builder strategy(Strategy strategy) {
      this.strategy = checkNotNull(strategy, "strategy");
      return this;
    }

    /**
     * Duplicates of its set a read is sent to, {@code 1..duplicatesPerSet} (checked at {@link
     * #build()}); 0 (the default) for all of them.
     */
    public Builder readConcurrency(int readConcurrency) {
      if (readConcurrency < 0) {
        throw new IllegalArgumentException("readConcurrency must be >= 0, was " + readConcurrency);
      }
      this.readConcurrency = readConcurrency;
      return this;
    }

    /** Total accesses per second over every replica set (required). */
    public Builder arrivalRatePerSec(double arrivalRatePerSec) {
      this.arrivalRatePerSec = checkNonNegative(arrivalRatePerSec, "arrivalRatePerSec");
      return this;
    }

    /** Fraction of the accesses that are writes, in {@code [0, 1]}; 0 by default. */
    public Builder writeFraction(double writeFraction) {
      this.writeFraction = checkProbability(writeFraction, "writeFraction");
      return this;
    }

    /**
     * The service time of reads and writes (this, or {@link #readServiceTime} and {@link
     * #writeServiceTime}, is required). An {@link EmpiricalLatency} gives intervals that reflect
     * its sample count.
     */
    public Builder serviceTime(LatencyDistribution serviceTime) {
      checkNotNull(serviceTime, "serviceTime");
      this.readService = serviceTime;
      this.writeService = serviceTime;
      readLaw = null;
      writeLaw = null;
      return this;
    }

    /** Service-time samples in ms, for reads and writes: {@code EmpiricalLatency.of(samples)}. */
    public Builder serviceSamplesMs(double... samplesMs) {
      return serviceTime(EmpiricalLatency.of(checkNotNull(samplesMs, "samplesMs")));
    }

    /** The service time of reads. */
    public Builder readServiceTime(LatencyDistribution readServiceTime) {
      this.readService = checkNotNull(readServiceTime, "readServiceTime");
      readLaw = null;
      if (writeLaw == null) {
        writeLaw = null;
      }
      return this;
    }

    /** The service time of writes. */
    public Builder writeServiceTime(LatencyDistribution writeServiceTime) {
      this.writeService = checkNotNull(writeServiceTime, "writeServiceTime");
      writeLaw = null;
      return this;
    }

    /** Round-trip network delay added to every reply, drawn per reply; none by default. */
    public Builder networkDelay(LatencyDistribution networkDelay) {
      this.networkDelay = checkNotNull(networkDelay, "networkDelay");
      return this;
    }

    /** How the duplicates' anomalies relate; independent by default. */
    public Builder dependence(AnomalyDependence dependence) {
      this.dependence = checkNotNull(dependence, "dependence");
      return this;
    }

    /**
     * The dependence fitted from paired samples ({@code [access][duplicate]}, ms): {@link
     * ExchangeableDependence#estimate}.
     */
    public Builder pairedSamplesMs(double[][] pairedSamplesMs) {
      return dependence(
          ExchangeableDependence.estimate(checkNotNull(pairedSamplesMs, "pairedSamplesMs")));
    }

    /** The seed of the simulation and the bootstrap. */
    public Builder seed(long seed) {
      this.seed = seed;
      return this;
    }

    /**
     * Simulated accesses per prediction ({@code >= 1000}), or 0 (the default) for a budget of about
     * 1.5 million node services (40 000 to 400 000 accesses).
     */
    public Builder accesses(long accesses) {
      if (accesses != 0 && accesses < 1000) {
        throw new IllegalArgumentException("accesses must be 0 or >= 1000, was " + accesses);
      }
      this.accesses = accesses;
      return this;
    }

    /** The intervals' confidence level, in {@code (0, 1)}; 0.95 by default. */
    public Builder confidence(double confidence) {
      this.confidence = checkOpenProbability(confidence, "confidence");
      return this;
    }

    /** Bootstrap replicates for the sampling part of the intervals ({@code >= 0}); 32 default. */
    public Builder bootstrapReplicates(int bootstrapReplicates) {
      if (bootstrapReplicates < 0 || bootstrapReplicates == 1) {
        throw new IllegalArgumentException(
            "bootstrapReplicates must be 0 or >= 2, was " + bootstrapReplicates);
      }
      this.bootstrapReplicates = bootstrapReplicates;
      return this;
    }

    /**
     * @throws IllegalStateException if no service time or no arrival rate was set
     * @throws IllegalArgumentException if the read concurrency exceeds the duplicates per set
     */
    public SlaEngine build() {
      if (readService == null) {
        throw new IllegalStateException("serviceTime (or readServiceTime) must be set");
      }
      if (writeService == null) {
        if (writeFraction > 0) {
          throw new IllegalStateException("writeServiceTime must be set when writeFraction > 0");
        }
        writeService = readService;
        writeLaw = readLaw;
      }
      if (Double.isNaN(arrivalRatePerSec)) {
        throw new IllegalStateException("arrivalRatePerSec must be set");
      }
      if (readConcurrency > strategy.duplicatesPerSet()) {
        throw new IllegalArgumentException(
            "readConcurrency must be <= duplicatesPerSet ("
                + strategy.duplicatesPerSet()
                + "), was "
                + readConcurrency);
      }
      return new SlaEngine(this);
    }
  }
}
