package io.zoolander.model;

import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * How uncertain an {@link SlaEngine} estimate is because its inputs are samples: the service laws
 * measured from a finite sample, and the dependence fitted from paired samples. Each of a number of
 * replicates resamples them (a Poisson bootstrap of the binned sample, and of the paired accesses'
 * late counts) and recomputes the miss ratio cheaply: the single node's exactly, the first reply's
 * with the simulation's waiting times held fixed and only the service law replaced. The replicates'
 * spread around the estimate, on a log scale, widens its interval beside the simulation's own
 * Monte-Carlo error. See {@code docs/model.md}, "The engine".
 *
 * <p>One per prediction; not thread-safe.
 */
final class SampleBootstrap {

  /** Cells of the binned service laws and of the replicates' single-node solutions. */
  static final int GRID = 256;

  private final SlaEngine engine;
  private final EngineLaw readLaw;
  private final EngineLaw writeLaw;
  private final AnomalyDependence dependence;
  private final long seed;
  private final int replicates;
  private final double writeFraction;

  SampleBootstrap(
      SlaEngine engine,
      EngineLaw readLaw,
      EngineLaw writeLaw,
      AnomalyDependence dependence,
      long seed,
      int replicates,
      double writeFraction) {
    this.engine = engine;
    this.readLaw = readLaw;
    this.writeLaw = writeLaw;
    this.dependence = dependence;
    this.seed = seed;
    this.replicates = replicates;
    this.writeFraction = writeFraction;
  }

  /**
   * Bootstrap factors {@code [class][replicate][tau]}: each replicate's miss ratio over the
   * estimate's, or null when neither a service law nor the dependence comes from samples. A
   * dependence fitted from paired samples ({@link ExchangeableDependence}) is resampled too, its
   * late counts at each bound drawn as the Poisson bootstrap of the paired accesses.
   */
  double[][][] factors(
      double[] taus,
      double[] rates,
      double serviceMax,
      SharedArrivalSimulation sim,
      SharedArrivalSimulation.Result result) {
    boolean readSamples = readLaw instanceof EngineLaw.Empirical && writeFraction < 1;
    boolean writeSamples = writeLaw instanceof EngineLaw.Empirical && writeFraction > 0;
    boolean pairedSamples =
        result != null
            && sim.combiners != null
            && dependence instanceof ExchangeableDependence e
            && e.measuredDuplicates() > 0;
    if (replicates == 0 || !(readSamples || writeSamples || pairedSamples)) {
      return null;
    }
    int t = taus.length;
    // One law for both classes is binned (and resampled) once, whichever class uses it.
    boolean shared = writeLaw == readLaw;
    boolean readBinned = readSamples || (shared && writeSamples);
    EngineLaw[] main = new EngineLaw[2];
    main[0] = readBinned ? BinnedLaw.of((EngineLaw.Empirical) readLaw, serviceMax, GRID) : readLaw;
    main[1] =
        shared
            ? main[0]
            : writeSamples
                ? BinnedLaw.of((EngineLaw.Empirical) writeLaw, serviceMax, GRID)
                : writeLaw;
    PollaczekKhinchine pk0 = new PollaczekKhinchine(main, rates, serviceMax, GRID);
    double[][] single0 = singleMiss(pk0, taus);
    double[][] fixed0 = result == null ? null : fixedWaits(main, taus, sim, result, sim.combiners);
    double[][][] factors = new double[2][replicates][t];
    SplittableRandom rng = new SplittableRandom(seed ^ 0xB00751L);
    SplittableRandom pairedRng = new SplittableRandom(seed ^ 0x9A1BEDL);
    int combinedNodes = Math.max(sim == null ? 0 : sim.duplicates, engine.strategy().nodes());
    for (int b = 0; b < replicates; b++) {
      EngineLaw[] replicate = main.clone();
      if (readBinned) {
        replicate[0] = ((BinnedLaw) main[0]).replicate(rng);
      }
      if (writeSamples) {
        replicate[1] = shared ? replicate[0] : ((BinnedLaw) main[1]).replicate(rng);
      }
      PollaczekKhinchine pkb = new PollaczekKhinchine(replicate, rates, serviceMax, GRID);
      double[][] singleB = singleMiss(pkb, taus);
      SharedArrivalSimulation.Combiner[] combinersB =
          pairedSamples
              ? engine.combiners(taus, combinedNodes, pairedRng)
              : sim == null ? null : sim.combiners;
      double[][] fixedB =
          result == null ? null : fixedWaits(replicate, taus, sim, result, combinersB);
      for (int c = 0; c < 2; c++) {
        for (int i = 0; i < t; i++) {
          double queue = ratio(singleB[c][i], single0[c][i]);
          if (fixedB == null) {
            factors[c][b][i] = queue;
          } else {
            // The fixed-wait change of the first-reply miss, corrected by how the replicate changes
            // the single node's waiting time (its exact miss over its fixed-wait miss).
            double all = ratio(fixedB[c][i], fixed0[c][i]);
            double one = ratio(fixedB[2 + c][i], fixed0[2 + c][i]);
            factors[c][b][i] = all * queue / one;
          }
        }
      }
    }
    return factors;
  }

