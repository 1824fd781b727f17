package io.zoolander.server.internal.repeater;

import io.zoolander.model.SlaEstimate;
import io.zoolander.wire.Ticker;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * The prediction for the deployment as it runs now (its live duplicates, its measured rate), kept
 * for a second of the injected clock so that attributes read together (the SLA and the two ends of
 * its interval) come from one engine run: each read recomputing at a rate that moves by the
 * millisecond could report an SLA outside the interval read a moment before. New samples wait for
 * the second to end (an ACK arriving between two reads must not split them); another bound, a
 * change in the live duplicates, the first samples after none, or none left recompute at once. Safe
 * for concurrent callers (JMX threads): one computes, the others wait for it.
 */
final class LivePrediction {
  /** How long one prediction is reused, in ns of {@link #ticker}. */
  static final long REUSE_NANOS = 1_000_000_000L;

  private final Ticker ticker;
  private Kept kept; // null until the first read

  private record Kept(SlaEstimate estimate, long atNanos, double tauMs, int live) {}

  LivePrediction(Ticker ticker) {
    this.ticker = Objects.requireNonNull(ticker, "ticker must not be null");
  }

  /**
   * @param tauMs the bound the prediction is for
   * @param hasSamples whether the prediction would have samples to use now
   * @param live how many duplicates are live now
   * @param compute runs the engine; null while there are no samples
   * @return the kept or new prediction; null while there are no samples
   */
  synchronized SlaEstimate get(
      double tauMs, boolean hasSamples, int live, Supplier<SlaEstimate> compute) {
    long now = ticker.nanoTime();
    Kept k = kept;
    if (k == null
        || k.tauMs() != tauMs
        || k.live() != live
        || (k.estimate() != null) != hasSamples
        || now - k.atNanos() >= REUSE_NANOS) {
      k = new Kept(compute.get(), now, tauMs, live);
      kept = k;
    }
    return k.estimate();
  }
}
