package io.zoolander.server.internal.repeater.admission;

/**
 * Counts per control period over a sliding window of whole periods: {@link #add} to the current
 * period, {@link #close} at the end of each period. Internal; confined to one thread.
 */
final class PeriodCounts {
  private final long[] periods;
  private int current;
  private int closed;

  /**
   * @param periods how many closed periods the window holds, 1 or more
   */
  PeriodCounts(int periods) {
    this.periods = new long[periods + 1];
  }

  void add(long n) {
    periods[current] += n;
  }

  /** Ends the current period: it joins the window, the oldest leaves it. */
  void close() {
    current = (current + 1) % periods.length;
    periods[current] = 0;
    closed = Math.min(closed + 1, periods.length - 1);
  }

  /** The sum over the closed periods in the window. */
  long sum() {
    long sum = 0;
    for (int i = 0; i < periods.length; i++) {
      if (i != current) {
        sum += periods[i];
      }
    }
    return sum;
  }

  /** How many closed periods the window holds so far (fewer than its size just after start). */
  int closedPeriods() {
    return closed;
  }

  /**
   * The sum over the closed periods in the window, per second, for periods of {@code periodMs}; 0
   * before any.
   */
  double ratePerSec(long periodMs) {
    return closed == 0 ? 0 : sum() * 1000.0 / (closed * (double) periodMs);
  }
}
