package io.zoolander.server.internal.repeater;

import static org.assertj.core.api.Assertions.assertThat;

import io.zoolander.wire.Message;
import io.zoolander.wire.Op;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/**
 * Planning a takeover's recovery, against fake duplicates that hold given ranges of recent writes.
 */
class RecoveryTest {

  /** Duplicate id to the seqs its plugin still holds (a contiguous run, or none). */
  private final Map<Integer, long[]> held = new LinkedHashMap<>();

  private final List<String> asked = new ArrayList<>();

  private List<Message.Sequenced> fetch(int duplicateId, long from, long to) {
    asked.add(duplicateId + ":" + from + ".." + to);
    long[] run = held.get(duplicateId);
    if (run == null) {
      return List.of();
    }
    return LongStream.rangeClosed(Math.max(from, run[0]), Math.min(to, run[1]))
        .mapToObj(RecoveryTest::write)
        .toList();
  }

  private static Message.Sequenced write(long seq) {
    return new Message.Sequenced(1, seq, 3, seq, List.of(Op.setData("/k", new byte[1], -1)));
  }

  private static List<Long> seqs(List<Message.Sequenced> writes) {
    return writes.stream().map(Message.Sequenced::seq).toList();
  }

  private List<Message.Sequenced> recover(Map<Integer, Long> applied, int capacity)
      throws InterruptedException {
    return Recovery.recover(applied, capacity, this::fetch);
  }

  @Test
  void nothingIsFetchedWhenEveryDuplicateAppliedTheSame() throws InterruptedException {
    assertThat(recover(Map.of(1, 10L, 2, 10L), 100)).isEmpty();
    assertThat(asked).isEmpty();
  }

  @Test
  void theMostAdvancedDuplicateServesWhatTheOthersLack() throws InterruptedException {
    held.put(2, new long[] {1, 20});
    assertThat(seqs(recover(Map.of(1, 12L, 2, 20L, 3, 15L), 100)))
        .isEqualTo(LongStream.rangeClosed(13, 20).boxed().toList());
    assertThat(asked).containsExactly("2:13..20");
  }

  @Test
  void theNextMostAdvancedFillsWhatTheFirstNoLongerHolds() throws InterruptedException {
    held.put(1, new long[] {17, 20}); // holds only its newest writes
    held.put(2, new long[] {5, 18});
    Map<Integer, Long> applied = new LinkedHashMap<>();
    applied.put(1, 20L);
    applied.put(2, 18L);
    applied.put(3, 10L);
    assertThat(seqs(recover(applied, 100)))
        .isEqualTo(LongStream.rangeClosed(11, 20).boxed().toList());
    assertThat(asked).containsExactly("1:11..20", "2:11..16");
  }

  @Test
  void aRunThatDoesNotReachTheTopIsUselessAndADuplicateBehindTheGapIsNotAsked()
      throws InterruptedException {
    held.put(1, new long[] {1, 15}); // restarted: its newest writes are not held
    held.put(2, new long[] {1, 18});
    Map<Integer, Long> applied = new LinkedHashMap<>();
    applied.put(1, 20L);
    applied.put(2, 18L);
    applied.put(3, 10L);
    assertThat(recover(applied, 100)).isEmpty();
    assertThat(asked).containsExactly("1:11..20"); // duplicate 2 never applied 19..20
  }

  @Test
  void atMostTheLogCapacityIsRecoveredTheNewest() throws InterruptedException {
    held.put(1, new long[] {1, 100});
    assertThat(seqs(recover(Map.of(1, 100L, 2, 10L), 5))).containsExactly(96L, 97L, 98L, 99L, 100L);
  }

  @Test
  void onlyTheContiguousSuffixEndingAtTheTopIsKept() {
    List<Message.Sequenced> writes = List.of(write(3), write(4), write(6), write(7));
    assertThat(seqs(Recovery.endingAt(writes, 7))).containsExactly(6L, 7L);
    assertThat(Recovery.endingAt(writes, 8)).isEmpty();
    assertThat(Recovery.endingAt(List.of(), 8)).isEmpty();
  }
}
