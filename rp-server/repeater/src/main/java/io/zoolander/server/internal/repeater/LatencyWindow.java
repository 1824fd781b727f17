package io.zoolander.server.internal.repeater;

import java.util.concurrent.TimeUnit;

/**
 * The last {@code capacity} latencies of one duplicate, each with the time it was recorded, kept as
 * model input (rp-model wants samples, a Micrometer timer keeps only percentiles). Samples older
 * than a maximum age are left out of what it returns, so a burst long past does not speak for the
 * present. Recorded on the sequencer thread, read by JMX threads; the lock is uncontended on the
 * recording side and recording allocates nothing. Internal.
 */
final class LatencyWindow {
  private final long[] nanos;
  private final long[] recordedAtNanos;
  private int next;
  private int count;

  LatencyWindow(int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be >= 1, was " + capacity);
    }
    this.nanos = new long[capacity];
    this.recordedAtNanos = new long[capacity];
  }

  /**
   * @param latencyNanos the latency
   * @param nowNanos when it was recorded (the repeater's {@code Ticker})
   */
  synchronized void record(long latencyNanos, long nowNanos) {
    nanos[next] = latencyNanos;
    recordedAtNanos[next] = nowNanos;
    next = (next + 1) % nanos.length;
    if (count < nanos.length) {
      count++;
    }
  }

  /**
   * The samples recorded at most {@code maxAgeNanos} before {@code nowNanos}, oldest first, in
   * milliseconds; empty before the first or when all are older.
   */
  synchronized double[] samplesMs(long nowNanos, long maxAgeNanos) {
    int first = count < nanos.length ? 0 : next;
    int skip = 0;
    while (skip < count
        && nowNanos - recordedAtNanos[(first + skip) % nanos.length] > maxAgeNanos) {
      skip++; // recorded in time order: the rest are younger
    }
    double[] ms = new double[count - skip];
    for (int i = 0; i < ms.length; i++) {
      ms[i] = nanos[(first + skip + i) % nanos.length] / (double) TimeUnit.MILLISECONDS.toNanos(1);
    }
    return ms;
  }
}
