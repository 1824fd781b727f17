package io.zoolander.server.internal.repeater;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.zoolander.server.internal.repeater.RetransmissionLog.Range;
import io.zoolander.server.internal.repeater.RetransmissionLog.Resume;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The log and its decisions, without I/O: frames are tagged heap buffers whose release is checked.
 */
class RetransmissionLogTest {

  private final List<ByteBuf> appended = new ArrayList<>();

  private ByteBuf frame(long tag) {
    ByteBuf b = Unpooled.buffer(8).writeLong(tag);
    appended.add(b);
    return b;
  }

  private static long tag(ByteBuf b) {
    return b.getLong(0);
  }

  private RetransmissionLog logWith(int capacity, long nextSeq, int entries) {
    RetransmissionLog log = new RetransmissionLog(capacity, nextSeq);
    for (int i = 0; i < entries; i++) {
      long seq = log.nextSeq();
      assertThat(log.append(frame(seq))).isEqualTo(seq);
    }
    return log;
  }

  @Test
  void appendsAssignConsecutiveSeqsFromTheStart() {
    RetransmissionLog log = logWith(8, 101, 3);
    assertThat(log.firstSeq()).isEqualTo(101);
    assertThat(log.lastSeq()).isEqualTo(103);
    assertThat(log.nextSeq()).isEqualTo(104);
    assertThat(log.size()).isEqualTo(3);
    for (long seq = 101; seq <= 103; seq++) {
      assertThat(tag(log.get(seq))).isEqualTo(seq);
    }
  }

  @Test
  void anEmptyLogHoldsNothingAndContinuesTheSequence() {
    RetransmissionLog log = new RetransmissionLog(4, 1);
    assertThat(log.isEmpty()).isTrue();
    assertThat(log.lastSeq()).isZero();
    assertThat(log.get(1)).isNull();
    assertThat(log.holds(0)).isFalse();
  }

  @Test
  void rangeLookupHoldsExactlyTheContiguousRange() {
    RetransmissionLog log = logWith(8, 1, 6);
    log.trimThrough(2); // holds 3..6
    assertThat(log.holds(2)).isFalse();
    assertThat(log.get(2)).isNull();
    for (long seq = 3; seq <= 6; seq++) {
      assertThat(log.holds(seq)).isTrue();
      assertThat(tag(log.get(seq))).isEqualTo(seq);
    }
    assertThat(log.holds(7)).isFalse();
    assertThat(log.get(7)).isNull();
    assertThat(log.get(-1)).isNull();
  }

  @Test
  void fullLogRefusesAppendUntilRoomIsMade() {
    RetransmissionLog log = logWith(3, 1, 3);
    assertThat(log.isFull()).isTrue();
    assertThatThrownBy(() -> log.append(Unpooled.buffer(1)))
        .isInstanceOf(IllegalStateException.class);
    assertThat(log.evictOldest()).isEqualTo(1);
    assertThat(appended.get(0).refCnt()).isZero();
    assertThat(log.append(frame(4))).isEqualTo(4);
    assertThat(log.firstSeq()).isEqualTo(2);
    assertThat(log.get(1)).isNull();
    assertThat(tag(log.get(4))).isEqualTo(4);
  }

  @Test
  void wrapsAroundTheRingManyTimes() {
    RetransmissionLog log = new RetransmissionLog(5, 1);
    for (long seq = 1; seq <= 1000; seq++) {
      if (log.isFull()) {
        log.evictOldest();
      }
      log.append(frame(seq));
      assertThat(log.firstSeq()).isEqualTo(Math.max(1, seq - 4));
      for (long s = log.firstSeq(); s <= seq; s++) {
        assertThat(tag(log.get(s))).isEqualTo(s);
      }
    }
    assertThat(log.get(995)).isNull();
    assertThat(log.holds(996)).isTrue();
    assertThat(log.holds(1001)).isFalse();
    long released = appended.stream().filter(b -> b.refCnt() == 0).count();
    assertThat(released).isEqualTo(995);
  }

  @Test
  void trimDropsEverythingUpToTheAckAndReleasesIt() {
    RetransmissionLog log = logWith(10, 1, 6);
    assertThat(log.trimThrough(3)).isEqualTo(3);
    assertThat(log.firstSeq()).isEqualTo(4);
    assertThat(appended.subList(0, 3)).allMatch(b -> b.refCnt() == 0);
    assertThat(appended.subList(3, 6)).allMatch(b -> b.refCnt() == 1);
    assertThat(log.trimThrough(2)).isZero(); // an older ack changes nothing
    assertThat(log.trimThrough(100)).isEqualTo(3); // clamped to what was sequenced
    assertThat(log.isEmpty()).isTrue();
    assertThat(log.nextSeq()).isEqualTo(7);
    assertThat(log.append(frame(7))).isEqualTo(7);
  }

