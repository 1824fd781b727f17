package io.zoolander.server.workload;

import java.time.Duration;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntFunction;
import java.util.function.LongConsumer;
import org.HdrHistogram.Recorder;

/**
 * Issues asynchronous accesses at Poisson arrival times and records their latency from the intended send time.
 *
 * <pre>{@code
 * OpenLoopLoad.Result r = OpenLoopLoad.builder().ratePerSec(500).duration(Duration.ofSeconds(10))
 *     .warmup(Duration.ofSeconds(2)).build()
 *     .run(k -> client.getData("/x"));
 * r.histogram().getValueAtPercentile(99);   // microseconds
 * }</pre>
 *
 * The generator never waits for an access to complete before issuing the next: if the system stalls, accesses keep
 * arriving and their latencies include the stall. Outstanding accesses are bounded ({@code maxOutstanding}): past it,
 * arrivals are counted as dropped rather than queued in the generator.
 */
public final class OpenLoopLoad {
  private final double ratePerSec;
  private final Duration duration;
  private final Duration warmup;
  private final long maxAccesses;
  private final int maxOutstanding;
  private final long seed;
  private final LongConsumer progress;

  private OpenLoopLoad(Builder b) {
    this.ratePerSec = b.ratePerSec;
    this.duration = b.duration;
    this.warmup = b.warmup;
    this.maxAccesses = b.maxAccesses;
    this.maxOutstanding = b.maxOutstanding;
    this.seed = b.seed;
    this.progress = b.progress;
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * What a run measured.
   *
   * @param histogram latencies in microseconds from intended send time to completion, warm-up excluded
   * @param issued accesses issued after warm-up
   * @param failed accesses (after warm-up) that completed exceptionally; not in the histogram
   * @param dropped arrivals not issued because {@code maxOutstanding} accesses were in flight
   * @param offeredRatePerSec the configured arrival rate
   * @param achievedRatePerSec accesses completed per second of measured time
   */
  public record Result(
      org.HdrHistogram.Histogram histogram,
      long issued,
      long failed,
      long dropped,
      double offeredRatePerSec,
      double achievedRatePerSec) {
    /** Fraction of issued accesses that completed within {@code tauMicros} (failures count as misses). */
    public double slaAt(long tauMicros) {
      long total = histogram.getTotalCount() + failed;
      return total == 0 ? Double.NaN : (double) histogram.getCountBetweenValues(0, tauMicros) / total;
    }
  }

  /**
   * Runs the load: {@code access.apply(k)} starts access number k (warm-up included) and returns its completion.
   * Returns once the duration or the access count is reached and every outstanding access completed (or 30 s passed).
   */
  public Result run(IntFunction<? extends CompletionStage<?>> access) throws InterruptedException {
    Objects.requireNonNull(access, "access must not be null");
    Recorder recorder = new Recorder(3);
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
    while (true) {
      intended += (long) (-meanGapNanos * Math.log(1 - random.nextDouble()));
      if (intended >= end || (maxAccesses > 0 && issued >= maxAccesses)) {
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
      issued += measured ? 1 : 0;
      CompletionStage<?> stage;
      try {
        stage = access.apply(k++);
      } catch (RuntimeException e) {
        stage = CompletableFuture.failedFuture(e);
      }
      stage.whenComplete((v, e) -> {
        long latencyMicros = (System.nanoTime() - intendedAt) / 1_000;
        outstanding.release();
        if (!measured) {
          return;
        }
        completed.incrementAndGet();
        if (e != null) {
          failed.incrementAndGet();
        } else {
          recorder.recordValue(Math.max(0, latencyMicros));
        }
      });
    }
    outstanding.tryAcquire(maxOutstanding, 30, TimeUnit.SECONDS);
    double seconds = duration.toNanos() / 1e9;
    return new Result(recorder.getIntervalHistogram(), issued, failed.get(), dropped, ratePerSec,
        completed.get() / seconds);
  }

  /** Builds an {@link OpenLoopLoad}; every setter validates its argument. */
  public static final class Builder {
    private double ratePerSec = 100;
    private Duration duration = Duration.ofSeconds(10);
    private Duration warmup = Duration.ofSeconds(1);
    private long maxAccesses;
    private int maxOutstanding = 10_000;
    private long seed = 1;
    private LongConsumer progress = seconds -> { };

    private Builder() {}

    /** Poisson arrivals per second (default 100). */
    public Builder ratePerSec(double ratePerSec) {
      if (!(ratePerSec > 0) || Double.isInfinite(ratePerSec)) {
        throw new IllegalArgumentException("ratePerSec must be a finite number > 0, was " + ratePerSec);
      }
      this.ratePerSec = ratePerSec;
      return this;
    }

    /** Measured time after warm-up (default 10 s). */
    public Builder duration(Duration duration) {
      if (Objects.requireNonNull(duration, "duration must not be null").isNegative() || duration.isZero()) {
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

    /** Stop after this many measured accesses, if reached before the duration (0: no limit, the default). */
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

    public OpenLoopLoad build() {
      return new OpenLoopLoad(this);
    }
  }
}
