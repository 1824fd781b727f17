package io.zoolander.client.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.zoolander.wire.Message;
import org.junit.jupiter.api.Test;

/** The client's record of announced planned slowness, with an injected clock. */
class PlannedSlownessTableTest {

  private long now = 5_000_000_000L;

  @Test
  void anAnnouncementLastsUntilItsEndOrItsMaximum() {
    PlannedSlownessTable table = new PlannedSlownessTable(2, () -> now);
    assertThat(table.isSlow(0)).isFalse();
    table.announced(0, new Message.PlannedSlowness(1, 100));
    assertThat(table.isSlow(0)).isTrue();
    assertThat(table.isSlow(1)).isFalse();
    now += 99_000_000L;
    assertThat(table.isSlow(0)).isTrue();
    now += 1_000_000L;
    assertThat(table.isSlow(0)).as("the maximum passed").isFalse();

    table.announced(1, new Message.PlannedSlowness(2, 100));
    table.announced(1, new Message.PlannedSlowness(2, 0));
    assertThat(table.isSlow(1)).as("ended").isFalse();
  }

  @Test
  void aDuplicateAddedLaterIsNotSlowAndCanAnnounce() {
    PlannedSlownessTable table = new PlannedSlownessTable(1, () -> now);
    table.announced(0, new Message.PlannedSlowness(1, 100));
    assertThat(table.add()).isEqualTo(1);
    assertThat(table.isSlow(1)).isFalse();
    assertThat(table.isSlow(0)).as("kept across the growth").isTrue();
    table.announced(1, new Message.PlannedSlowness(3, 100));
    assertThat(table.isSlow(1)).isTrue();
  }
}
