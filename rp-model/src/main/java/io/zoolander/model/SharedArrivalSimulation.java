package io.zoolander.model;

import io.zoolander.model.internal.SplittableRandomGenerator;
import java.util.ArrayList;
import java.util.List;
import org.apache.commons.math3.random.RandomGenerator;

/**
 * The engine's simulation: Lindley's recursion per node over one shared Poisson arrival stream,
 * with conditional Monte Carlo and a control variate.
 *
 * <p>For each access, the waits {@code W_j} of the nodes it is sent to are known before its service
 * times are drawn, and its service times are independent of them; so instead of drawing them and
 * counting a miss, the access contributes its conditional miss probability {@code prod_j Vbar(tau -
 * W_j)} ({@code Vbar} the survival function of service plus network delay; or the dependence
 * model's chance that all are late), an unbiased estimator with far less variance, that works at
 * any miss ratio (even 1e-60) and for every tau from one run. An access that finds every node idle
 * contributes the constant {@code Vbar(tau)^k}, so only the others cost anything. The control
 * variate is the mean over the nodes of {@code Vbar(tau - W_j)}, whose expectation is the exact
 * single-node M/G/1 miss ratio (every node sees a Poisson stream and PASTA holds). The standard
 * error comes from batch means over consecutive accesses (the accesses are correlated through the
 * queues).
 *
 * <p>Every random source has its own stream (arrivals, class, routing, each node's service), so
 * runs that differ in one input share the draws of the others (common random numbers).
 */
final class SharedArrivalSimulation {
  /**
   * Batches of consecutive accesses whose means give the standard error. 64 rather than fewer: the
   * error of the error is about {@code 1 / sqrt(2 (BATCHES - 1))}, 9% here, and the control
   * variate's coefficient is fitted on the same batches.
   */
  static final int BATCHES = 64;

  static final int RESERVOIR = 256;

  /** A run checks whether it was abandoned every this many accesses plus one. */
  private static final long ABANDON_CHECK_MASK = (1 << 12) - 1;

  private volatile boolean abandoned;

  /** Combines per-node late probabilities into the chance that all are late. */
  interface Combiner {
    double allLate(double[] late, int k);
  }

  static final Combiner INDEPENDENT =
      (late, k) -> {
        double p = 1;
        for (int i = 0; i < k; i++) {
          p *= late[i];
        }
        return p;
      };

  // Configuration.
  /**
   * Every access goes to every node and the services are independent: simulate {@code copies}
   * exchangeable duplicates and average the product over every {@code N}-subset of them (a
   * U-statistic, {@code e_N(late) / C(copies, N)}). Given the arrival stream the duplicates' waits
   * are independent, so this is unbiased for every {@code N <= copies} at once, and it samples the
   * rare coincidences of long waits on several duplicates {@code C(copies, N)} times more often.
   */
  boolean exchangeable;

  int copies;

  /**
   * Exchangeable mode only: each access contributes its expected all-late probability over the gap
   * since the previous arrival, given the backlog that arrival left ({@link #evaluateVirtual}),
   * instead of at the gap drawn for the chain.
   */
  boolean virtualGap;

  private double[] scratch = new double[0];

  int sets;
  int duplicates;
  int readConcurrency;
  boolean prefix; // reads only, sent to every duplicate: results for the first 1..d duplicates
  double ratePerMs; // accesses simulated per ms (all sets simulated)
  double writeFraction;
  EngineLaw[] laws; // [0] reads, [1] writes
  double[][] survivalTable; // [class][i]: P(S + net > i * tableStep)
  double tableStep;
  double[] taus;
  double[][] survivalAtTau; // [class][t]: P(S + net > tau_t), exact
  double[][] singleNodeMiss; // [class][t]: exact M/G/1 miss ratio of one node (control variate)
  Combiner[] combiners; // [t], null for independence
  long accesses;
  long warmup;
  long seed;

  /** What a run measured. */
  static final class Result {
    double[][] miss; // [result][t]
    double[][] standardError; // [result][t]
    long[] classCount = new long[2];
    long[] idleCount = new long[2]; // accesses that found every node they went to idle
    long accesses; // recorded accesses, after warm-up
    final List<List<double[]>> reservoir = List.of(new ArrayList<>(), new ArrayList<>());
  }

