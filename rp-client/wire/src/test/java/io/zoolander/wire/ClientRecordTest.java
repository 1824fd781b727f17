package io.zoolander.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.zookeeper.KeeperException.Code;
import org.junit.jupiter.api.Test;

class ClientRecordTest {

  private static final List<OpResult> EVERY_KIND =
      List.of(
          new OpResult.Created("/a/b-0000000007"),
          new OpResult.DataSet(3),
          new OpResult.Deleted(),
          new OpResult.Checked(),
          new OpResult.Failed(Code.NODEEXISTS),
          new OpResult.Failed(Code.OK),
          new OpResult.Failed(Code.RUNTIMEINCONSISTENCY),
          new OpResult.Created("/ünïcödé/日本"));

  @Test
  void roundTripsEveryResultKind() {
    ClientRecord record =
        ClientRecord.first(new ClientRecord.Entry(5, 17, EVERY_KIND))
            .append(
                new ClientRecord.Entry(
                    6, 1L << 40, List.of(new OpResult.DataSet(Integer.MAX_VALUE))))
            .append(
                new ClientRecord.Entry(
                    Long.MAX_VALUE, Long.MAX_VALUE, List.of(new OpResult.Failed(Code.BADVERSION))));
    byte[] encoded = record.encode();
    assertThat(encoded).hasSize(record.encodedLength());
    assertThat(ClientRecord.decode(encoded)).isEqualTo(record);
    assertThat(record.highestRequestId()).isEqualTo(Long.MAX_VALUE);
    assertThat(record.find(5).orElseThrow().results()).isEqualTo(EVERY_KIND);
    assertThat(record.find(5).orElseThrow().seq()).isEqualTo(17);
    assertThat(record.find(4)).isEmpty();
  }

  @Test
  void isCompact() {
    ClientRecord record =
        ClientRecord.first(new ClientRecord.Entry(1, 1, List.of(new OpResult.DataSet(1))));
    assertThat(record.encode()).hasSize(1 + 1 + 1 + (1 + 1 + 1 + 2));
    for (int i = 2; i <= 100; i++) {
      record = record.append(new ClientRecord.Entry(i, 1000 + i, List.of(new OpResult.DataSet(i))));
    }
    // 32 entries of one setData: about 7 bytes each.
    assertThat(record.encode().length).isLessThan(ClientRecord.WINDOW * 8 + 4);
  }

  /**
   * A batch's outcomes appended at once give the same record as appended one by one, across the
   * window's count and its byte bound: outcomes of a few bytes, and created paths of 20 KiB (three
   * fill the 64 KiB bound).
   */
  @Test
  void appendingABatchAtOnceIsAppendingItsOutcomesOneByOne() {
    java.util.SplittableRandom random = new java.util.SplittableRandom(42);
    String longPath = "/" + "p".repeat(20 * 1024);
    for (int trial = 0; trial < 200; trial++) {
      List<ClientRecord.Entry> all = new ArrayList<>();
      long requestId = random.nextInt(3);
      int count = 1 + random.nextInt(80);
      for (int i = 0; i < count; i++) {
        requestId += 1 + random.nextInt(3);
        OpResult result =
            random.nextInt(10) == 0
                ? new OpResult.Created(longPath + i)
                : new OpResult.DataSet(random.nextInt(1000));
        all.add(new ClientRecord.Entry(requestId, 100 + i, List.of(result)));
      }
      int split = 1 + random.nextInt(count); // the first batch's size, then the rest in one
      ClientRecord oneByOne = ClientRecord.first(all.get(0));
      for (ClientRecord.Entry e : all.subList(1, count)) {
        oneByOne = oneByOne.append(e);
      }
      ClientRecord atOnce =
          ClientRecord.first(all.subList(0, split)).appendAll(all.subList(split, count));
      assertThat(atOnce)
          .as("trial %d: %d outcomes, split at %d", trial, count, split)
          .isEqualTo(oneByOne);
      assertThat(atOnce.encodedLength()).isLessThanOrEqualTo(ClientRecord.MAX_ENCODED_BYTES);
    }
  }

