package io.zoolander.client.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zoolander.client.ReadPolicy;
import io.zoolander.wire.Ticker;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The adaptive policy with an injected clock: no sleeping, every decision reproducible. */
class AdaptiveConcurrencyTest {
  private long nowNanos;
  private final Ticker ticker = () -> nowNanos;

  private AdaptiveConcurrency adaptive(int duplicates) {
    return new AdaptiveConcurrency(
        ReadPolicy.adaptiveBuilder().windowReads(20).build(), duplicates, ticker);
  }

  /**
   * One window of reads whose reply latencies are {@code fast} except every {@code slowEvery}-th
   * one.
   */
  private void window(
      AdaptiveConcurrency a, long fastNanos, long slowNanos, int slowEvery, int failEvery) {
    for (int i = 1; i <= 20; i++) {
      a.recordLatency(slowEvery > 0 && i % slowEvery == 0 ? slowNanos : fastNanos);
      nowNanos += TimeUnit.MICROSECONDS.toNanos(100);
      a.recordRead(failEvery > 0 && i % failEvery == 0);
    }
  }

  @Test
  void highVariationRaisesCUpToTheNumberOfDuplicatesAndCalmLowersItBack() {
    AdaptiveConcurrency a = adaptive(3);
    assertThat(a.current()).isEqualTo(1);
    window(a, 1_000_000, 20_000_000, 4, 0); // 25% of replies 20x slower: p90/p50 = 20
    assertThat(a.lastVariation()).isEqualTo(20.0);
    assertThat(a.current()).isEqualTo(2);
    window(a, 1_000_000, 20_000_000, 4, 0);
    assertThat(a.current()).isEqualTo(3);
    window(a, 1_000_000, 20_000_000, 4, 0);
    assertThat(a.current()).as("capped at N").isEqualTo(3);
    window(a, 1_000_000, 0, 0, 0); // calm: variation 1, no failures
    assertThat(a.current()).isEqualTo(2);
    window(a, 1_000_000, 0, 0, 0);
    window(a, 1_000_000, 0, 0, 0);
    assertThat(a.current()).as("floored at the minimum").isEqualTo(1);
  }

  @Test
  void failuresAloneRaiseC() {
    AdaptiveConcurrency a = adaptive(4);
    window(a, 1_000_000, 0, 0, 5); // 20% of reads needed another duplicate
    assertThat(a.lastFailureRatio()).isEqualTo(0.2);
    assertThat(a.current()).isEqualTo(2);
  }

  @Test
  void inBetweenKeepsC() {
    AdaptiveConcurrency a = adaptive(4);
    window(a, 1_000_000, 20_000_000, 4, 0);
    assertThat(a.current()).isEqualTo(2);
    window(a, 1_000_000, 3_000_000, 4, 0); // variation 3: between lower (2.0) and raise (4.0)
    assertThat(a.current()).isEqualTo(2);
  }

  @Test
  void aWindowAlsoClosesOnTimeWithEnoughReads() {
    AdaptiveConcurrency a =
        new AdaptiveConcurrency(ReadPolicy.adaptiveBuilder().windowReads(1_000).build(), 3, ticker);
    for (int i = 0; i < 10; i++) {
      a.recordLatency(i < 7 ? 1_000_000 : 30_000_000);
      a.recordRead(false);
    }
    assertThat(a.current()).isEqualTo(1);
    nowNanos += TimeUnit.SECONDS.toNanos(2);
    a.recordLatency(1_000_000);
    a.recordRead(false);
    assertThat(a.current()).isEqualTo(2);
  }

  @Test
  void fixedAndHedgedPoliciesNeverMove() {
    AdaptiveConcurrency fixed = new AdaptiveConcurrency(ReadPolicy.fixed(2), 3, ticker);
    AdaptiveConcurrency hedged = new AdaptiveConcurrency(ReadPolicy.hedged(0.95), 3, ticker);
    window(fixed, 1_000_000, 50_000_000, 2, 2);
    window(hedged, 1_000_000, 50_000_000, 2, 2);
    assertThat(fixed.current()).isEqualTo(2);
    assertThat(hedged.current()).isEqualTo(1);
    assertThat(new AdaptiveConcurrency(ReadPolicy.all(), 4, ticker).current()).isEqualTo(4);
  }

