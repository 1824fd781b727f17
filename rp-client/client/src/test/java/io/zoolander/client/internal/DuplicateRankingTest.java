package io.zoolander.client.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class DuplicateRankingTest {

  @Test
  void unsampledDuplicatesComeFirstThenTheFastest() {
    DuplicateRanking ranking = new DuplicateRanking(3);
    assertThat(ranking.order(i -> true)).containsExactly(0, 1, 2);
    ranking.recordReply(0, 5_000_000);
    ranking.recordReply(1, 1_000_000);
    assertThat(ranking.order(i -> true)).containsExactly(2, 1, 0);
    ranking.recordReply(2, 3_000_000);
    assertThat(ranking.order(i -> true)).containsExactly(1, 2, 0);
    assertThat(ranking.order(i -> i != 1)).containsExactly(2, 0);
  }

  @Test
  void recentLatencyMovesTheRankingAndFailuresPenalise() {
    DuplicateRanking ranking = new DuplicateRanking(2);
    ranking.recordReply(0, 1_000_000);
    ranking.recordReply(1, 2_000_000);
    assertThat(ranking.order(i -> true)).containsExactly(0, 1);
    for (int i = 0; i < 20; i++) {
      ranking.recordReply(0, 10_000_000); // duplicate 0 became slow
    }
    assertThat(ranking.order(i -> true)).containsExactly(1, 0);
    for (int i = 0; i < 20; i++) {
      ranking.recordReply(0, 1_000_000);
    }
    assertThat(ranking.order(i -> true)).containsExactly(0, 1);
    ranking.recordFailure(0);
    ranking.recordFailure(0);
    ranking.recordFailure(0);
    // Failures inflate a fast duplicate's score past a slower healthy one.
    assertThat(ranking.score(0)).isGreaterThan(ranking.score(1) * 0.99);
    assertThat(ranking.order(i -> true)).containsExactly(1, 0);
  }

  @Test
  void hedgingPercentileComesFromRecentFirstReplies() {
    DuplicateRanking ranking = new DuplicateRanking(1);
    assertThat(ranking.latencyPercentileNanos(0.95, 123)).isEqualTo(123);
    for (int i = 1; i <= 100; i++) {
      ranking.recordFirstReply(i * 1_000L);
    }
    assertThat(ranking.latencyPercentileNanos(0.95, 0)).isEqualTo(95_000);
    assertThat(ranking.latencyPercentileNanos(0.5, 0)).isEqualTo(50_000);
  }

  @Test
  void aDuplicateAddedLaterRanksFirstAndARetiredOneIsLeftOutWithoutMovingIndexes() {
    DuplicateRanking ranking = new DuplicateRanking(2);
    ranking.recordReply(0, 1_000_000);
    ranking.recordReply(1, 2_000_000);
    assertThat(ranking.add()).isEqualTo(2);
    assertThat(ranking.size()).isEqualTo(3);
    // Unsampled, the new duplicate is tried first.
    assertThat(ranking.order(i -> true)).containsExactly(2, 0, 1);
    ranking.recordReply(2, 3_000_000);
    assertThat(ranking.order(i -> true)).containsExactly(0, 1, 2);

    ranking.setReadable(0, false); // retired (or joining)
    assertThat(ranking.readable(0)).isFalse();
    assertThat(ranking.order(i -> true)).containsExactly(1, 2);
    assertThat(ranking.add()).as("a retired index is never reused").isEqualTo(3);
    assertThat(ranking.order(i -> true)).containsExactly(3, 1, 2);

    ranking.setReadable(0, true); // a joining duplicate caught up: its samples were kept
    assertThat(ranking.order(i -> i != 3)).containsExactly(0, 1, 2);
  }
}
