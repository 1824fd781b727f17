package io.zoolander.server.workload;

import io.zoolander.client.ReplyEvent;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Per access, every duplicate's reply latency, from a client's reply listener ({@code
 * client.addReplyListener(paired::record)}): the paired samples the model fits how many duplicates
 * are late together on, and, per access, the first reply among the first N duplicates, which is
 * what a client of N of them observes. Reads (sent to every duplicate with {@code
 * ReadPolicy.all()}) and writes (every duplicate applies and answers every write) are kept apart:
 * they have their own latencies.
 *
 * <p>Thread-safe: replies arrive on the client's event loops.
 */
public final class PairedReplies {
  private final int duplicates;
  // Keyed by request id: rows come back in request order, which is the order of the accesses.
  private final Map<Long, double[]> reads = new ConcurrentSkipListMap<>();
  private final Map<Long, double[]> writes = new ConcurrentSkipListMap<>();

  /** Replies of {@code duplicates} duplicates (the client's, in its builder's order). */
  public PairedReplies(int duplicates) {
    if (duplicates < 1) {
      throw new IllegalArgumentException("duplicates must be >= 1, was " + duplicates);
    }
    this.duplicates = duplicates;
  }

  /** Records one duplicate's reply (a reply listener). */
  public void record(ReplyEvent e) {
    if (e.duplicateIndex() >= duplicates) {
      return;
    }
    double[] row =
        (e.write() ? writes : reads)
            .computeIfAbsent(
                e.requestId(),
                id -> {
                  double[] fresh = new double[duplicates];
                  Arrays.fill(fresh, -1);
                  return fresh;
                });
    synchronized (row) {
      row[e.duplicateIndex()] = e.latencyNanos() / 1e6;
    }
  }

  /**
   * Waits, at most {@code timeout}, until every access seen so far has every duplicate's reply
   * (replies already sent may still be in flight when the load ends).
   *
   * @return whether they all arrived
   */
  public boolean awaitComplete(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (incomplete() > 0) {
      if (System.nanoTime() >= deadline) {
        return false;
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
    }
    return true;
  }

  /**
   * Forgets every access recorded so far, e.g. a warm-up's once {@link #awaitComplete} has seen
   * their replies in (a reply arriving later would start a row that never completes).
   */
  public void clear() {
    reads.clear();
    writes.clear();
  }

  /** Accesses still missing a duplicate's reply. */
  public long incomplete() {
    return count(reads, false) + count(writes, false);
  }

  /**
   * The reads' (or writes') rows with every duplicate's reply, in request order: one row per
   * access, one column per duplicate, ms.
   */
  public double[][] rows(boolean write) {
    return (write ? writes : reads)
        .values().stream()
            .filter(PairedReplies::complete)
            .map(double[]::clone)
            .toArray(double[][]::new);
  }

  private static long count(Map<Long, double[]> rows, boolean complete) {
    return rows.values().stream().filter(r -> complete(r) == complete).count();
  }

  private static boolean complete(double[] row) {
    synchronized (row) {
      for (double v : row) {
        if (v < 0) {
          return false;
        }
      }
      return true;
    }
  }
}
