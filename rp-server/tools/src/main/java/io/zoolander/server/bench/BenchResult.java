package io.zoolander.server.bench;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.HdrHistogram.Histogram;

/**
 * What one {@code zoolander bench} run measured.
 *
 * @param machine where it ran
 * @param settings what it was told
 * @param startedAt when it started
 * @param seconds how long it took, start-up included
 * @param tauOffMs tau without the injector: plain ZooKeeper's read p99 in that condition
 * @param tauOnMs tau with the injector: plain ZooKeeper's read p99 then; NaN if no run had the
 *     injector
 * @param systems one entry per system and condition, in the order they ran
 * @param heap the heap phase, if it ran
 * @param loopback the Netty loopback round trip measured in the same run (the floor of one extra
 *     hop), closed loop, if it ran
 * @param loopbackPaced the same paced at the bench's rate (each hop also waking the receiving
 *     thread, as every hop of a write does at that rate), if it ran
 * @param loopbackPacedWrites the same paced at the bench's write rate, if it ran and writes are
 *     fewer than accesses: the repeater's threads and the applier see only writes, so on a host
 *     where a thread's wake-up costs more the longer it slept, this is the floor of their hops
 * @param jitWarmup how the JIT warm-up before the measurements ended, if it ran
 * @param out the directory the results were written to
 */
public record BenchResult(
    Machine machine,
    BenchSettings settings,
    Instant startedAt,
    double seconds,
    double tauOffMs,
    double tauOnMs,
    List<SystemResult> systems,
    Optional<HeapResult> heap,
    Optional<LoopbackRoundTrip.Result> loopback,
    Optional<LoopbackRoundTrip.Result> loopbackPaced,
    Optional<LoopbackRoundTrip.Result> loopbackPacedWrites,
    Optional<JitWarmup.Outcome> jitWarmup,
    Path out) {

  public BenchResult {
    systems = List.copyOf(systems);
  }

  /** The result of system {@code name} with or without the injector, if it ran. */
  public Optional<SystemResult> system(String name, boolean anomalies) {
    return systems.stream()
        .filter(s -> s.system().equals(name) && s.anomalies() == anomalies)
        .findFirst();
  }

  /**
   * The machine the run measured.
   *
   * @param processors processors the JVM sees
   * @param cpu the CPU model, if the OS says
   * @param memoryBytes physical memory, -1 if unknown
   * @param os operating system name and version
   * @param java the Java runtime's version and VM
   * @param loadAverageStart the one-minute load average at the start (other processes share the
   *     machine)
   * @param loadAverageEnd the same at the end
   */
  public record Machine(
      int processors,
      String cpu,
      long memoryBytes,
      String os,
      String java,
      double loadAverageStart,
      double loadAverageEnd) {}

  /**
   * The latency of one kind of access of one run, in milliseconds from the intended send time.
   *
   * @param count accesses completed (warm-up excluded)
   * @param failed accesses that failed (counted as missing tau)
   * @param missFraction fraction of accesses slower than tau, or failed
   * @param histogram the latencies in microseconds
   */
  public record Latency(
      long count,
      long failed,
      double p50Ms,
      double p90Ms,
      double p99Ms,
      double p999Ms,
      double maxMs,
      double meanMs,
      double missFraction,
      Histogram histogram) {

    static Latency of(Histogram h, long failed, double tauMs) {
      double miss = TailAnalysis.missFraction(h, failed, tauMs);
      return new Latency(
          h.getTotalCount(),
          failed,
          ms(h, 50),
          ms(h, 90),
          ms(h, 99),
          ms(h, 99.9),
          h.getTotalCount() == 0 ? Double.NaN : h.getMaxValue() / 1e3,
          h.getTotalCount() == 0 ? Double.NaN : h.getMean() / 1e3,
          miss,
          h);
    }

    private static double ms(Histogram h, double percentile) {
      return h.getTotalCount() == 0 ? Double.NaN : h.getValueAtPercentile(percentile) / 1e3;
    }
  }

  /**
   * One system in one condition.
   *
   * @param system its short name ({@code plain}, {@code balanced}, {@code hedged}, {@code rp-N},
   *     {@code rp-N-hedged})
   * @param description what it does with reads and writes
   * @param anomalies whether the anomaly injector was on
   * @param tauMs the tau its misses are counted at (plain ZooKeeper's read p99 in the same
   *     condition)
   * @param offeredRatePerSec Poisson arrivals per second asked for
   * @param achievedRatePerSec accesses completed per second of measured time
   * @param dropped arrivals not issued because too many accesses were outstanding
   * @param reads read latency
   * @param writes write latency
   * @param messagesPerRead read requests sent to servers per read, counted (warm-up included)
   * @param messagesPerWrite write requests the client sent per write (the repeater then sends one
   *     per duplicate)
   * @param hedgeDelayMs the fixed hedge delay measured in warm-up; NaN if the system does not use
   *     one
   */
  public record SystemResult(
      String system,
      String description,
      boolean anomalies,
      double tauMs,
      double offeredRatePerSec,
      double achievedRatePerSec,
      long dropped,
      Latency reads,
      Latency writes,
      double messagesPerRead,
      double messagesPerWrite,
      double hedgeDelayMs) {}

  /**
   * The heap phase: one Zoolander client reading from every duplicate, at a sustained rate; heaps
   * are sampled after a forced collection, so they show what is held, not garbage not yet
   * collected.
   *
   * @param system the system driven
   * @param offeredRatePerSec the rate asked for
   * @param achievedRatePerSec the rate achieved
   * @param failed accesses that failed
   * @param dropped arrivals not issued
   * @param samples how many samples were taken of each heap
   * @param clientBaselineBytes the benchmark JVM's used heap before the client was created
   * @param clientMaxBytes the largest sample of that JVM during the phase
   * @param clientMeanBytes the mean sample
   * @param repeaterBaselineBytes the repeater JVM's used heap before the phase
   * @param repeaterMaxBytes the largest sample during the phase
   * @param repeaterMeanBytes the mean sample
   */
  public record HeapResult(
      String system,
      double offeredRatePerSec,
      double achievedRatePerSec,
      long failed,
      long dropped,
      int samples,
      long clientBaselineBytes,
      long clientMaxBytes,
      long clientMeanBytes,
      long repeaterBaselineBytes,
      long repeaterMaxBytes,
      long repeaterMeanBytes) {}
}
