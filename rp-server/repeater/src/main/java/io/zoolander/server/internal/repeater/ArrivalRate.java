package io.zoolander.server.internal.repeater;

/**
 * The arrival rate of writes over a sliding window, from periodic samples of a running count (the
 * repeater's next seq), so the sequencing path pays nothing for it. Times come from the caller
 * (testable without sleeping). Sampled on the sequencer thread, read by JMX threads. Internal.
 */
final class ArrivalRate {
  private final long windowNanos;
  private final long[] times;
  private final long[] counts;
  private int next;
  private int held;

  /**
   * @param windowNanos the span the rate is measured over
   * @param samples how many samples the window holds (the sampling period is {@code windowNanos /
   *     samples})
   */
  ArrivalRate(long windowNanos, int samples) {
    if (windowNanos <= 0 || samples < 2) {
      throw new IllegalArgumentException(
          "windowNanos must be > 0 and samples >= 2, were " + windowNanos + ", " + samples);
    }
    this.windowNanos = windowNanos;
    this.times = new long[samples + 1];
    this.counts = new long[samples + 1];
  }

  /** Records the running count at {@code nowNanos}. */
  synchronized void sample(long nowNanos, long count) {
    times[next] = nowNanos;
    counts[next] = count;
    next = (next + 1) % times.length;
    if (held < times.length) {
      held++;
    }
  }

  /**
   * Per second over the samples of the last window (the oldest sample inside it to the newest); 0
   * with fewer than two samples.
   */
  synchronized double perSecond() {
    if (held < 2) {
      return 0;
    }
    int newest = (next - 1 + times.length) % times.length;
    int oldest = newest;
    for (int i = 1; i < held; i++) {
      int candidate = (newest - i + times.length) % times.length;
      if (times[newest] - times[candidate] > windowNanos) {
        break;
      }
      oldest = candidate;
    }
    long span = times[newest] - times[oldest];
    return span <= 0 ? 0 : (counts[newest] - counts[oldest]) * 1e9 / span;
  }
}
