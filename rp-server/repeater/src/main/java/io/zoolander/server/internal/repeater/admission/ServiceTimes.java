package io.zoolander.server.internal.repeater.admission;

import org.HdrHistogram.Histogram;

/**
 * One duplicate's recent service times, in microseconds, from its acknowledgements: an ACK that
 * advances the duplicate's applied seq by {@code k} writes at time {@code t} gives each of them the
 * service time {@code (t - start) / k}, where {@code start} is the later of the previous ACK and
 * the sequencing of the first of them (the duplicate was busy with them from then on). This is the
 * time per write while busy, the inverse of the duplicate's throughput, which is what the queueing
 * model's utilisation needs. Two histograms, rotated every window, so samples are forgotten after
 * one to two windows. Internal; confined to the sequencer thread.
 */
final class ServiceTimes {
  private static final long HIGHEST_MICROS = 3_600_000_000L;

  private Histogram current = new Histogram(HIGHEST_MICROS, 2);
  private Histogram previous = new Histogram(HIGHEST_MICROS, 2);
  private long ackedSeq = -1;
  private long ackedNanos;

  /** The seq this duplicate had acked before, -1 before its first ACK. */
  long ackedSeq() {
    return ackedSeq;
  }

  /**
   * The duplicate acked up to {@code seq} at {@code nowNanos}; {@code firstSequencedNanos} is when
   * the first write newly acked was sequenced, or -1 if unknown (then no sample is taken).
   */
  void acked(long seq, long nowNanos, long firstSequencedNanos) {
    long k = seq - ackedSeq;
    if (ackedSeq >= 0 && k > 0 && firstSequencedNanos >= 0) {
      long start = Math.max(ackedNanos, firstSequencedNanos);
      long perWriteMicros = Math.max(1, (nowNanos - start) / k / 1_000);
      current.recordValueWithCount(Math.min(perWriteMicros, HIGHEST_MICROS), k);
    }
    if (k > 0 || ackedSeq < 0) {
      ackedSeq = Math.max(ackedSeq, seq);
      ackedNanos = nowNanos;
    }
  }

  /** Forgets the older half. */
  void rotate() {
    Histogram older = previous;
    previous = current;
    older.reset();
    current = older;
  }

  /** Adds this duplicate's samples (both halves) to {@code into}. */
  void addTo(Histogram into) {
    into.add(previous);
    into.add(current);
  }

  long count() {
    return previous.getTotalCount() + current.getTotalCount();
  }
}
