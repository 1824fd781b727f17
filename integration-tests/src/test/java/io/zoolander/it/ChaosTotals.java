package io.zoolander.it;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * What the schedules of one {@code ChaosIT} run did, summed for one line at the end: the figures of
 * the table in {@code docs/reliability.md}. Only schedules whose history and convergence checked
 * out are added (a failing one is reported by JUnit with its seed). Thread-safe.
 */
final class ChaosTotals {
  private final Map<String, Integer> faults = new TreeMap<>();
  private final List<Long> seeds = new ArrayList<>();
  private final List<Long> failoverMillis = new ArrayList<>();
  private long writes;
  private long reads;
  private long unansweredReads;
  private long longestGapMillis;
  private long longestGapSeed;

  synchronized void fault(String kind) {
    faults.merge(kind, 1, Integer::sum);
  }

  synchronized void failover(long millis) {
    failoverMillis.add(millis);
  }

  synchronized void schedule(
      long seed, long writes, long reads, long unansweredReads, long longestGapMillis) {
    seeds.add(seed);
    this.writes += writes;
    this.reads += reads;
    this.unansweredReads += unansweredReads;
    if (longestGapMillis > this.longestGapMillis) {
      this.longestGapMillis = longestGapMillis;
      this.longestGapSeed = seed;
    }
  }

  synchronized String describe() {
    if (seeds.isEmpty()) {
      return "CHAOS TOTALS: no schedule passed";
    }
    String faultList =
        faults.entrySet().stream()
            .map(e -> e.getKey() + " " + e.getValue())
            .collect(Collectors.joining(", "));
    long longestFailover = failoverMillis.stream().mapToLong(Long::longValue).max().orElse(0);
    return String.format(
        "CHAOS TOTALS: %d schedules passed (seeds %d to %d); faults: %s; automatic failovers %d"
            + " (longest %d ms); %d writes acknowledged, none lost or applied twice; %d reads (%d"
            + " unanswered); no divergence; longest time without a write acknowledged %d ms (seed"
            + " %d)",
        seeds.size(),
        seeds.get(0),
        seeds.get(seeds.size() - 1),
        faultList,
        failoverMillis.size(),
        longestFailover,
        writes,
        reads,
        unansweredReads,
        longestGapMillis,
        longestGapSeed);
  }
}
