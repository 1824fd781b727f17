package io.zoolander.model;

import java.util.List;

/**
 * The miss ratio {@code 1 - SLA(tau)} over a range of bounds, from one {@link SlaEngine} run (the
 * same simulated accesses for every tau). Immutable.
 *
 * @param all every access (reads and writes in the engine's mix)
 * @param reads reads only (empty when the mix has no reads)
 * @param writes writes only (empty when the mix has no writes)
 */
public record MissCurve(List<SlaEstimate> all, List<SlaEstimate> reads, List<SlaEstimate> writes) {
  public MissCurve {
    all = List.copyOf(all);
    reads = List.copyOf(reads);
    writes = List.copyOf(writes);
  }

  /** The bounds, in the order given. */
  public double[] tausMs() {
    return all.stream().mapToDouble(SlaEstimate::tauMs).toArray();
  }

  /** The miss ratio at each bound. */
  public double[] missRatios() {
    return all.stream().mapToDouble(SlaEstimate::missRatio).toArray();
  }
}
