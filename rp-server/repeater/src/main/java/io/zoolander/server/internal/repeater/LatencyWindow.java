package io.zoolander.server.internal.repeater;

import java.util.concurrent.TimeUnit;

/**
 * The last {@code capacity} latencies of one duplicate, kept as model input (rp-model wants
 * samples, a Micrometer timer keeps only percentiles). Recorded on the sequencer thread, read by
 * JMX threads; the lock is uncontended on the recording side and recording allocates nothing.
 * Internal.
 */
final class LatencyWindow {
  private final long[] nanos;
  private int next;
  private int count;

  LatencyWindow(int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be >= 1, was " + capacity);
    }
    this.nanos = new long[capacity];
  }

  synchronized void record(long latencyNanos) {
    nanos[next] = latencyNanos;
    next = (next + 1) % nanos.length;
    if (count < nanos.length) {
      count++;
    }
  }

  /** The samples held, oldest first, in milliseconds; empty before the first. */
  synchronized double[] samplesMs() {
    double[] ms = new double[count];
    int first = count < nanos.length ? 0 : next;
    for (int i = 0; i < count; i++) {
      ms[i] = nanos[(first + i) % nanos.length] / (double) TimeUnit.MILLISECONDS.toNanos(1);
    }
    return ms;
  }
}
