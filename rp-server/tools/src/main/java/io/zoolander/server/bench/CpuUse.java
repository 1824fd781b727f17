package io.zoolander.server.bench;

import java.time.Duration;
import java.util.List;

/**
 * The CPU two sides of a measurement used on average, in cores: the bench's own JVM (the client and
 * the load generator) and a set of child JVMs (the servers); NaN for a side whose CPU time the OS
 * did not give.
 *
 * @param clientCores the bench's JVM
 * @param partitionCores the child JVMs together
 */
record CpuUse(double clientCores, double partitionCores) {

  /** Started at construction; {@link #stop} gives the use since. One thread. */
  static final class Meter {
    private final List<Long> pids;
    private final long startNanos;
    private final long clientStart;
    private final long childrenStart;

    Meter(List<Long> pids) {
      this.pids = List.copyOf(pids);
      this.startNanos = System.nanoTime();
      this.clientStart = cpuNanos(ProcessHandle.current().pid());
      this.childrenStart = cpuNanos(this.pids);
    }

    CpuUse stop() {
      double wall = System.nanoTime() - startNanos;
      return new CpuUse(
          cores(clientStart, cpuNanos(ProcessHandle.current().pid()), wall),
          cores(childrenStart, cpuNanos(pids), wall));
    }

    private static double cores(long start, long end, double wallNanos) {
      return start < 0 || end < 0 || wallNanos <= 0 ? Double.NaN : (end - start) / wallNanos;
    }
  }

  /** A process's CPU time so far in nanoseconds, -1 if unknown. */
  static long cpuNanos(long pid) {
    return ProcessHandle.of(pid)
        .flatMap(h -> h.info().totalCpuDuration())
        .map(Duration::toNanos)
        .orElse(-1L);
  }

  /** The processes' CPU time together, -1 if one is unknown. */
  static long cpuNanos(List<Long> pids) {
    long sum = 0;
    for (long pid : pids) {
      long one = cpuNanos(pid);
      if (one < 0) {
        return -1;
      }
      sum += one;
    }
    return sum;
  }
}