  private int nodes() {
    return exchangeable ? copies : sets * duplicates;
  }

  int results() {
    return prefix || exchangeable ? duplicates : 2;
  }

  /** The class of every access in exchangeable mode. */
  private int onlyClass() {
    return writeFraction == 1 ? 1 : 0;
  }

  private double[][] binomial; // [n][k] = C(n, k), k <= duplicates

  private double[] idlePowers = new double[0];

  private void prepareBinomials() {
    int n = copies;
    binomial = new double[n + 1][duplicates + 1];
    for (int i = 0; i <= n; i++) {
      binomial[i][0] = 1;
      for (int k = 1; k <= Math.min(i, duplicates); k++) {
        binomial[i][k] = binomial[i - 1][k - 1] + (k <= i - 1 ? binomial[i - 1][k] : 0);
      }
    }
  }

  /**
   * {@code e_N(late_0..late_{m-1}) / C(m, N)} for {@code N = 1..out.length}, {@code m >=
   * out.length}: the mean over every {@code N}-subset of the product of its late probabilities. The
   * first {@code busy} entries are the busy nodes' values; the other {@code m - busy} are all
   * {@code idleLate}.
   */
  void subsetMeans(double[] late, int busy, int m, double idleLate, double[] e, double[] out) {
    int maxN = out.length;
    java.util.Arrays.fill(e, 0, maxN + 1, 0);
    e[0] = 1;
    for (int i = 0; i < busy; i++) {
      double v = late[i];
      for (int j = Math.min(i + 1, maxN); j >= 1; j--) {
        e[j] += e[j - 1] * v;
      }
    }
    int idle = m - busy;
    if (idlePowers.length < maxN + 1) {
      idlePowers = new double[maxN + 1];
    }
    idlePowers[0] = 1;
    for (int j = 1; j <= Math.min(maxN, idle); j++) {
      idlePowers[j] = idlePowers[j - 1] * idleLate;
    }
    for (int n = 1; n <= maxN; n++) {
      double sum = 0;
      for (int j = Math.min(n, busy); j >= 0; j--) {
        // j busy nodes and n - j idle ones
        int fromIdle = n - j;
        if (fromIdle > idle) {
          break;
        }
        sum += e[j] * binomial[idle][fromIdle] * idlePowers[fromIdle];
      }
      out[n - 1] = sum / binomial[m][n];
    }
  }

  /**
   * Stops a run under way on another thread at its next check (within {@code ABANDON_CHECK_MASK +
   * 1} accesses): its {@link #run()} then returns null.
   */
  void abandon() {
    abandoned = true;
  }

