package io.zoolander.server.internal.repeater;

import io.zoolander.wire.Message;
import io.zoolander.wire.NameRoutes;
import io.zoolander.wire.Op;
import io.zoolander.wire.Ticker;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;

/**
 * The write rate of each top-level name, over the last complete window: what a partition's writes
 * are made of, so that an operator (or a balancer) can tell which name to move to another partition
 * when one partition's writes outgrow it.
 *
 * <p>Each write is counted with probability 1 / {@code sampleEvery} (each distinct top-level name
 * it touches once), and the counts are scaled back: the write path pays a random draw per write and
 * the name's lookup for the sampled ones. Drawn at random, not every n-th write, so that a workload
 * with a period (a client that alternates two names) is not aliased. At most {@link #MAX_NAMES}
 * names are counted per window; writes to further names count as {@link NameRoutes#OTHER_NAMES}.
 *
 * <p>The first window opens at the first write. {@link #sequenced} runs on the sequencer loop only;
 * {@link #rates} on any thread reads the window published last. Time comes from a {@link Ticker}.
 */
final class NameWriteRates {

  /** Most names counted in one window. */
  static final int MAX_NAMES = 1_000;

  private final Ticker ticker;
  private final long windowNanos;
  private final int sampleEvery;
  private final SplittableRandom random;

  // the sequencer loop's
  private Map<String, Long> counting = new HashMap<>();
  private boolean windowOpen; // the first window opens at the first write, not at construction
  private long windowStartNanos;

  /** The last complete window's rates, and when it ended. */
  private volatile Published published = new Published(Map.of(), Long.MIN_VALUE);

  private record Published(Map<String, Double> rates, long endNanos) {}

  /**
   * @param sampleEvery one write in this many is counted, on average ({@code >= 1})
   * @param seed of the draws
   */
  NameWriteRates(Ticker ticker, long windowMillis, int sampleEvery, long seed) {
    this.ticker = Objects.requireNonNull(ticker, "ticker");
    if (windowMillis < 1) {
      throw new IllegalArgumentException("windowMillis must be >= 1, was " + windowMillis);
    }
    if (sampleEvery < 1) {
      throw new IllegalArgumentException("sampleEvery must be >= 1, was " + sampleEvery);
    }
    this.sampleEvery = sampleEvery;
    this.random = new SplittableRandom(seed);
    this.windowNanos = windowMillis * 1_000_000L;
  }

  /** Counts a write just sequenced. On the sequencer loop. */
  void sequenced(Message.Write write) {
    long now = ticker.nanoTime();
    if (!windowOpen) {
      windowOpen = true; // a repeater idle since it started would otherwise dilute its first rates
      windowStartNanos = now;
    } else if (now - windowStartNanos >= windowNanos) {
      publish(now);
    }
    if (sampleEvery > 1 && random.nextInt(sampleEvery) != 0) {
      return;
    }
    List<Op> ops = write.ops();
    String previous = null;
    for (int i = 0; i < ops.size(); i++) {
      String name = NameRoutes.topLevelName(ops.get(i).path());
      if (name == null || name.equals(previous)) {
        continue; // a write counts once per name; its ops usually share one
      }
      previous = name;
      if (counting.size() >= MAX_NAMES && !counting.containsKey(name)) {
        name = NameRoutes.OTHER_NAMES;
      }
      counting.merge(name, (long) sampleEvery, Long::sum);
    }
  }

  private void publish(long now) {
    double seconds = (now - windowStartNanos) / 1e9;
    Map<String, Double> rates = new HashMap<>();
    counting.forEach((name, count) -> rates.put(name, count / seconds));
    published = new Published(Map.copyOf(rates), now);
    counting = new HashMap<>();
    windowStartNanos = now;
  }

  /**
   * Writes per second to each top-level name over the last complete window, highest first; empty
   * before a window completed, or once the window after it is a whole window overdue (the writes
   * stopped: the rates would be stale). A window closes at the first write after its end, so at a
   * low rate the next one closes a little late; the last one stands meanwhile. Any thread.
   */
  Map<String, Double> rates() {
    Published p = published;
    if (p.endNanos() == Long.MIN_VALUE || ticker.nanoTime() - p.endNanos() > 2 * windowNanos) {
      return Map.of();
    }
    List<Map.Entry<String, Double>> sorted = new ArrayList<>(p.rates().entrySet());
    sorted.sort(
        Map.Entry.<String, Double>comparingByValue(Comparator.reverseOrder())
            .thenComparing(Map.Entry.comparingByKey()));
    Map<String, Double> ordered = new LinkedHashMap<>();
    sorted.forEach(e -> ordered.put(e.getKey(), e.getValue()));
    return ordered;
  }
}