  @Test
  void theMaximumFollowsTheNumberOfActiveDuplicates() {
    AdaptiveConcurrency all = new AdaptiveConcurrency(ReadPolicy.all(), 1, ticker);
    assertThat(all.current()).isEqualTo(1);
    all.setDuplicates(3); // two duplicates added online
    assertThat(all.current()).isEqualTo(3);
    assertThat(all.maxConcurrency()).isEqualTo(3);
    all.setDuplicates(2); // one retired
    assertThat(all.current()).isEqualTo(2);

    AdaptiveConcurrency fixed = new AdaptiveConcurrency(ReadPolicy.fixed(2), 1, ticker);
    assertThat(fixed.current()).isEqualTo(1);
    fixed.setDuplicates(4);
    assertThat(fixed.current()).as("its own C once there are duplicates for it").isEqualTo(2);

    AdaptiveConcurrency hedged = new AdaptiveConcurrency(ReadPolicy.hedged(0.95), 1, ticker);
    hedged.setDuplicates(3);
    assertThat(hedged.current()).isEqualTo(1);

    AdaptiveConcurrency adaptive = adaptive(2);
    window(adaptive, 1_000_000, 20_000_000, 4, 0);
    assertThat(adaptive.current()).isEqualTo(2);
    window(adaptive, 1_000_000, 20_000_000, 4, 0);
    assertThat(adaptive.current()).as("held at N = 2").isEqualTo(2);
    adaptive.setDuplicates(3);
    assertThat(adaptive.current()).as("kept, now below the new maximum").isEqualTo(2);
    window(adaptive, 1_000_000, 20_000_000, 4, 0);
    assertThat(adaptive.current()).as("raised to the third duplicate").isEqualTo(3);
    adaptive.setDuplicates(1);
    assertThat(adaptive.current()).as("never above the active duplicates").isEqualTo(1);
  }

  @Test
  void anAdvisedCFollowsTheAdviceAndFallsBackWithoutIt() {
    AdaptiveConcurrency a = new AdaptiveConcurrency(ReadPolicy.advised(1), 3, ticker);
    assertThat(a.current()).as("no advice before any record").isEqualTo(1);
    assertThat(a.advisedFanOut()).isZero();
    a.setAdvisedFanOut(2);
    assertThat(a.current()).isEqualTo(2);
    assertThat(a.advisedFanOut()).isEqualTo(2);
    window(a, 1_000_000, 50_000_000, 2, 2); // variation and failures that would raise an adaptive C
    assertThat(a.current()).as("never moves by itself").isEqualTo(2);
    a.setAdvisedFanOut(5);
    assertThat(a.current()).as("capped at the active duplicates").isEqualTo(3);
    a.setAdvisedFanOut(0);
    assertThat(a.current()).as("no advice: C without advice").isEqualTo(1);
    assertThatThrownBy(() -> a.setAdvisedFanOut(-1)).hasMessageContaining("fanOut");
    assertThat(a.current()).isEqualTo(1);

    AdaptiveConcurrency two = new AdaptiveConcurrency(ReadPolicy.advised(2), 3, ticker);
    assertThat(two.current()).isEqualTo(2);
    two.setAdvisedFanOut(1);
    assertThat(two.current()).as("advice below C without advice is followed too").isEqualTo(1);
    two.setAdvisedFanOut(0);
    assertThat(two.current()).isEqualTo(2);
    assertThat(new AdaptiveConcurrency(ReadPolicy.advised(4), 2, ticker).current())
        .as("C without advice capped at the duplicates")
        .isEqualTo(2);
  }

  @Test
  void anAdvisedCSurvivesAChangeOfDuplicates() {
    AdaptiveConcurrency a = new AdaptiveConcurrency(ReadPolicy.advised(1), 2, ticker);
    a.setAdvisedFanOut(3);
    assertThat(a.current()).as("capped at N = 2").isEqualTo(2);
    a.setDuplicates(3); // a duplicate added online
    assertThat(a.current()).as("the advice, now that there are duplicates for it").isEqualTo(3);
    a.setDuplicates(4);
    assertThat(a.current()).as("kept, not reset to C without advice nor raised to N").isEqualTo(3);
    assertThat(a.maxConcurrency()).isEqualTo(4);
    a.setDuplicates(1); // retired down to one
    assertThat(a.current()).isEqualTo(1);
    a.setDuplicates(3);
    assertThat(a.current()).isEqualTo(3);
    a.setAdvisedFanOut(0);
    a.setDuplicates(4);
    assertThat(a.current()).as("no advice: C without advice").isEqualTo(1);
  }

  @Test
  void otherPoliciesIgnoreTheAdvice() {
    AdaptiveConcurrency fixed = new AdaptiveConcurrency(ReadPolicy.fixed(2), 4, ticker);
    AdaptiveConcurrency all = new AdaptiveConcurrency(ReadPolicy.all(), 4, ticker);
    AdaptiveConcurrency hedged = new AdaptiveConcurrency(ReadPolicy.hedged(0.95), 4, ticker);
    AdaptiveConcurrency adaptive = adaptive(4);
    window(adaptive, 1_000_000, 20_000_000, 4, 0);
    assertThat(adaptive.current()).isEqualTo(2);
    for (AdaptiveConcurrency a : List.of(fixed, all, hedged, adaptive)) {
      a.setAdvisedFanOut(3);
      assertThat(a.advisedFanOut()).isEqualTo(3);
    }
    assertThat(fixed.current()).isEqualTo(2);
    assertThat(all.current()).isEqualTo(4);
    assertThat(hedged.current()).isEqualTo(1);
    assertThat(adaptive.current()).isEqualTo(2);
    fixed.setDuplicates(3);
    assertThat(fixed.current()).as("its own C, not the advice").isEqualTo(2);
    window(adaptive, 1_000_000, 0, 0, 0); // calm: the adaptive policy lowers its own C
    assertThat(adaptive.current()).isEqualTo(1);
  }
}
