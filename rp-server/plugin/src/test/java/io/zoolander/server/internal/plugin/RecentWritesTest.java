package io.zoolander.server.internal.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import io.zoolander.wire.Message;
import io.zoolander.wire.Op;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

class RecentWritesTest {

  private static Message.Sequenced write(long seq, int dataBytes) {
    return new Message.Sequenced(
        1, seq, 9, seq, List.of(Op.setData("/k", new byte[dataBytes], -1)));
  }

  private static List<Long> seqs(List<Message.Sequenced> writes) {
    return writes.stream().map(Message.Sequenced::seq).toList();
  }

  private static List<Long> range(long from, long to) {
    return LongStream.rangeClosed(from, to).boxed().toList();
  }

  @Test
  void keepsTheNewestContiguousRunWithinTheCount() {
    RecentWrites recent = new RecentWrites(4, Long.MAX_VALUE);
    for (long seq = 1; seq <= 10; seq++) {
      recent.applied(write(seq, 1));
    }
    assertThat(recent.size()).isEqualTo(4);
    assertThat(seqs(recent.range(1, 100))).isEqualTo(range(7, 10));
    assertThat(seqs(recent.range(8, 9))).isEqualTo(range(8, 9));
    assertThat(recent.range(11, 20)).isEmpty();
    assertThat(recent.range(1, 6)).isEmpty();
  }

  @Test
  void keepsWithinTheBytesAndDropsAWriteLargerThanAllOfThem() {
    long one = RecentWrites.sizeOf(write(1, 1_000));
    RecentWrites recent = new RecentWrites(100, 3 * one);
    for (long seq = 1; seq <= 5; seq++) {
      recent.applied(write(seq, 1_000));
    }
    assertThat(seqs(recent.range(1, 5))).isEqualTo(range(3, 5));
    assertThat(recent.bytes()).isEqualTo(3 * one);
    recent.applied(
        write(6, 10_000)); // too large to hold: holding 7 later without it would leave a hole
    assertThat(recent.isEmpty()).isTrue();
    recent.applied(write(7, 1));
    assertThat(seqs(recent.range(1, 10))).containsExactly(7L);
  }

  @Test
  void aWriteThatDoesNotFollowTheLastStartsAFreshRun() {
    RecentWrites recent = new RecentWrites(100, Long.MAX_VALUE);
    recent.applied(write(1, 1));
    recent.applied(write(2, 1));
    recent.applied(write(5, 1));
    assertThat(seqs(recent.range(1, 10))).containsExactly(5L);
    assertThat(recent.firstSeq()).isEqualTo(5);
    assertThat(recent.lastSeq()).isEqualTo(5);
  }

  @Test
  void zeroMessagesHoldsNothing() {
    RecentWrites recent = new RecentWrites(0, Long.MAX_VALUE);
    recent.applied(write(1, 1));
    assertThat(recent.isEmpty()).isTrue();
  }
}
