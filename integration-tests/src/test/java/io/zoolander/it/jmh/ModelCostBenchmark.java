package io.zoolander.it.jmh;

import io.zoolander.model.CommonShock;
import io.zoolander.model.Deployment;
import io.zoolander.model.DistributionModel;
import io.zoolander.model.EmpiricalLatency;
import io.zoolander.model.LatencyDistribution;
import io.zoolander.model.Planner;
import io.zoolander.model.ThesisModel;
import io.zoolander.model.TradeOff;
import java.util.concurrent.TimeUnit;
import org.apache.commons.math3.random.Well19937c;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Cost of one SLA prediction and of one planning question, the calls an operator's "what if", the
 * admission check and the planner make. Every input is built once: a 100,000-sample empirical
 * service-time distribution drawn from the thesis-like write distribution ({@link
 * TradeOff#thesisLikeWrites()}), tau twice its mean, 20 arrivals/s, and for the correlated case a
 * {@link CommonShock} estimated from 100,000 paired samples of 4 duplicates in which 1% of accesses
 * are slow on all four at once.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class ModelCostBenchmark {
  private static final int SAMPLES = 100_000;
  private static final int PAIRED_DUPLICATES = 4;
  private static final double SHARED_SLOWDOWN_PROBABILITY = 0.01;
  private static final double ARRIVALS_PER_SEC = 20;

  private Deployment sixteen;
  private double tauMs;
  private ThesisModel thesis;
  private ThesisModel thesisCommonShock;
  private DistributionModel distribution;
  private Planner planner;

  @Setup(Level.Trial)
  public void setUp() {
    LatencyDistribution writes = TradeOff.thesisLikeWrites();
    Well19937c rng = new Well19937c(1);
    double[] samples = new double[SAMPLES];
    for (int i = 0; i < SAMPLES; i++) {
      samples[i] = writes.sample(rng);
    }
    EmpiricalLatency empirical = EmpiricalLatency.of(samples);
    tauMs = 2 * writes.meanMs();
    sixteen = Deployment.homogeneous(16, empirical, ARRIVALS_PER_SEC);
    thesis = ThesisModel.create();
    distribution = DistributionModel.create();
    planner = Planner.builder().serviceTime(empirical).tauMs(tauMs).build();

    double[][] paired = new double[SAMPLES][PAIRED_DUPLICATES];
    for (double[] row : paired) {
      boolean shared = rng.nextDouble() < SHARED_SLOWDOWN_PROBABILITY;
      double slow = 10 * tauMs * (1 + rng.nextDouble());
      for (int d = 0; d < PAIRED_DUPLICATES; d++) {
        row[d] = shared ? slow : writes.sample(rng);
      }
    }
    CommonShock shock = CommonShock.estimate(paired);
    thesisCommonShock = ThesisModel.builder().dependence(shock).build();
    // Measure predictions that say something: a shared slowdown must lower the predicted SLA.
    double independent = thesis.predict(sixteen, tauMs).sla();
    double correlated = thesisCommonShock.predict(sixteen, tauMs).sla();
    if (!(correlated < independent)) {
      throw new IllegalStateException(
          "common shock "
              + shock.probabilityAt(tauMs)
              + " did not lower the SLA: "
              + correlated
              + " vs "
              + independent
              + " independent");
    }
  }

  /** Thesis model (M/G/1 means), 16 duplicates, independent anomalies. */
  @Benchmark
  public double thesisN16() {
    return thesis.predict(sixteen, tauMs).sla();
  }

  /**
   * Thesis model, 16 duplicates, anomalies correlated by a common shock estimated from paired
   * samples.
   */
  @Benchmark
  public double thesisN16CommonShock() {
    return thesisCommonShock.predict(sixteen, tauMs).sla();
  }

  /** Distribution model (exact M/G/1 waiting time, 1024-cell grid), 16 duplicates. */
  @Benchmark
  public double distributionN16() {
    return distribution.predict(sixteen, tauMs).sla();
  }

  /** Planner: the best of every strategy (RP, replication for throughput, mixes) for 32 nodes. */
  @Benchmark
  public double plannerBest32() {
    return planner.best(32, ARRIVALS_PER_SEC).sla();
  }

  /**
   * Planner: the highest arrival rate meeting a 99.9% SLA over every strategy for 32 nodes (a
   * bisection each).
   */
  @Benchmark
  public double plannerMaxArrivalRate32() {
    return planner.maxArrivalRate(0.999, 32).orElseThrow().arrivalRatePerSec();
  }
}