  private static double ratio(double a, double b) {
    return b > 0 ? a / b : 1;
  }

  private double[][] singleMiss(PollaczekKhinchine pk, double[] taus) {
    double[][] out = new double[2][taus.length];
    for (int c = 0; c < 2; c++) {
      for (int i = 0; i < taus.length; i++) {
        out[c][i] = 1 - engine.sojourn(pk, c, taus[i]);
      }
    }
    return out;
  }

  /**
   * Over the simulation's accesses (idle share exact, the others from its reservoir), with waits
   * held fixed and the service law replaced: [class]: all late, [2 + class]: one node late.
   */
  private double[][] fixedWaits(
      EngineLaw[] laws,
      double[] taus,
      SharedArrivalSimulation sim,
      SharedArrivalSimulation.Result r,
      SharedArrivalSimulation.Combiner[] combiners) {
    int t = taus.length;
    double[][] out = new double[4][t];
    int grid = GRID * 2;
    double step = Math.max(Arrays.stream(taus).max().orElseThrow(), 1e-9) / grid;
    for (int c = 0; c < 2; c++) {
      long count = r.classCount[c];
      if (count == 0) {
        continue;
      }
      double[] table = new double[grid + 1];
      for (int i = 0; i <= grid; i++) {
        table[i] = engine.survival(laws[c], i * step);
      }
      double idleShare = (double) r.idleCount[c] / count;
      List<double[]> kept = r.reservoir.get(c);
      int k =
          sim.exchangeable
              ? sim.duplicates
              : c == 1 ? engine.strategy().nodes() : engine.readConcurrency();
      double[] late = new double[sim.exchangeable ? sim.copies : Math.max(k, 1)];
      double[] symmetric = new double[k + 1];
      double[] means = new double[k];
      for (int i = 0; i < t; i++) {
        double v0 = engine.survival(laws[c], taus[i]);
        double all = idleShare * SharedArrivalSimulation.idleAllLate(combiners, i, v0, k);
        double one = idleShare * v0;
        if (!kept.isEmpty()) {
          double sumAll = 0;
          double sumOne = 0;
          for (double[] waits : kept) {
            double x = 0;
            for (int j = 0; j < waits.length; j++) {
              late[j] =
                  waits[j] == 0
                      ? v0
                      : SharedArrivalSimulation.lookup(table, step, taus[i] - waits[j]);
              x += late[j];
            }
            sumOne += x / waits.length;
            if (sim.exchangeable) {
              sim.subsetMeans(late, waits.length, waits.length, 0, symmetric, means);
              sumAll += means[k - 1];
            } else {
              sumAll +=
                  combiners == null
                      ? product(late, waits.length)
                      : combiners[i].allLate(late, waits.length);
            }
          }
          all += (1 - idleShare) * sumAll / kept.size();
          one += (1 - idleShare) * sumOne / kept.size();
        }
        out[c][i] = all;
        out[2 + c][i] = one;
      }
    }
    return out;
  }

  private static double product(double[] late, int k) {
    double p = 1;
    for (int j = 0; j < k; j++) {
      p *= late[j];
    }
    return p;
  }

  /**
   * Standard deviation of the log of the bootstrap replicates' miss ratio over the estimate's;
   * {@code c = -1} for the mix.
   */
  double relativeSpread(double[][][] factors, int c, int i, double[][] miss) {
    if (factors == null) {
      return 0;
    }
    int replicates = factors[0].length;
    double[] logs = new double[replicates];
    int n = 0;
    for (int b = 0; b < replicates; b++) {
      double f;
      if (c >= 0) {
        f = factors[c][b][i];
      } else {
        // Only the classes that occur: the other's miss may be undefined (no access simulated).
        double[] share = {1 - writeFraction, writeFraction};
        double m = 0;
        double mb = 0;
        for (int k = 0; k < 2; k++) {
          if (share[k] > 0) {
            m += share[k] * miss[k][i];
            mb += share[k] * miss[k][i] * factors[k][b][i];
          }
        }
        f = m > 0 ? mb / m : 1;
      }
      if (f > 0 && Double.isFinite(f)) {
        logs[n++] = Math.log(f);
      }
    }
    if (n < 2) {
      return 0;
    }
    double mean = 0;
    for (int j = 0; j < n; j++) {
      mean += logs[j];
    }
    mean /= n;
    double s = 0;
    for (int j = 0; j < n; j++) {
      s += (logs[j] - mean) * (logs[j] - mean);
    }
    return Math.sqrt(s / (n - 1));
  }
}
