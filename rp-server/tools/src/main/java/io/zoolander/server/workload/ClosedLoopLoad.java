package io.zoolander.server.workload;

import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;
import org.HdrHistogram.Recorder;

/**
 * Keeps a fixed number of asynchronous accesses outstanding, each completion letting the next one
 * go: the way to find a system's sustained throughput (a closed loop slows down with the system, so
 * its latencies are not a user's; {@link OpenLoopLoad} measures those). One thread issues; nothing
 * recurses on completion. Bounded in time ({@code warmup + duration}, then at most {@code
 * drainTimeout} for what is in flight) and in count ({@code maxAccesses} measured accesses).
 */
public final class ClosedLoopLoad {

  /**
   * What a run measured.
   *
   * @param completed accesses that completed (successfully or not) in the measured time
   * @param failed of those, the ones that failed
   * @param measuredSeconds from the end of the warm-up to the last measured completion
   * @param histogram latencies in microseconds of the successful measured accesses, from issue
   * @param outstanding accesses kept in flight
   */
  public record Result(
      long completed,
      long failed,
      double measuredSeconds,
      org.HdrHistogram.Histogram histogram,
      int outstanding) {

    /** Measured completions (successful ones) per second; NaN if nothing was measured. */
    public double throughputPerSec() {
      return measuredSeconds <= 0 ? Double.NaN : (completed - failed) / measuredSeconds;
    }
  }

  private ClosedLoopLoad() {}

  /**
   * Runs {@code access} (given the access number) with {@code outstanding} in flight for {@code
   * warmup} (not recorded) and then {@code duration}, or until {@code maxAccesses} measured
   * accesses were issued.
   */
  public static Result run(
      IntFunction<? extends CompletionStage<?>> access,
      int outstanding,
      Duration warmup,
      Duration duration,
      long maxAccesses,
      Duration drainTimeout)
      throws InterruptedException {
    if (outstanding < 1) {
      throw new IllegalArgumentException("outstanding must be >= 1, was " + outstanding);
    }
    if (maxAccesses < 1) {
      throw new IllegalArgumentException("max accesses must be >= 1, was " + maxAccesses);
    }
    Semaphore slots = new Semaphore(outstanding);
    Recorder recorder = new Recorder(3);
    AtomicLong completed = new AtomicLong();
    AtomicLong failed = new AtomicLong();
    AtomicLong lastCompletion = new AtomicLong();
    long start = System.nanoTime();
    long measureFrom = start + warmup.toNanos();
    long end = measureFrom + duration.toNanos();
    long measuredIssued = 0;
    int k = 0;
    while (measuredIssued < maxAccesses) {
      long now = System.nanoTime();
      if (now - end >= 0) {
        break;
      }
      if (!slots.tryAcquire(end - now, TimeUnit.NANOSECONDS)) {
        break;
      }
      long issuedAt = System.nanoTime();
      boolean measured = issuedAt - measureFrom >= 0;
      if (measured) {
        measuredIssued++;
      }
      CompletionStage<?> stage;
      try {
        stage = access.apply(k++);
      } catch (RuntimeException e) {
        slots.release();
        if (measured) {
          completed.incrementAndGet();
          failed.incrementAndGet();
        }
        continue;
      }
      stage.whenComplete(
          (v, e) -> {
            long done = System.nanoTime();
            if (measured) {
              if (e == null) {
                recorder.recordValue(Math.max(0, (done - issuedAt) / 1_000));
              } else {
                failed.incrementAndGet();
              }
              completed.incrementAndGet();
              lastCompletion.accumulateAndGet(done, (a, b) -> a == 0 || b - a > 0 ? b : a);
            }
            slots.release();
          });
    }
    // let what is in flight finish (bounded), so that the next run starts on an idle system
    if (slots.tryAcquire(outstanding, drainTimeout.toNanos(), TimeUnit.NANOSECONDS)) {
      slots.release(outstanding);
    }
    long last = lastCompletion.get();
    double seconds = last == 0 ? 0 : Math.max(0, last - measureFrom) / 1e9;
    return new Result(
        completed.get(), failed.get(), seconds, recorder.getIntervalHistogram(), outstanding);
  }
}