  @Test
  void clearReleasesEverything() {
    RetransmissionLog log = logWith(10, 1, 4);
    log.clear();
    assertThat(appended).allMatch(b -> b.refCnt() == 0);
    assertThat(log.nextSeq()).isEqualTo(5);
  }

  @Test
  void resumeDecidesFromTheAppliedSeq() {
    RetransmissionLog log = logWith(4, 11, 4); // holds 11..14
    assertThat(log.resume(14)).isEqualTo(Resume.UP_TO_DATE);
    assertThat(log.resume(13)).isEqualTo(Resume.FROM_LOG);
    assertThat(log.resume(10)).isEqualTo(Resume.FROM_LOG); // needs 11, held
    assertThat(log.resume(9)).isEqualTo(Resume.GONE); // needs 10: sequenced before this repeater
    assertThat(log.resume(15)).isEqualTo(Resume.AHEAD);
    log.trimThrough(12);
    assertThat(log.resume(11)).isEqualTo(Resume.GONE);
    assertThat(log.resume(12)).isEqualTo(Resume.FROM_LOG);
  }

  @Test
  void aFreshRepeaterCanResumeOnlyDuplicatesThatAreUpToDate() {
    RetransmissionLog log = new RetransmissionLog(4, 101); // max appliedSeq read at start: 100
    assertThat(log.resume(100)).isEqualTo(Resume.UP_TO_DATE);
    assertThat(log.resume(99)).isEqualTo(Resume.GONE);
  }

  @Test
  void retransmitIsServedOnlyFromTheLog() {
    RetransmissionLog log = logWith(4, 1, 4); // 1..4
    log.trimThrough(1); // 2..4
    assertThat(log.retransmit(2)).isEqualTo(Range.SERVE);
    assertThat(log.retransmit(4)).isEqualTo(Range.SERVE);
    assertThat(log.retransmit(1)).isEqualTo(Range.GONE);
    assertThat(log.retransmit(5)).isEqualTo(Range.NOTHING);
  }

  @Test
  void backPressurePrefersEvictingWhatSomeoneAckedOverRefusing() {
    RetransmissionLog log = logWith(3, 1, 3); // 1..3, full
    assertThat(log.mayAppend(0))
        .isFalse(); // nobody has applied seq 1: evicting it could fence everyone
    assertThat(log.mayAppend(1))
        .isTrue(); // a duplicate acked it: the laggards get fenced, writes go on
    assertThat(log.mayAppend(Long.MAX_VALUE))
        .isTrue(); // every duplicate fenced: nothing worth keeping
    log.trimThrough(1);
    assertThat(log.mayAppend(0)).isTrue(); // room
  }

  @Test
  void rejectsInvalidConstruction() {
    assertThatThrownBy(() -> new RetransmissionLog(0, 1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new RetransmissionLog(1, 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new RetransmissionLog(1, 1).evictOldest())
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void theLogIsBoundedInBytesTooAndHoldsOneFrameWhateverItsSize() {
    RetransmissionLog log = new RetransmissionLog(1_000, 20, 1); // 20 bytes: two 8-byte frames
    assertThat(log.hasRoomFor(8)).isTrue();
    log.append(frame(1));
    log.append(frame(2));
    assertThat(log.bytes()).isEqualTo(16);
    assertThat(log.isFull()).as("not by count").isFalse();
    assertThat(log.hasRoomFor(8)).as("a third would exceed 20 bytes").isFalse();
    assertThat(log.mayEvictOldest(0)).as("no duplicate acked seq 1").isFalse();
    assertThat(log.mayEvictOldest(1)).isTrue();
    log.evictOldest();
    assertThat(log.bytes()).isEqualTo(8);
    assertThat(log.hasRoomFor(8)).isTrue();
    log.trimThrough(2);
    assertThat(log.bytes()).isZero();
    assertThat(log.hasRoomFor(1 << 20)).as("an empty log takes any one frame").isTrue();
    assertThat(appended).allMatch(b -> b.refCnt() == 0);
  }
}
