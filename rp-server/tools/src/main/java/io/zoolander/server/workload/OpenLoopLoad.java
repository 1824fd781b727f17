package io.zoolander.server.workload;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntFunction;
import java.util.function.IntUnaryOperator;
import java.util.function.LongConsumer;
import org.HdrHistogram.Recorder;

/**
 * Issues asynchronous accesses at Poisson arrival times and records their latency from the intended
 * send time.
 *
 * <pre>{@code
 * OpenLoopLoad.Result r = OpenLoopLoad.builder().ratePerSec(500).duration(Duration.ofSeconds(10))
 *     .warmup(Duration.ofSeconds(2)).build()
 *     .run(k -> client.getData("/x"));
 * r.histogram().getValueAtPercentile(99);   // microseconds
 * }</pre>
 *
 * The generator never waits for an access to complete before issuing the next: if the system
 * stalls, accesses keep arriving and their latencies include the stall. Outstanding accesses are
 * bounded ({@code maxOutstanding}): past it, arrivals are counted as dropped rather than queued in
 * the generator. Accesses may be split into classes (reads and writes, say), each with its own
 * histogram besides the total.
 */
public final class OpenLoopLoad {
  private final double ratePerSec;
  private final Duration duration;
  private final Duration warmup;
  private final long maxAccesses;
  private final int maxOutstanding;
  private final long seed;
  private final LongConsumer progress;
  private final int classCount;
  private final IntUnaryOperator classOf;

