package io.zoolander.server.repeater;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * How a repeater took over when it started ({@link Repeater#takeover()}).
 *
 * @param epoch the epoch it claimed at a majority of the duplicates
 * @param appliedSeqs each claimed duplicate's applied seq when the epoch was claimed there (a
 *     duplicate left out of the claim is absent), by duplicate id: final, since no older repeater
 *     can get a write applied after the claim
 * @param recoveredFromSeq the first write recovered from the most advanced duplicates for the
 *     others; {@code recoveredToSeq + 1} when none was
 * @param recoveredToSeq the last write recovered: the highest applied seq
 * @param claimMillis how long reading the states and claiming the epoch took
 * @param recoveryMillis how long recovering the writes took
 */
public record Takeover(
    long epoch,
    Map<Integer, Long> appliedSeqs,
    long recoveredFromSeq,
    long recoveredToSeq,
    long claimMillis,
    long recoveryMillis) {

  public Takeover {
    appliedSeqs = Collections.unmodifiableMap(new TreeMap<>(appliedSeqs));
  }

  /** How many writes were recovered for the duplicates that had not applied them. */
  public long recoveredWrites() {
    return recoveredToSeq - recoveredFromSeq + 1;
  }
}
