package io.zoolander.model;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.commons.math3.random.Well19937c;

/**
 * The engine against the project's simulator ({@link Simulation}), run separately: every point of
 * the grid is simulated with 10^6 recorded accesses (8 independent replications of 125 000, seeds
 * unrelated to the engine's), so the simulation's standard error comes from the spread of the
 * replications (floored at the Poisson error of the misses it counted, that of one miss when it
 * counted none).
 *
 * <p>Criterion at every point, the issue's: the predicted miss ratio within 10% (relative) of the
 * simulated one, or within 2 Monte-Carlo standard errors, whichever is wider. Where the engine
 * simulates, its prediction is itself a Monte-Carlo estimate, independent of the reference
 * simulation, so "2 standard errors" is read as 2 standard errors of the difference of the two
 * estimates, {@code 2 sqrt(se_sim^2 + se_engine^2)} (where the engine is exact, {@code se_engine =
 * 0} and this is the simulation's alone). This is the only reading: no second stage, no weaker
 * check anywhere. The table it prints is the one in {@code docs/model.md}.
 *
 * <p>Grid: four service laws (log-normal, log-normal with exponential anomalies, Pareto with tail
 * index 1.5, and a sample shaped like ZooKeeper getData on loopback: p50 0.35 ms, p99 2.5 ms, p99.9
 * 7.5 ms); utilisation per duplicate 1%, 10%, 30%, 60%; N = 1, 2, 4, 8, 16 (every N for the
 * log-normal and ZooKeeper laws, N = 1, 4, 16 for the others, to stay within a minute); tau at the
 * service time's p50, p90, p99, p99.9 and p99.99.
 *
 * <p><b>Not yet a test of the default suite</b>: at the last run 9 of the 320 points are outside
 * the criterion (docs/model.md lists them), so issue 18's "accuracy test in the default suite" is
 * not met. Until the engine meets it everywhere, this is a report; it exits with status 1 and names
 * the failing points. Run:
 *
 * <pre>mvn -q -pl rp-model test-compile exec:java -Dexec.classpathScope=test \
 *     -Dexec.mainClass=io.zoolander.model.EngineAccuracyReport</pre>
 */
public final class EngineAccuracyReport {
  private static final int REPLICATIONS = 8;
  private static final int ACCESSES_PER_REPLICATION = 125_000;
  private static final double[] UTILISATIONS = {0.01, 0.10, 0.30, 0.60};
  private static final double[] QUANTILES = {0.5, 0.9, 0.99, 0.999, 0.9999};

  @SuppressWarnings("ArrayRecordComponent") // constant grid data, never compared or hashed
  record Law(String name, LatencyDistribution distribution, int[] duplicates) {}

  /** A ZooKeeper getData-like sample: log-normal body, 3% anomalies of 0.5 ms + Exp(2.2 ms). */
  static EmpiricalLatency zooKeeperLike() {
    LatencyDistribution shape =
        LatencyDistributions.anomalyMixture(
            LatencyDistributions.logNormal(Math.log(0.34), 0.4),
            LatencyDistributions.shifted(LatencyDistributions.exponential(2.2), 0.5),
            0.03);
    double[] samples = new double[100_000];
    Well19937c rng = new Well19937c(2024);
    for (int i = 0; i < samples.length; i++) {
      samples[i] = Math.rint(shape.sample(rng) * 1000) / 1000; // microsecond resolution
    }
    return EmpiricalLatency.of(samples);
  }

  /**
   * A sample of a law, as a user measures one. For the Pareto law a sample is also what makes the
   * comparison possible: with an unbounded tail of index 1.5 the waiting time's tail decays like
   * {@code x^-0.5} and a simulation of 10^6 accesses has not converged (it under-estimates the
   * stationary miss ratio at p99.99 under load by up to 2x), while with a sample both the engine
   * and the simulator see the same bounded law.
   */
  static EmpiricalLatency sample(LatencyDistribution law, int n, long seed) {
    double[] samples = new double[n];
    Well19937c rng = new Well19937c(seed);
    for (int i = 0; i < n; i++) {
      samples[i] = law.sample(rng);
    }
    return EmpiricalLatency.of(samples);
  }