  /**
   * Runs the simulation as configured.
   *
   * @return what it measured, or null if it was {@linkplain #abandon() abandoned}
   */
  Result run() {
    final int nodes = nodes();
    final int t = taus.length;
    if (exchangeable) {
      prepareBinomials();
    }
    final double[] symmetric = new double[duplicates + 1];
    final double[] means = new double[duplicates];
    final int results = results();
    final double[][][] sumY = new double[results][t][BATCHES];
    final double[][][] sumX = new double[2][t][BATCHES];
    final long[][] count = new long[2][BATCHES];
    final long[][] idle = new long[2][BATCHES];

    SplittableRandomGenerator root = new SplittableRandomGenerator(seed);
    final SplittableRandomGenerator arrivals = root.split();
    final SplittableRandomGenerator classes = root.split();
    final SplittableRandomGenerator routing = root.split();
    final SplittableRandomGenerator reservoirRng = root.split();
    final RandomGenerator[] service = new RandomGenerator[nodes];
    for (int n = 0; n < nodes; n++) {
      service[n] = root.split();
    }
    final SplittableRandomGenerator virtual = root.split(); // after the others: they are unchanged
    scratch = new double[nodes];
    final double meanGap = ratePerMs > 0 ? 1 / ratePerMs : 1e300; // no load: every node idle
    final double[] freeAt = new double[nodes];
    final int[] touched = new int[nodes];
    final int[] permutation = new int[duplicates];
    final double[] waits = new double[nodes];
    final double[] late = new double[nodes];
    final long[] seen = new long[2];
    Result result = new Result();
    final long total = warmup + accesses;
    final long perBatch = Math.max(1, (accesses + BATCHES - 1) / BATCHES);
    double now = 0;
    for (long i = 0; i < total; i++) {
      if ((i & ABANDON_CHECK_MASK) == 0 && abandoned) {
        return null;
      }
      if (virtualGap && i >= warmup) {
        int b = (int) Math.min(BATCHES - 1, (i - warmup) / perBatch);
        evaluateVirtual(freeAt, now, virtual, waits, late, b, sumY, sumX, symmetric, means);
      }
      now += -meanGap * Math.log(1 - arrivals.nextDouble());
      if (now > 1e6) {
        for (int n = 0; n < nodes; n++) {
          freeAt[n] -= now;
        }
        now = 0;
      }
      final int cls =
          exchangeable
              ? onlyClass()
              : writeFraction > 0 && classes.nextDouble() < writeFraction ? 1 : 0;
      int k;
      if (cls == 1 || exchangeable) {
        k = nodes;
        for (int n = 0; n < nodes; n++) {
          touched[n] = n;
        }
      } else {
        int base = sets == 1 ? 0 : routing.nextInt(sets) * duplicates;
        k = readConcurrency;
        if (k == duplicates) {
          for (int j = 0; j < k; j++) {
            touched[j] = base + j;
          }
        } else {
          for (int j = 0; j < duplicates; j++) {
            permutation[j] = j;
          }
          for (int j = 0; j < k; j++) {
            int pick = j + routing.nextInt(duplicates - j);
            int swap = permutation[pick];
            permutation[pick] = permutation[j];
            permutation[j] = swap;
            touched[j] = base + swap;
          }
        }
      }
      boolean anyWait = false;
      for (int j = 0; j < k; j++) {
        double w = freeAt[touched[j]] - now;
        if (w > 0) {
          waits[j] = w;
          anyWait = true;
        } else {
          waits[j] = 0;
        }
      }
      final long recorded = i - warmup;
      if (recorded >= 0) {
        final int b = (int) Math.min(BATCHES - 1, recorded / perBatch);
        count[cls][b]++;
        if (!anyWait) {
          idle[cls][b]++;
        } else {
          if (virtualGap) {
            // Counted by evaluateVirtual.
          } else if (exchangeable) {
            evaluateExchangeable(cls, k, waits, late, b, sumY, sumX, symmetric, means);
          } else {
            evaluate(cls, k, waits, late, b, sumY, sumX);
          }
          long s = ++seen[cls];
          List<double[]> kept = result.reservoir.get(cls);
          if (kept.size() < RESERVOIR) {
            kept.add(java.util.Arrays.copyOf(waits, k));
          } else {
            long r = (long) (reservoirRng.nextDouble() * s);
            if (r < RESERVOIR) {
              kept.set((int) r, java.util.Arrays.copyOf(waits, k));
            }
          }
        }
      }
      final EngineLaw law = laws[cls];
      if (law.samplesByUniform()) {
        for (int j = 0; j < k; j++) {
          int n = touched[j];
          freeAt[n] = now + waits[j] + law.sample(service[n].nextDouble(), null);
        }
      } else {
        for (int j = 0; j < k; j++) {
          int n = touched[j];
          freeAt[n] = now + waits[j] + law.sample(0, service[n]);
        }
      }
    }
    finish(result, sumY, sumX, count, idle);
    result.accesses = total - warmup;
    return result;
  }

  double survival(int cls, double x) {
    return lookup(survivalTable[cls], tableStep, x);
  }

  /**
   * A survival function tabulated at {@code 0, step, 2 step...}, at {@code x}: linear between two
   * cells, 1 below 0, the last cell beyond the table.
   */
  static double lookup(double[] table, double step, double x) {
    if (x < 0) {
      return 1;
    }
    double pos = x / step;
    int i = (int) pos;
    if (i >= table.length - 1) {
      return table[table.length - 1];
    }
    double f = pos - i;
    return table[i] + f * (table[i + 1] - table[i]);
  }

