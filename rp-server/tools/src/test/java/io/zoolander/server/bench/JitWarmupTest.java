package io.zoolander.server.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link JitWarmup}'s rule on a clock and a compiler activity it is given: each turn lasts 1 s of
 * the fake clock and reports the compile time the test lists.
 */
class JitWarmupTest {
  private static final long SECOND = 1_000_000_000L;

  private long now;
  private final Deque<Long> compileNanos = new ArrayDeque<>();
  private int turnsRun;

  @Test
  void endsAfterTwoQuietTurnsInARow() throws Exception {
    // before the first turn (left out), then turns at 40%, 2%, 10%, 1%, 3%: quiet at the 5th
    script(5 * SECOND, 400_000_000L, 20_000_000L, 100_000_000L, 10_000_000L, 30_000_000L);
    JitWarmup.Outcome outcome = run(Duration.ofSeconds(60));
    assertThat(outcome.quiet()).isTrue();
    assertThat(outcome.turns()).isEqualTo(5).isEqualTo(turnsRun);
    assertThat(outcome.seconds()).isEqualTo(5.0);
    assertThat(outcome.lastTurnShare()).isEqualTo(0.03);
    assertThat(outcome.describe())
        .isEqualTo("JIT quiet after 5 s (5 turns; compilers at 3.0% of a core over the last)");
  }

  @Test
  void aTurnJustAboveTheShareIsNotQuiet() throws Exception {
    script(0, 10_000_000L, 30_000_001L, 0L, 0L);
    assertThat(run(Duration.ofSeconds(60)).turns()).isEqualTo(4);
  }

  @Test
  void stopsAtTheBoundWhenTheCompilersNeverQuieten() throws Exception {
    script(0, 500_000_000L, 500_000_000L, 500_000_000L, 500_000_000L);
    JitWarmup.Outcome outcome = run(Duration.ofSeconds(3));
    assertThat(outcome.quiet()).isFalse();
    assertThat(outcome.turns()).as("the bound is checked at the end of a turn").isEqualTo(3);
    assertThat(outcome.describe()).startsWith("JIT still busy at the bound after 3 s (3 turns;");
  }

  @Test
  void aTurnsFailureEndsTheWarmUp() {
    script(0, 0L);
    assertThatThrownBy(
            () ->
                JitWarmup.run(
                    () -> {
                      throw new IllegalStateException("deployment down");
                    },
                    compileNanos::removeFirst,
                    () -> now,
                    Duration.ofSeconds(5)))
        .hasMessage("deployment down");
  }

  @Test
  void refusesANonPositiveBound() {
    assertThatThrownBy(() -> JitWarmup.run(() -> {}, () -> 0, () -> 0, Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("max warm-up");
  }

  private void script(long before, Long... turns) {
    compileNanos.add(before);
    compileNanos.addAll(List.of(turns));
  }

  private JitWarmup.Outcome run(Duration max) throws Exception {
    return JitWarmup.run(
        () -> {
          turnsRun++;
          now += SECOND;
        },
        compileNanos::removeFirst,
        () -> now,
        max);
  }
}