  static List<Law> laws() {
    int[] all = {1, 2, 4, 8, 16};
    int[] some = {1, 4, 16};
    return List.of(
        new Law("log-normal (mean 1, Cv 1)", LatencyDistributions.logNormalWithMean(1, 1), all),
        new Law(
            "log-normal + 1% Exp(20) anomalies",
            LatencyDistributions.anomalyMixture(
                LatencyDistributions.logNormalWithMean(1, 0.25),
                LatencyDistributions.shifted(LatencyDistributions.exponential(20), 1),
                0.01),
            some),
        new Law(
            "Pareto sample (alpha 1.5, mean 1, 100k)",
            sample(LatencyDistributions.pareto(1.0 / 3, 1.5), 100_000, 15),
            some),
        new Law("ZooKeeper getData-like sample (100k)", zooKeeperLike(), all));
  }

  record Point(
      String law,
      double utilisation,
      int duplicates,
      double quantile,
      double tau,
      double simulated,
      double simulatedError,
      double predicted,
      double low,
      double high,
      double engineError) {
    /** 10% relative, or 2 standard errors of the difference of two Monte-Carlo estimates. */
    double bound() {
      return Math.max(0.1 * simulated, 2 * Math.hypot(simulatedError, engineError));
    }

    boolean passes() {
      return Math.abs(predicted - simulated) <= bound();
    }
  }

  /** Simulated miss ratios at each tau and their standard errors. */
  @SuppressWarnings("ArrayRecordComponent") // read by index, never compared or hashed
  record Reference(double[] mean, double[] error) {}

  /**
   * {@link #REPLICATIONS} independent runs of {@code accesses} each; the standard error from their
   * spread, floored at the Poisson error of the misses counted (of one miss if none).
   */
  static Reference simulate(
      LatencyDistribution s, double rate, int n, double[] taus, int accesses, int stage) {
    double[][] misses = new double[REPLICATIONS][taus.length];
    for (int rep = 0; rep < REPLICATIONS; rep++) {
      SimulationResult r =
          Simulation.builder()
              .strategy(Strategy.predictability(n))
              .serviceTime(s)
              .arrivalRatePerSec(rate)
              .accesses(accesses)
              .warmupAccesses(10_000)
              .pairedSampleLimit(0)
              .seed(1_000_003L * (rep + 1) + 17L * n + 7_919L * stage)
              .build()
              .run();
      for (int i = 0; i < taus.length; i++) {
        misses[rep][i] = 1 - r.sla(taus[i]);
      }
    }
    double[] mean = new double[taus.length];
    double[] error = new double[taus.length];
    double total = (double) REPLICATIONS * accesses;
    for (int i = 0; i < taus.length; i++) {
      for (double[] m : misses) {
        mean[i] += m[i] / REPLICATIONS;
      }
      double var = 0;
      for (double[] m : misses) {
        var += (m[i] - mean[i]) * (m[i] - mean[i]) / (REPLICATIONS - 1);
      }
      double poisson = Math.sqrt(Math.max(mean[i] * total, 1)) / total;
      error[i] = Math.max(Math.sqrt(var / REPLICATIONS), poisson);
    }
    return new Reference(mean, error);
  }

  private EngineAccuracyReport() {}