  private void evaluate(
      int cls, int k, double[] waits, double[] late, int b, double[][][] sumY, double[][][] sumX) {
    final double[] atTau = survivalAtTau[cls];
    for (int ti = 0; ti < taus.length; ti++) {
      final double tau = taus[ti];
      double x = 0;
      double product = 1;
      for (int j = 0; j < k; j++) {
        double v = waits[j] == 0 ? atTau[ti] : survival(cls, tau - waits[j]);
        late[j] = v;
        x += v;
        product *= v;
        if (prefix && combiners == null) {
          sumY[j][ti][b] += product;
        }
      }
      sumX[cls][ti][b] += x / k;
      if (combiners != null) {
        if (prefix) {
          double[] buffer = new double[k];
          for (int j = 0; j < k; j++) {
            System.arraycopy(late, 0, buffer, 0, j + 1);
            sumY[j][ti][b] += combiners[ti].allLate(buffer, j + 1);
          }
        } else {
          sumY[cls][ti][b] += combiners[ti].allLate(late, k);
        }
      } else if (!prefix) {
        sumY[cls][ti][b] += product;
      }
    }
  }

  /**
   * Conditional Monte Carlo over the gap, for the access about to arrive: given the backlog {@code
   * V_j} each copy has at the previous arrival ({@code freeAt - now}), the access finds waits
   * {@code (V_j - g)^+} after an exponential gap {@code g}, so its all-late probability is {@code
   * e^{-lambda Vmax} U_idle + int_0^Vmax lambda e^{-lambda g} U(g) dg}, with {@code U(g)} the
   * subset mean of the late probabilities at those waits. The integral is estimated from one gap
   * drawn from an even mixture of the truncated exponential law, the uniform law on {@code [0,
   * Vmax]} and the uniform law on {@code [0, V_(N)]} (the N-th longest backlog); the weights are at
   * most 3. So at low load, where an arrival right behind another is rare but makes the misses,
   * every access samples that window. Unbiased for the access's contribution (the next gap is
   * independent of the past); the gap the chain moves on is drawn independently of this one.
   */
  private void evaluateVirtual(
      double[] freeAt,
      double now,
      SplittableRandomGenerator rng,
      double[] waits,
      double[] late,
      int b,
      double[][][] sumY,
      double[][][] sumX,
      double[] symmetric,
      double[] means) {
    final int cls = onlyClass();
    final int k = copies;
    final double lambda = ratePerMs;
    double vmax = 0;
    int busyNow = 0;
    for (int j = 0; j < k; j++) {
      double v = freeAt[j] - now;
      waits[j] = v;
      vmax = Math.max(vmax, v);
      busyNow += v > 0 ? 1 : 0;
    }
    final double q = lambda > 0 ? oneMinusExp(lambda * vmax) : 0; // P(gap < Vmax)
    double weight = 0;
    if (q > 0) {
      // The N-th longest backlog: beyond it fewer than N copies are busy, and a subset is all late
      // only through idle copies' own service times.
      double vn = busyNow < duplicates ? 0 : nthLargest(waits, k, duplicates, busyNow, scratch);
      double pick = rng.nextDouble();
      double g;
      if (pick < 1.0 / 3 || vn <= 0) {
        g =
            pick < 1.0 / 3
                ? minusLogOneMinus(rng.nextDouble() * q) / lambda
                : rng.nextDouble() * vmax;
      } else if (pick < 2.0 / 3) {
        g = rng.nextDouble() * vmax;
      } else {
        g = rng.nextDouble() * vn;
      }
      g = Math.min(g, vmax);
      double density = lambda * Math.exp(-lambda * g);
      double proposal =
          vn > 0
              ? (density / q + 1 / vmax + (g < vn ? 1 / vn : 0)) / 3
              : (density / q + 1 / vmax) / 2;
      weight = density / proposal;
      for (int j = 0; j < k; j++) {
        waits[j] = Math.max(0, waits[j] - g);
      }
    }
    final double tail = 1 - q;
    final double[] atTau = survivalAtTau[cls];
    for (int ti = 0; ti < taus.length; ti++) {
      final double v0 = atTau[ti];
      double idleX = tail * v0;
      if (weight > 0) {
        int busy = lateOfBusy(cls, taus[ti], waits, k, late);
        double x = sum(late, busy) + (k - busy) * v0;
        sumX[cls][ti][b] += idleX + weight * x / k;
        subsetMeans(late, busy, k, v0, symmetric, means);
      } else {
        sumX[cls][ti][b] += idleX;
      }
      double power = 1;
      for (int n = 0; n < duplicates; n++) {
        power *= v0;
        sumY[n][ti][b] += tail * power + (weight > 0 ? weight * means[n] : 0);
      }
    }
  }

