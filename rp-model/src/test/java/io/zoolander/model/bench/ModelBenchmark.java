package io.zoolander.model.bench;

import io.zoolander.model.Deployment;
import io.zoolander.model.DistributionModel;
import io.zoolander.model.EmpiricalLatency;
import io.zoolander.model.LatencyDistribution;
import io.zoolander.model.Planner;
import io.zoolander.model.SlaEngine;
import io.zoolander.model.Strategy;
import io.zoolander.model.ThesisModel;
import io.zoolander.model.TradeOff;
import java.lang.management.ManagementFactory;
import java.util.function.DoubleSupplier;
import java.util.function.Supplier;
import org.apache.commons.math3.random.Well19937c;

/**
 * Plain cost benchmark of the predictor and planner (not a test; JMH benchmarks live in their own
 * module). Run:
 *
 * <pre>mvn -q -pl rp-model test-compile exec:java -Dexec.classpathScope=test \
 *     -Dexec.mainClass=io.zoolander.model.bench.ModelBenchmark</pre>
 */
public final class ModelBenchmark {
  /**
   * The process's CPU time, beside the wall-clock time: a simulated prediction runs its pilot and
   * its measured run in parallel, so on several cores the two differ.
   */
  private static final com.sun.management.OperatingSystemMXBean PROCESS =
      (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

  private ModelBenchmark() {}

  public static void main(String[] args) {
    LatencyDistribution writes = TradeOff.thesisLikeWrites();
    Well19937c rng = new Well19937c(1);
    double[] samples = new double[100_000];
    for (int i = 0; i < samples.length; i++) {
      samples[i] = writes.sample(rng);
    }
    EmpiricalLatency empirical = EmpiricalLatency.of(samples);
    double tau = 2 * writes.meanMs();
    Deployment sixteen = Deployment.homogeneous(16, empirical, 20);
    ThesisModel thesis = ThesisModel.create();
    DistributionModel distribution = DistributionModel.create();
    Planner planner = Planner.builder().serviceTime(empirical).tauMs(tau).build();

    report(
        "thesis model, N=16, 100k-sample empirical",
        200_000,
        () -> thesis.predict(sixteen, tau).sla());
    report(
        "distribution model (1024 cells), N=16, 100k-sample empirical",
        200,
        () -> distribution.predict(sixteen, tau).sla());
    report(
        "planner best() over all strategies for 32 nodes", 200, () -> planner.best(32, 20).sla());
    report(
        "planner maxArrivalRate() for 32 nodes",
        20,
        () -> planner.maxArrivalRate(0.999, 32).orElseThrow().sla());

    // The engine: one configuration = one predict() with its interval, 100k-sample input.
    double body = empirical.quantile(0.9);
    for (double rho : new double[] {0.1, 0.6}) {
      for (int n : new int[] {1, 2, 4, 8, 16}) {
        SlaEngine engine =
            SlaEngine.builder()
                .strategy(Strategy.predictability(n))
                .serviceTime(empirical)
                .arrivalRatePerSec(rho * 1000 / empirical.meanMs())
                .build();
        report(
            String.format("engine predict(), rho %.1f, N=%d, tau=p90", rho, n),
            10,
            () -> engine.predict(body).sla());
      }
    }
    // A new planner per call: a planner keeps its last evaluateAll, which would be measured
    // instead.
    Supplier<Planner> enginePlanner =
        () -> Planner.builder().engine().serviceTime(empirical).tauMs(tau).build();
    report(
        "engine planner best() over all strategies for 32 nodes, rate 500/s",
        3,
        () -> enginePlanner.get().best(32, 500).sla());
    report(
        "engine planner fewestNodes(0.999) within 32 nodes, rate 500/s",
        3,
        () -> enginePlanner.get().fewestNodes(0.999, 500, 32).map(Planner.Plan::sla).orElse(0.0));
    report(
        "engine planner maxArrivalRate(0.999) within 32 nodes",
        3,
        () ->
            enginePlanner
                .get()
                .maxArrivalRate(0.999, 32)
                .map(Planner.Plan::arrivalRatePerSec)
                .orElse(0.0));
  }

  private static void report(String name, int iterations, DoubleSupplier work) {
    double sink = 0;
    for (int i = 0; i < iterations; i++) { // warm-up
      sink += work.getAsDouble();
    }
    long cpuStart = PROCESS.getProcessCpuTime();
    long start = System.nanoTime();
    for (int i = 0; i < iterations; i++) {
      sink += work.getAsDouble();
    }
    double perCallUs = (System.nanoTime() - start) / 1e3 / iterations;
    double cpuPerCallUs = (PROCESS.getProcessCpuTime() - cpuStart) / 1e3 / iterations;
    System.out.printf(
        "%-65s %12.2f us/call %12.2f us CPU/call   (checksum %.3f)%n",
        name, perCallUs, cpuPerCallUs, sink);
  }
}