  public static void main(String[] args) {
    List<Point> points = new ArrayList<>();
    long engineNanos = 0;
    int engineRuns = 0;
    double slowest = 0;
    for (Law law : laws()) {
      LatencyDistribution s = law.distribution();
      double[] taus = new double[QUANTILES.length];
      for (int i = 0; i < taus.length; i++) {
        // Just above the quantile: a sample's quantile is one of its values (an atom), and the
        // simulator computes a reply as (arrival + service) - arrival, which rounds to either side
        // of tau; 1e-7 relative is far above that rounding and below the gap to the next value.
        taus[i] = s.quantile(QUANTILES[i]) * (1 + 1e-7);
      }
      for (double u : UTILISATIONS) {
        double rate = u * 1000 / s.meanMs();
        for (int n : law.duplicates()) {
          Reference first = simulate(s, rate, n, taus, ACCESSES_PER_REPLICATION, 0);
          SlaEngine engine =
              SlaEngine.builder()
                  .strategy(Strategy.predictability(n))
                  .serviceTime(s)
                  .arrivalRatePerSec(rate)
                  .build();
          long start = System.nanoTime();
          MissCurve curve = engine.missCurve(taus);
          long nanos = System.nanoTime() - start;
          engineNanos += nanos;
          engineRuns++;
          slowest = Math.max(slowest, nanos / 1e6);
          for (int i = 0; i < taus.length; i++) {
            SlaEstimate e = curve.all().get(i);
            Point p =
                new Point(
                    law.name(),
                    u,
                    n,
                    QUANTILES[i],
                    taus[i],
                    first.mean()[i],
                    first.error()[i],
                    e.missRatio(),
                    e.missLow(),
                    e.missHigh(),
                    e.monteCarloStandardError());
            points.add(p);
          }
        }
      }
    }
    print(points, engineNanos / 1e6 / engineRuns, slowest);
    List<Point> failures = points.stream().filter(p -> !p.passes()).toList();
    System.out.printf("%n%d of %d points outside the criterion%n", failures.size(), points.size());
    failures.forEach(f -> System.out.println("  " + f));
    if (!failures.isEmpty()) {
      System.exit(1);
    }
  }

  private static void print(List<Point> points, double meanEngineMs, double slowestMs) {
    StringBuilder out = new StringBuilder();
    out.append(
        "| law | rho | N | tau (quantile) | simulated miss | sim. s.e. | predicted miss | engine"
            + " s.e. | engine interval | error | bound |\n");
    out.append("|---|---:|---:|---|---:|---:|---:|---:|---|---:|---:|\n");
    double worstRelative = 0;
    int informative = 0;
    for (Point p : points) {
      double error = p.predicted() - p.simulated();
      out.append(
          String.format(
              Locale.ROOT,
              "| %s | %.0f%% | %d | %.4g ms (p%s) | %.3g | %.2g | %.3g | %.2g | %.3g..%.3g | %+.2g | %.2g%s"
                  + " |%n",
              p.law(),
              100 * p.utilisation(),
              p.duplicates(),
              p.tau(),
              trim(100 * p.quantile()),
              p.simulated(),
              p.simulatedError(),
              p.predicted(),
              p.engineError(),
              p.low(),
              p.high(),
              error,
              p.bound(),
              p.passes() ? "" : " FAIL"));
      if (p.simulated() * REPLICATIONS * ACCESSES_PER_REPLICATION >= 100) { // >= 100 misses
        informative++;
        worstRelative = Math.max(worstRelative, Math.abs(error) / p.simulated());
      }
    }
    long passing = points.stream().filter(Point::passes).count();
    Point worst =
        points.stream()
            .max(
                java.util.Comparator.comparingDouble(
                    p -> Math.abs(p.predicted() - p.simulated()) / p.bound()))
            .orElseThrow();
    out.append(
        String.format(
            Locale.ROOT,
            "%n%d points, %d within the criterion; largest |error| / bound %.2f (%s, rho %.0f%%, N = %d,"
                + " p%s); %d points with >= 100 simulated misses, worst relative error among them"
                + " %.1f%%; engine %.1f ms per curve of %d bounds (slowest %.0f ms)%n",
            points.size(),
            passing,
            Math.abs(worst.predicted() - worst.simulated()) / worst.bound(),
            worst.law(),
            100 * worst.utilisation(),
            worst.duplicates(),
            trim(100 * worst.quantile()),
            informative,
            100 * worstRelative,
            meanEngineMs,
            QUANTILES.length,
            slowestMs));
    System.out.println(out);
  }

  private static String trim(double percent) {
    String s = String.format(Locale.ROOT, "%.2f", percent);
    return s.replaceAll("\\.?0+$", "");
  }
}