  /**
   * {@code 1 - e^{-x}} for {@code x >= 0}, accurate to about 1e-11 relative. {@code
   * -Math.expm1(-x)} is exact but a native call on Java 17 (it and {@link #minusLogOneMinus} were a
   * third of a simulated prediction's time, once per access); below 1e-5 the series' next term is
   * under 1e-20 relative.
   */
  static double oneMinusExp(double x) {
    return x > 1e-5 ? 1 - Math.exp(-x) : x * (1 - x / 2 * (1 - x / 3));
  }

  /** {@code -ln(1 - y)} for {@code 0 <= y < 1}, as {@link #oneMinusExp}: for what it replaced. */
  static double minusLogOneMinus(double y) {
    return y > 1e-5 ? -Math.log(1 - y) : y * (1 + y * (0.5 + y / 3));
  }

  /**
   * The {@code n}-th largest of {@code values[0..k)}, of which {@code positive >= n} are positive.
   * Near either end (the largest two, or the smallest two positive values) by keeping those seen,
   * sorted in {@code kept}; in the middle by counting, for each positive value, the values above it
   * and not below it, without branches (sorted insertion there mispredicts its way to twice the
   * cost). A selection over a copy of all {@code k} cost several times either.
   */
  static double nthLargest(double[] values, int k, int n, int positive, double[] kept) {
    int smallest = positive - n + 1; // the n-th largest is the smallest-th smallest positive one
    if (smallest <= 2) {
      int size = 0; // kept[0..size): ascending
      for (int j = 0; j < k; j++) {
        double v = values[j];
        if (v > 0 && (size < smallest || v < kept[smallest - 1])) {
          int i = size < smallest ? size++ : smallest - 1;
          for (; i > 0 && kept[i - 1] > v; i--) {
            kept[i] = kept[i - 1];
          }
          kept[i] = v;
        }
      }
      return kept[smallest - 1];
    }
    if (n <= 2) {
      int size = 0; // kept[0..size): descending
      for (int j = 0; j < k; j++) {
        double v = values[j];
        if (v > 0 && (size < n || v > kept[n - 1])) {
          int i = size < n ? size++ : n - 1;
          for (; i > 0 && kept[i - 1] < v; i--) {
            kept[i] = kept[i - 1];
          }
          kept[i] = v;
        }
      }
      return kept[n - 1];
    }
    for (int i = 0; i < k; i++) {
      double v = values[i];
      if (v <= 0) {
        continue;
      }
      int greater = 0;
      int atLeast = 0;
      for (int j = 0; j < k; j++) {
        double w = values[j];
        greater += w > v ? 1 : 0;
        atLeast += w >= v ? 1 : 0;
      }
      if (greater < n && n <= atLeast) {
        return v;
      }
    }
    throw new AssertionError("fewer than " + n + " positive values");
  }

  /**
   * The chance that each busy copy ({@code waits[j] > 0}) is late at {@code tau}, into {@code
   * late[0..busy)} in copy order; returns {@code busy}.
   */
  private int lateOfBusy(int cls, double tau, double[] waits, int k, double[] late) {
    int busy = 0;
    for (int j = 0; j < k; j++) {
      if (waits[j] > 0) {
        late[busy++] = survival(cls, tau - waits[j]);
      }
    }
    return busy;
  }

