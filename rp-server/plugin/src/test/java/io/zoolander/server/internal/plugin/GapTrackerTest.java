package io.zoolander.server.internal.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.embedded.EmbeddedChannel;
import io.zoolander.wire.Message;
import io.zoolander.wire.Op;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class GapTrackerTest {

  private static final long TIMEOUT = TimeUnit.MILLISECONDS.toNanos(100);

  private final EmbeddedChannel repeater = new EmbeddedChannel();

  private static Message.Sequenced write(long epoch, long seq) {
    return new Message.Sequenced(epoch, seq, 9, seq, List.of(Op.setData("/k", new byte[1], -1)));
  }

  @Test
  void holdsMessagesAheadAndGivesThemBackInSeqOrder() {
    GapTracker gaps = new GapTracker(10, 1);
    assertThat(gaps.open(1)).isFalse();
    gaps.hold(repeater, write(1, 4));
    gaps.hold(repeater, write(1, 3));
    assertThat(gaps.open(1)).isTrue();
    assertThat(gaps.takeNext(1)).isNull();
    assertThat(gaps.takeNext(2).message().seq()).isEqualTo(3);
    assertThat(gaps.takeNext(3).message().seq()).isEqualTo(4);
    assertThat(gaps.takeNext(4)).isNull();
    assertThat(gaps.open(4)).isFalse();
  }

  @Test
  void aFullBufferKeepsTheEarliestAndTheHighestSeenStillCounts() {
    GapTracker gaps = new GapTracker(2, 1);
    gaps.hold(repeater, write(1, 5));
    gaps.hold(repeater, write(1, 6));
    gaps.hold(repeater, write(1, 7)); // dropped
    gaps.hold(repeater, write(1, 4)); // takes 6's place
    assertThat(gaps.retransmit(true, 1, 0, TIMEOUT)).isEqualTo(GapTracker.Ask.ASK);
    assertThat(gaps.askFrom()).isEqualTo(2);
    assertThat(gaps.askTo()).isEqualTo(3);
    assertThat(gaps.takeNext(3).message().seq()).isEqualTo(4);
    assertThat(gaps.takeNext(4).message().seq()).isEqualTo(5);
    assertThat(gaps.takeNext(5)).isNull();
    assertThat(gaps.open(5)).isTrue();
    assertThat(gaps.retransmit(true, 5, 0, TIMEOUT)).isEqualTo(GapTracker.Ask.ASK);
    assertThat(gaps.askFrom()).isEqualTo(6);
    assertThat(gaps.askTo()).isEqualTo(7);
  }

  @Test
  void asksOnceUntilProgressAWiderGapOrTheTimeout() {
    GapTracker gaps = new GapTracker(10, 1);
    assertThat(gaps.retransmit(true, 1, 0, TIMEOUT)).isEqualTo(GapTracker.Ask.NONE);
    gaps.hold(repeater, write(1, 5));
    assertThat(gaps.retransmit(true, 1, 0, TIMEOUT)).isEqualTo(GapTracker.Ask.ASK);
    gaps.asked(0);
    assertThat(gaps.retransmit(true, 1, TIMEOUT - 1, TIMEOUT))
        .isEqualTo(GapTracker.Ask.ASKED_ALREADY);
    assertThat(gaps.retransmit(true, 1, TIMEOUT, TIMEOUT)).isEqualTo(GapTracker.Ask.ASK);
    assertThat(gaps.retransmit(true, 2, 1, TIMEOUT)).isEqualTo(GapTracker.Ask.ASK); // progress
    gaps.asked(1);
    gaps.hold(repeater, write(1, 3));
    assertThat(gaps.retransmit(true, 2, 2, TIMEOUT)).isEqualTo(GapTracker.Ask.NOTHING_MISSING);
    assertThat(gaps.retransmit(false, 2, 2, TIMEOUT)).isEqualTo(GapTracker.Ask.NONE);
  }

  @Test
  void asksOnTheConnectionTheGapCameOnWhileItIsActive() {
    GapTracker gaps = new GapTracker(10, 1);
    assertThat(gaps.askOn()).isNull();
    gaps.hold(repeater, write(3, 5));
    assertThat(gaps.askOn()).isSameAs(repeater);
    assertThat(gaps.askEpoch(2)).isEqualTo(3);
    assertThat(gaps.askEpoch(4)).isEqualTo(4);
    repeater.close();
    assertThat(gaps.askOn()).isNull();
  }

  @Test
  void aNewerEpochReplacesAHeldMessageAndDropsTheOlderOnes() {
    GapTracker gaps = new GapTracker(10, 1);
    gaps.hold(repeater, write(1, 3));
    gaps.hold(repeater, write(1, 4));
    gaps.hold(repeater, write(2, 4));
    gaps.hold(repeater, write(1, 4)); // older than the one held: ignored
    List<GapTracker.Held> stale = gaps.dropOlderThan(2, 1);
    assertThat(stale).extracting(h -> h.message().seq()).containsExactly(3L);
    assertThat(gaps.takeNext(3).message().epoch()).isEqualTo(2);
    gaps.hold(repeater, write(2, 9));
    gaps.clear(4);
    assertThat(gaps.open(4)).isFalse();
    assertThat(gaps.takeNext(8)).isNull();
  }
}
