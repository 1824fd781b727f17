package io.zoolander.client.internal;

import io.zoolander.wire.Message;
import io.zoolander.wire.Ticker;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * Which duplicates announced planned slowness ({@link Message.PlannedSlowness}: a snapshot, a log
 * roll) and until when: reads leave them out while another duplicate can serve. An announcement
 * lasts until its end is announced or its maximum duration passes, whichever is first, so a lost
 * end cannot keep a duplicate out for good. Grows by {@link #add} when a duplicate is added while
 * the client runs; indexes never move. Not thread-safe: used on the client's I/O thread only (the
 * event loop). Internal: not part of the public API.
 */
public final class PlannedSlownessTable {

  private final Ticker ticker;
  private long[] untilNanos;
  private boolean[] slow;

  public PlannedSlownessTable(int duplicates, Ticker ticker) {
    this.ticker = ticker;
    this.untilNanos = new long[duplicates];
    this.slow = new boolean[duplicates];
  }

  /**
   * Appends a duplicate (added while the client runs), not slow.
   *
   * @return its index
   */
  public int add() {
    int index = slow.length;
    untilNanos = Arrays.copyOf(untilNanos, index + 1);
    slow = Arrays.copyOf(slow, index + 1);
    return index;
  }

  /** Duplicate {@code index} announced {@code announcement}. */
  public void announced(int index, Message.PlannedSlowness announcement) {
    if (announcement.ended()) {
      slow[index] = false;
    } else {
      slow[index] = true;
      untilNanos[index] =
          ticker.nanoTime() + TimeUnit.MILLISECONDS.toNanos(announcement.maxDurationMs());
    }
  }

  /** Whether duplicate {@code index} is doing announced background work now. */
  public boolean isSlow(int index) {
    if (slow[index] && ticker.nanoTime() - untilNanos[index] >= 0) {
      slow[index] = false; // the end was lost, or the work overran what it announced
    }
    return slow[index];
  }

  @Override
  public String toString() {
    return "PlannedSlownessTable" + Arrays.toString(slow);
  }
}