  /** {@code values[0] + ... + values[n - 1]}, added in that order. */
  private static double sum(double[] values, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) {
      s += values[i];
    }
    return s;
  }

  private void evaluateExchangeable(
      int cls,
      int k,
      double[] waits,
      double[] late,
      int b,
      double[][][] sumY,
      double[][][] sumX,
      double[] symmetric,
      double[] means) {
    final double[] atTau = survivalAtTau[cls];
    for (int ti = 0; ti < taus.length; ti++) {
      final double v0 = atTau[ti];
      int busy = lateOfBusy(cls, taus[ti], waits, k, late);
      double x = sum(late, busy) + (k - busy) * v0;
      sumX[cls][ti][b] += x / k;
      subsetMeans(late, busy, k, v0, symmetric, means);
      for (int n = 0; n < duplicates; n++) {
        sumY[n][ti][b] += means[n];
      }
    }
  }

  /** The chance that all {@code k} nodes are late when each is late with {@code v} and idle. */
  double idleAllLate(int ti, double v, int k) {
    return idleAllLate(combiners, ti, v, k);
  }

  /**
   * As {@link #idleAllLate(int, double, int)}, combined by {@code combiners} (null: independent).
   */
  static double idleAllLate(Combiner[] combiners, int ti, double v, int k) {
    if (combiners == null) {
      return Math.pow(v, k);
    }
    double[] late = new double[k];
    java.util.Arrays.fill(late, v);
    return combiners[ti].allLate(late, k);
  }

  private void finish(
      Result result, double[][][] sumY, double[][][] sumX, long[][] count, long[][] idle) {
    int results = results();
    result.miss = new double[results][taus.length];
    result.standardError = new double[results][taus.length];
    for (int c = 0; c < 2; c++) {
      result.classCount[c] = 0;
      result.idleCount[c] = 0;
      for (int b = 0; b < BATCHES; b++) {
        result.classCount[c] += count[c][b];
        result.idleCount[c] += idle[c][b];
      }
    }
    double[] y = new double[BATCHES];
    double[] x = new double[BATCHES];
    double[] w = new double[BATCHES];
    for (int r = 0; r < results; r++) {
      int cls = exchangeable ? onlyClass() : prefix ? 0 : r;
      int k = prefix || exchangeable ? r + 1 : (cls == 1 ? nodes() : readConcurrency);
      for (int ti = 0; ti < taus.length; ti++) {
        double v0 = survivalAtTau[cls][ti];
        double idleY = idleAllLate(ti, v0, k);
        int used = 0;
        double totalY = 0;
        double totalX = 0;
        double totalW = 0;
        for (int b = 0; b < BATCHES; b++) {
          double n = count[cls][b];
          if (n == 0) {
            continue;
          }
          double idleShare = virtualGap ? 0 : idle[cls][b]; // virtual: every access is in the sums
          y[used] = sumY[r][ti][b] + idleShare * idleY;
          x[used] = sumX[cls][ti][b] + idleShare * v0;
          w[used] = n;
          totalY += y[used];
          totalX += x[used];
          totalW += n;
          used++;
        }
        if (totalW == 0) {
          result.miss[r][ti] = Double.NaN;
          result.standardError[r][ti] = Double.NaN;
          continue;
        }
        double meanY = totalY / totalW;
        double meanX = totalX / totalW;
        double meanW = totalW / used;
        // Batch residuals (sum - mean * count) / mean count, whose spread is the batch-means error
        // (the counts are equal but for the last batch).
        for (int b = 0; b < used; b++) {
          y[b] = (y[b] - meanY * w[b]) / meanW;
          x[b] = (x[b] - meanX * w[b]) / meanW;
        }
        double estimate = meanY;
        double se = residualStandardError(y, x, used, 0);
        double exact = singleNodeMiss[cls][ti];
        double xx = dot(x, x, used);
        if (used > 2 && xx > 0) {
          double beta = dot(y, x, used) / xx;
          double adjusted = meanY - beta * (meanX - exact);
          double adjustedSe = residualStandardError(y, x, used, beta);
          if (adjustedSe < se && adjusted > 0) {
            estimate = adjusted;
            se = adjustedSe;
          }
        }
        result.miss[r][ti] = Math.max(0, Math.min(1, estimate));
        result.standardError[r][ti] = se;
      }
    }
  }

  private static double dot(double[] a, double[] b, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) {
      s += a[i] * b[i];
    }
    return s;
  }

  /** Standard error of the mean from {@code n} batch residuals {@code y - beta x} (mean zero). */
  private static double residualStandardError(double[] y, double[] x, int n, double beta) {
    if (n < 2) {
      return 0;
    }
    double s = 0;
    for (int i = 0; i < n; i++) {
      double z = y[i] - beta * x[i];
      s += z * z;
    }
    return Math.sqrt(s / (n - 1) / n);
  }
}
