package io.zoolander.server.internal.repeater;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The failover election's decision: who tries to take over first when the active repeater is
 * presumed dead. The usual ZooKeeper recipe: every repeater holds an ephemeral sequential candidate
 * znode, and the lowest sequence goes first. Candidates are told apart by the heartbeat address
 * they advertise (unique per process); the presumed dead active repeater's candidate, which
 * outlives it until its session expires, does not count. The election only decides who tries: the
 * epoch claim is the fence, so two standbys that disagree (they read the order at different
 * moments, or from different duplicates) cost a failed or superseded claim, never two sequencers.
 */
public final class CandidateOrder {

  /**
   * One candidate znode.
   *
   * @param name its znode name, {@code candidate-<10-digit sequence>}
   * @param heartbeat the heartbeat address its repeater advertises, {@code host:port}
   */
  public record Candidate(String name, String heartbeat) {}

  private final List<Candidate> candidates;

  /** The candidates as listed, in any order. */
  public CandidateOrder(List<Candidate> listed) {
    List<Candidate> sorted = new ArrayList<>(listed);
    sorted.sort(
        Comparator.comparingLong((Candidate c) -> sequence(c.name()))
            .thenComparing(Candidate::name));
    this.candidates = List.copyOf(sorted);
  }

  /**
   * How many candidates go before {@code self}, not counting {@code presumedDead}; the number of
   * live candidates if {@code self} is not listed (its znode is missing here: it goes last).
   *
   * @param presumedDead the heartbeat address of the repeater presumed dead, null if none
   */
  public int rank(String self, String presumedDead) {
    int rank = 0;
    for (Candidate c : candidates) {
      if (c.heartbeat().equals(presumedDead)) {
        continue;
      }
      if (c.heartbeat().equals(self)) {
        return rank;
      }
      rank++;
    }
    return rank;
  }

  /**
   * How long {@code self} waits before it tries: nothing when first, one step per candidate before
   * it (each of them may take over meanwhile, which this one then follows).
   */
  public long pauseMillis(String self, String presumedDead, long stepMillis) {
    return rank(self, presumedDead) * stepMillis;
  }

  /** The sequence ZooKeeper appended to a candidate's name; names without one sort last. */
  static long sequence(String name) {
    int dash = name.lastIndexOf('-');
    try {
      return Long.parseLong(name.substring(dash + 1));
    } catch (NumberFormatException e) {
      return Long.MAX_VALUE;
    }
  }
}