  private OpenLoopLoad(Builder b) {
    this.ratePerSec = b.ratePerSec;
    this.duration = b.duration;
    this.warmup = b.warmup;
    this.maxAccesses = b.maxAccesses;
    this.maxOutstanding = b.maxOutstanding;
    this.seed = b.seed;
    this.progress = b.progress;
    this.classCount = b.classCount;
    this.classOf = b.classOf;
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * What a run measured.
   *
   * @param histogram latencies in microseconds from intended send time to completion, warm-up
   *     excluded
   * @param issued accesses issued after warm-up
   * @param failed accesses (after warm-up) that completed exceptionally; not in the histogram
   * @param dropped arrivals not issued because {@code maxOutstanding} accesses were in flight
   * @param offeredRatePerSec the configured arrival rate
   * @param achievedRatePerSec measured accesses completed per second of measured time, until the
   *     duration ended or {@code maxAccesses} were issued (those still in flight then are not
   *     counted)
   * @param measuredSeconds the measured time: the duration, or less if {@code maxAccesses} ended
   *     the run earlier
   * @param classes one entry per class of access ({@link Builder#classes}), in class order; one
   *     class by default
   */
  public record Result(
      org.HdrHistogram.Histogram histogram,
      long issued,
      long failed,
      long dropped,
      double offeredRatePerSec,
      double achievedRatePerSec,
      double measuredSeconds,
      List<ClassResult> classes) {
    public Result {
      classes = List.copyOf(classes);
    }

    /**
     * Fraction of issued accesses that completed within {@code tauMicros} (failures count as
     * misses).
     */
    public double slaAt(long tauMicros) {
      long total = histogram.getTotalCount() + failed;
      return total == 0
          ? Double.NaN
          : (double) histogram.getCountBetweenValues(0, tauMicros) / total;
    }
  }

  /**
   * What a run measured for one class of access.
   *
   * @param histogram latencies in microseconds from intended send time, warm-up excluded
   * @param issued accesses of this class issued after warm-up
   * @param failed of those, how many completed exceptionally; not in the histogram
   */
  public record ClassResult(org.HdrHistogram.Histogram histogram, long issued, long failed) {}

  /**
   * Runs the load: {@code access.apply(k)} starts access number k (warm-up included) and returns
   * its completion. Returns once the duration or the access count is reached and every outstanding
   * access completed (or 30 s passed).
   */
  public Result run(IntFunction<? extends CompletionStage<?>> access) throws InterruptedException {
    Objects.requireNonNull(access, "access must not be null");
    Recorder recorder = new Recorder(3);
    Recorder[] classRecorders = new Recorder[classCount];
    AtomicLong[] classFailed = new AtomicLong[classCount];
    long[] classIssued = new long[classCount];
    for (int c = 0; c < classCount; c++) {
      classRecorders[c] = new Recorder(3);
      classFailed[c] = new AtomicLong();
    }
    Semaphore outstanding = new Semaphore(maxOutstanding);
    AtomicLong failed = new AtomicLong();
    AtomicLong completed = new AtomicLong();
    long dropped = 0;
    long issued = 0;
    SplittableRandom random = new SplittableRandom(seed);
    double meanGapNanos = 1e9 / ratePerSec;
    long start = System.nanoTime();
    long measureFrom = start + warmup.toNanos();
    long end = measureFrom + duration.toNanos();
    long intended = start;
    long nextProgress = start + TimeUnit.SECONDS.toNanos(1);
    int k = 0;
    long stoppedAt = end;
    while (true) {
      intended += (long) (-meanGapNanos * Math.log(1 - random.nextDouble()));
      if (intended >= end) {
        break;
      }
      if (maxAccesses > 0 && issued >= maxAccesses) {
        stoppedAt = Math.max(measureFrom, Math.min(end, System.nanoTime()));
        break;
      }
      long now;
      while ((now = System.nanoTime()) < intended) {
        LockSupport.parkNanos(Math.min(intended - now, 200_000));
      }
      if (now >= nextProgress) {
        progress.accept(TimeUnit.NANOSECONDS.toSeconds(now - start));
        nextProgress += TimeUnit.SECONDS.toNanos(1);
      }
      boolean measured = intended >= measureFrom;
      if (!outstanding.tryAcquire()) {
        dropped += measured ? 1 : 0;
        continue;
      }
      long intendedAt = intended;
      int cls = classOf.applyAsInt(k);
      if (cls < 0 || cls >= classCount) {
        throw new IllegalStateException(
            "access " + k + " is in class " + cls + ", not in 0.." + (classCount - 1));
      }
      issued += measured ? 1 : 0;
      classIssued[cls] += measured ? 1 : 0;
      CompletionStage<?> stage;
      try {
        stage = access.apply(k++);
      } catch (RuntimeException e) {
        stage = CompletableFuture.failedFuture(e);
      }
      stage.whenComplete(
          (v, e) -> {
            long latencyMicros = (System.nanoTime() - intendedAt) / 1_000;
            outstanding.release();
            if (!measured) {
              return;
            }
            completed.incrementAndGet();
            if (e != null) {
              failed.incrementAndGet();
              classFailed[cls].incrementAndGet();
            } else {
              recorder.recordValue(Math.max(0, latencyMicros));
              classRecorders[cls].recordValue(Math.max(0, latencyMicros));
            }
          });
    }
    // Completed within the measured time; wait until then if the last arrival came before its end.
    long now;
    while ((now = System.nanoTime()) < stoppedAt) {
      LockSupport.parkNanos(Math.min(stoppedAt - now, 200_000));
    }
    long completedInTime = completed.get();
    outstanding.tryAcquire(maxOutstanding, 30, TimeUnit.SECONDS);
    double seconds = Math.max(1e-9, (stoppedAt - measureFrom) / 1e9);
    List<ClassResult> classes = new ArrayList<>();
    for (int c = 0; c < classCount; c++) {
      classes.add(
          new ClassResult(
              classRecorders[c].getIntervalHistogram(), classIssued[c], classFailed[c].get()));
    }
    return new Result(
        recorder.getIntervalHistogram(),
        issued,
        failed.get(),
        dropped,
        ratePerSec,
        completedInTime / seconds,
        seconds,
        classes);
  }

  /** Builds an {@link OpenLoopLoad}; every setter validates its argument. */
  public static final class Builder {
    private double ratePerSec = 100;
    private Duration duration = Duration.ofSeconds(10);
    private Duration warmup = Duration.ofSeconds(1);
    private long maxAccesses;
    private int maxOutstanding = 10_000;
    private long seed = 1;
    private LongConsumer progress = seconds -> {};
    private int classCount = 1;
    private IntUnaryOperator classOf = k -> 0;

    private Builder() {}

    /** Poisson arrivals per second (default 100). */
    public Builder ratePerSec(double ratePerSec) {
      if (!(ratePerSec > 0) || Double.isInfinite(ratePerSec)) {
        throw new IllegalArgumentException(
            "ratePerSec must be a finite number > 0, was " + ratePerSec);
      }
      this.ratePerSec = ratePerSec;
      return this;
    }

    /** Measured time after warm-up (default 10 s). */
    public Builder duration(Duration duration) {
      if (Objects.requireNonNull(duration, "duration must not be null").isNegative()
          || duration.isZero()) {
        throw new IllegalArgumentException("duration must be positive, was " + duration);
      }
      this.duration = duration;
      return this;
    }

    /** Time whose accesses are issued but not recorded (default 1 s). */
    public Builder warmup(Duration warmup) {
      if (Objects.requireNonNull(warmup, "warmup must not be null").isNegative()) {
        throw new IllegalArgumentException("warmup must not be negative, was " + warmup);
      }
      this.warmup = warmup;
      return this;
    }

    /**
     * Stop after this many measured accesses, if reached before the duration (0: no limit, the
     * default).
     */
    public Builder maxAccesses(long maxAccesses) {
      if (maxAccesses < 0) {
        throw new IllegalArgumentException("maxAccesses must be >= 0, was " + maxAccesses);
      }
      this.maxAccesses = maxAccesses;
      return this;
    }

    /** Accesses in flight at most; arrivals beyond it are dropped and counted (default 10,000). */
    public Builder maxOutstanding(int maxOutstanding) {
      if (maxOutstanding < 1) {
        throw new IllegalArgumentException("maxOutstanding must be >= 1, was " + maxOutstanding);
      }
      this.maxOutstanding = maxOutstanding;
      return this;
    }

    /** Seed of the arrival process (default 1). */
    public Builder seed(long seed) {
      this.seed = seed;
      return this;
    }

    /** Called about once a second with the seconds elapsed, from the generating thread. */
    public Builder progress(LongConsumer progress) {
      this.progress = Objects.requireNonNull(progress, "progress must not be null");
      return this;
    }

    /**
     * Splits accesses into {@code count} classes: access k belongs to class {@code
     * classOf.applyAsInt(k)}, in {@code 0..count-1}; the result has a histogram per class (default:
     * one class).
     */
    public Builder classes(int count, IntUnaryOperator classOf) {
      if (count < 1) {
        throw new IllegalArgumentException("class count must be >= 1, was " + count);
      }
      this.classOf = Objects.requireNonNull(classOf, "classOf must not be null");
      this.classCount = count;
      return this;
    }

    public OpenLoopLoad build() {
      return new OpenLoopLoad(this);
    }
  }
}
