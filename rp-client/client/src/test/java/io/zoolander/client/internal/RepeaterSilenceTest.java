package io.zoolander.client.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RepeaterSilenceTest {
  private static final int ENOUGH = RepeaterSilence.SENDS_BEFORE_SUSPECTING;
  private final RepeaterSilence silence = new RepeaterSilence();

  @Test
  void aWriteSentEnoughTimesWithNothingHeardSinceMakesTheConnectionSuspect() {
    assertThat(silence.suspect(100, ENOUGH - 1, true, true, 500)).isFalse();
    assertThat(silence.suspect(100, ENOUGH, true, true, 600)).isTrue();
  }

  @Test
  void anythingHeardSinceTheWriteBeganClearsIt() {
    silence.heard(150);
    assertThat(silence.suspect(100, ENOUGH, true, true, 600)).isFalse();
    // Heard before this write began: says nothing about it.
    assertThat(silence.suspect(200, ENOUGH, true, true, 700)).isTrue();
  }

  @Test
  void notWhenTheSilenceIsExplainedElsewhere() {
    assertThat(silence.suspect(100, ENOUGH, false, true, 600)).as("already reconnecting").isFalse();
    assertThat(silence.suspect(100, ENOUGH, true, false, 600)).as("no plugin to reply").isFalse();
  }

  @Test
  void onceForTheWritesBegunBeforeASuspicion() {
    assertThat(silence.suspect(100, ENOUGH, true, true, 600)).isTrue();
    assertThat(silence.suspect(100, ENOUGH + 1, true, true, 800)).isFalse();
    assertThat(silence.suspect(300, ENOUGH, true, true, 900)).as("began before it").isFalse();
    assertThat(silence.suspect(700, ENOUGH, true, true, 1_500)).as("began after it").isTrue();
  }
}
