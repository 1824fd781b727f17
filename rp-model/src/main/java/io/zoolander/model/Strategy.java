package io.zoolander.model;

import static io.zoolander.model.internal.Preconditions.checkPositive;

/**
 * How a node budget is used: {@code replicaSets} sets that split the arrival stream between them
 * (replication for throughput, each set sees {@code lambda / replicaSets}), each set made of {@code
 * duplicatesPerSet} duplicates that all serve every access of the set and answer with the first
 * reply (replication for predictability).
 *
 * @param replicaSets number of sets the arrivals are split across, {@code >= 1}
 * @param duplicatesPerSet duplicates inside each set, {@code >= 1}
 */
public record Strategy(int replicaSets, int duplicatesPerSet) {

  public Strategy {
    checkPositive(replicaSets, "replicaSets");
    checkPositive(duplicatesPerSet, "duplicatesPerSet");
  }

  /** Replication for predictability: {@code duplicates} copies, every access sent to all. */
  public static Strategy predictability(int duplicates) {
    return new Strategy(1, duplicates);
  }

  /** Replication for throughput: {@code replicas} copies, each access sent to one. */
  public static Strategy throughput(int replicas) {
    return new Strategy(replicas, 1);
  }

  /** A mix: {@code replicaSets} sets of {@code duplicatesPerSet} duplicates. */
  public static Strategy mix(int replicaSets, int duplicatesPerSet) {
    return new Strategy(replicaSets, duplicatesPerSet);
  }

  /** Nodes the strategy uses: {@code replicaSets * duplicatesPerSet}. */
  public int nodes() {
    return replicaSets * duplicatesPerSet;
  }

  /** The arrival rate each set (and so each of its duplicates) sees. */
  public double perSetArrivalRate(double arrivalRatePerSec) {
    return arrivalRatePerSec / replicaSets;
  }

  @Override
  public String toString() {
    if (replicaSets == 1) {
      return "RP(d=" + duplicatesPerSet + ")";
    }
    if (duplicatesPerSet == 1) {
      return "throughput(r=" + replicaSets + ")";
    }
    return "mix(r=" + replicaSets + " x d=" + duplicatesPerSet + ")";
  }
}