  @Test
  void aBatchMustBeNewerThanTheRecordAndIncreasing() {
    ClientRecord record =
        ClientRecord.first(new ClientRecord.Entry(10, 1, List.of(new OpResult.Deleted())));
    List<OpResult> set = List.of(new OpResult.DataSet(1));
    assertThat(record.appendAll(List.of())).isSameAs(record);
    assertThatThrownBy(() -> record.appendAll(List.of(new ClientRecord.Entry(10, 2, set))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("request 10 is not newer than the highest applied, 10");
    assertThatThrownBy(
            () ->
                record.appendAll(
                    List.of(
                        new ClientRecord.Entry(12, 2, set), new ClientRecord.Entry(11, 3, set))))
        .hasMessageContaining("request 11 is not newer than the highest applied, 12");
    assertThatThrownBy(() -> ClientRecord.first(List.of()))
        .hasMessageContaining("entries must not be empty");
  }

  @Test
  void duplicatesAreRequestIdsNotAboveTheHighest() {
    ClientRecord record =
        ClientRecord.first(new ClientRecord.Entry(10, 1, List.of(new OpResult.Deleted())));
    assertThat(record.isDuplicate(10)).isTrue();
    assertThat(record.isDuplicate(3)).isTrue();
    assertThat(record.isDuplicate(11)).isFalse();
    assertThatThrownBy(
            () -> record.append(new ClientRecord.Entry(10, 2, List.of(new OpResult.Deleted()))))
        .hasMessageContaining("not newer");
    ClientRecord forgotten = record.withoutEntries();
    assertThat(forgotten.isDuplicate(10)).isTrue();
    assertThat(forgotten.find(10)).isEmpty();
    assertThatThrownBy(
            () -> forgotten.append(new ClientRecord.Entry(10, 2, List.of(new OpResult.Deleted()))))
        .hasMessageContaining("not newer");
  }

  @Test
  void aHoleInTheWindowWasNeverApplied() {
    ClientRecord record =
        ClientRecord.first(new ClientRecord.Entry(3, 1, List.of(new OpResult.Checked())))
            .append(new ClientRecord.Entry(5, 2, List.of(new OpResult.Checked())))
            .append(new ClientRecord.Entry(6, 3, List.of(new OpResult.Checked())));
    assertThat(record.neverApplied(4)).isTrue();
    assertThat(record.neverApplied(5)).isFalse();
    assertThat(record.neverApplied(2)).as("older than the window: unknown").isFalse();
    assertThat(record.neverApplied(7)).as("not applied yet, but not a duplicate either").isFalse();
    ClientRecord unheld = record.appendUnheld(9);
    assertThat(unheld.highestRequestId()).isEqualTo(9);
    assertThat(unheld.entries()).as("no hole: older outcomes go too").isEmpty();
    assertThat(unheld.neverApplied(8)).isFalse();
    assertThatThrownBy(() -> unheld.appendUnheld(9)).hasMessageContaining("not newer");
  }

  @Test
  void keepsTheLastWindowOfEntries() {
    ClientRecord record =
        ClientRecord.first(new ClientRecord.Entry(1, 1, List.of(new OpResult.Checked())));
    for (long id = 2; id <= ClientRecord.WINDOW + 5; id++) {
      record = record.append(new ClientRecord.Entry(id, id * 2, List.of(new OpResult.Checked())));
    }
    assertThat(record.entries()).hasSize(ClientRecord.WINDOW);
    assertThat(record.entries().get(0).requestId()).isEqualTo(6);
    assertThat(record.find(5)).isEmpty();
    assertThat(record.find(6).orElseThrow().seq()).isEqualTo(12);
    assertThat(ClientRecord.decode(record.encode())).isEqualTo(record);
  }

  @Test
  void dropsOldEntriesToStayWithinTheByteBudget() {
    String longPath = "/" + "p".repeat(400);
    List<OpResult> bulky =
        Collections.nCopies(WireSettings.MAX_OPS_PER_MESSAGE, new OpResult.Created(longPath));
    ClientRecord record =
        ClientRecord.first(new ClientRecord.Entry(1, 1, List.of(new OpResult.Deleted())));
    record =
        record.append(new ClientRecord.Entry(2, 2, bulky)); // ~400 KB of results alone: not held
    assertThat(record.highestRequestId()).isEqualTo(2);
    assertThat(record.find(2)).isEmpty();
    assertThat(record.encode().length).isLessThanOrEqualTo(ClientRecord.MAX_ENCODED_BYTES);

    List<OpResult> medium = Collections.nCopies(100, new OpResult.Created(longPath)); // ~40 KB
    record =
        record
            .append(new ClientRecord.Entry(3, 3, medium))
            .append(new ClientRecord.Entry(4, 4, medium));
    assertThat(record.entries()).extracting(ClientRecord.Entry::requestId).containsExactly(4L);
    assertThat(record.encode().length).isLessThanOrEqualTo(ClientRecord.MAX_ENCODED_BYTES);
  }

  @Test
  void rejectsGarbage() {
    byte[] good = ClientRecord.first(new ClientRecord.Entry(3, 4, EVERY_KIND)).encode();
    assertThatThrownBy(() -> ClientRecord.decode(null))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> ClientRecord.decode(new byte[] {9, 0, 0}))
        .hasMessageContaining("client record");
    for (int length = 0; length < good.length; length++) {
      byte[] truncated = java.util.Arrays.copyOf(good, length);
      assertThatThrownBy(() -> ClientRecord.decode(truncated))
          .as("truncated to %d", length)
          .isInstanceOf(IllegalArgumentException.class);
    }
    byte[] trailing = java.util.Arrays.copyOf(good, good.length + 1);
    assertThatThrownBy(() -> ClientRecord.decode(trailing)).hasMessageContaining("trailing");
    byte[] badTag = good.clone();
    badTag[6] = 42; // first result's tag: format, highest, count, requestId, seq, resultCount, tag
    assertThatThrownBy(() -> ClientRecord.decode(badTag)).hasMessageContaining("tag");
    List<ClientRecord.Entry> outOfOrder = new ArrayList<>();
    outOfOrder.add(new ClientRecord.Entry(2, 1, List.of(new OpResult.Deleted())));
    outOfOrder.add(new ClientRecord.Entry(1, 2, List.of(new OpResult.Deleted())));
    assertThatThrownBy(() -> new ClientRecord(2, outOfOrder)).hasMessageContaining("entries");
    assertThatThrownBy(
            () ->
                new ClientRecord(
                    1, List.of(new ClientRecord.Entry(2, 1, List.of(new OpResult.Deleted())))))
        .hasMessageContaining("entries");
    assertThatThrownBy(() -> new ClientRecord.Entry(1, 0, List.of(new OpResult.Deleted())))
        .hasMessageContaining("seq");
    assertThatThrownBy(() -> new ClientRecord.Entry(1, 1, List.of()))
        .hasMessageContaining("results");
  }
}
