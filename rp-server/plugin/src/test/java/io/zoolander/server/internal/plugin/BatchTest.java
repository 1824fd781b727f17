package io.zoolander.server.internal.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import io.zoolander.server.internal.zk.ZkOps;
import io.zoolander.wire.BookkeepingState;
import io.zoolander.wire.ClientRecord;
import io.zoolander.wire.Message;
import io.zoolander.wire.Op;
import io.zoolander.wire.OpResult;
import io.zoolander.wire.Znodes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.ZooDefs;
import org.junit.jupiter.api.Test;

/** Planning a batch's multi and reading its results, without ZooKeeper. */
class BatchTest {

  private static final Znodes ZNODES = new Znodes("/zl");
  private static final ClientTable CLIENTS = new ClientTable(ZNODES);
  private static final ClientTable.Known NEW_CLIENT =
      new ClientTable.Known(null, ClientTable.ABSENT);
  private static final int MAX_BUFFER = 1024 * 1024 - 1; // ZooKeeper's default jute.maxbuffer

  @Test
  void oneStateUpdateOneRecordUpdatePerClientThenEveryWritesOps() {
    List<Message.Sequenced> run =
        List.of(
            new Message.Sequenced(3, 10, 1, 7, List.of(Op.create("/a", new byte[0]))),
            new Message.Sequenced(
                3, 11, 2, 1, List.of(Op.setData("/a", new byte[0], 0), Op.check("/a", 1))),
            new Message.Sequenced(3, 12, 1, 8, List.of(Op.delete("/a", 1))));
    ClientRecord record1 =
        ClientRecord.first(new ClientRecord.Entry(6, 4, List.of(new OpResult.Checked())));
    Map<Long, ClientTable.Known> known =
        Map.of(1L, new ClientTable.Known(record1, 5), 2L, NEW_CLIENT);
    List<List<OpResult>> predicted =
        List.of(
            List.of(new OpResult.Created("/a")),
            List.of(new OpResult.DataSet(1), new OpResult.Checked()),
            List.of(new OpResult.Deleted()));

    Batch batch =
        Batch.plan(
            ZNODES,
            ZooDefs.Ids.OPEN_ACL_UNSAFE,
            CLIENTS,
            run,
            known,
            predicted,
            new BookkeepingState(3, 12),
            41);

    assertThat(batch.multi())
        .extracting(org.apache.zookeeper.Op::getPath)
        .containsExactly(
            "/zl/state",
            "/zl/clients/1",
            "/zl/clients/2",
            "/zl/data/a",
            "/zl/data/a",
            "/zl/data/a",
            "/zl/data/a");
    assertThat(batch.multi().get(0))
        .isEqualTo(ZkOps.stateUpdate(ZNODES, new BookkeepingState(3, 12), 41));
    assertThat(batch.clientIds()).containsExactly(1L, 2L);
    assertThat(batch.record(1).highestRequestId()).isEqualTo(8);
    assertThat(batch.record(1).find(7).orElseThrow().seq()).isEqualTo(10);
    assertThat(batch.record(1).find(8).orElseThrow().results())
        .containsExactly(new OpResult.Deleted());
    assertThat(batch.record(2).find(1).orElseThrow().seq()).isEqualTo(11);
    assertThat(batch.multi().get(1))
        .isEqualTo(org.apache.zookeeper.Op.setData("/zl/clients/1", batch.record(1).encode(), 5));
  }

  @Test
  void theFailingOpOfAFailedMultiNamesItsWriteAndABookkeepingFailureNone() {
    List<Message.Sequenced> run =
        List.of(
            new Message.Sequenced(1, 1, 1, 1, List.of(Op.create("/a", new byte[0]))),
            new Message.Sequenced(
                1, 2, 1, 2, List.of(Op.create("/b", new byte[0]), Op.create("/a", new byte[0]))),
            new Message.Sequenced(1, 3, 1, 3, List.of(Op.create("/c", new byte[0]))));
    Batch batch =
        Batch.plan(
            ZNODES,
            ZooDefs.Ids.OPEN_ACL_UNSAFE,
            CLIENTS,
            run,
            Map.of(1L, NEW_CLIENT),
            List.of(
                List.of(new OpResult.Created("/a")),
                List.of(new OpResult.Created("/b"), new OpResult.Created("/a")),
                List.of(new OpResult.Created("/c"))),
            new BookkeepingState(1, 3),
            0);
    // state, client, /a, /b, /a (fails), /c
    assertThat(batch.writeOf(failedAt(6, 4, Code.NODEEXISTS))).isEqualTo(1);
    assertThat(batch.writeOf(failedAt(6, 2, Code.NODEEXISTS))).isEqualTo(0);
    assertThat(batch.writeOf(failedAt(6, 5, Code.NONODE))).isEqualTo(2);
    assertThat(batch.writeOf(failedAt(6, 0, Code.BADVERSION))).isEqualTo(-1);
    assertThat(batch.writeOf(failedAt(6, 1, Code.NODEEXISTS))).isEqualTo(-1);
    assertThat(batch.writeOf(null)).isEqualTo(-1);
  }

  @Test
  void aRetriedRequestOrAnInvalidPathEndsTheAdmissiblePart() {
    ClientRecord record =
        ClientRecord.first(new ClientRecord.Entry(5, 2, List.of(new OpResult.Checked())));
    Map<Long, ClientTable.Known> known =
        Map.of(1L, new ClientTable.Known(record, 0), 2L, NEW_CLIENT);
    Message.Sequenced a = new Message.Sequenced(1, 3, 1, 6, List.of(Op.check("/", 0)));
    Message.Sequenced b = new Message.Sequenced(1, 4, 2, 1, List.of(Op.check("/", 0)));
    assertThat(Batch.admissible(ZNODES, List.of(a, b), known)).isEqualTo(2);
    // Client 1's request 5 was applied already (the record), request 6 earlier in the run.
    Message.Sequenced applied = new Message.Sequenced(1, 5, 1, 5, List.of(Op.check("/", 0)));
    Message.Sequenced again = new Message.Sequenced(1, 5, 1, 6, List.of(Op.check("/", 0)));
    assertThat(Batch.admissible(ZNODES, List.of(a, b, applied), known)).isEqualTo(2);
    assertThat(Batch.admissible(ZNODES, List.of(a, b, again), known)).isEqualTo(2);
    assertThat(
            Batch.admissible(
                ZNODES,
                List.of(a, new Message.Sequenced(1, 4, 2, 1, List.of(Op.delete("/", -1)))),
                known))
        .isEqualTo(1);
  }

  @Test
  void aBatchOverJuteMaxBufferDoesNotFitAndHalfOfItDoes() {
    byte[] large = new byte[300 * 1024];
    List<Message.Sequenced> run = new ArrayList<>();
    List<List<OpResult>> predicted = new ArrayList<>();
    for (int i = 1; i <= 4; i++) {
      run.add(new Message.Sequenced(1, i, 1, i, List.of(Op.create("/big" + i, large))));
      predicted.add(List.of(new OpResult.Created("/big" + i)));
    }
    Batch four =
        Batch.plan(
            ZNODES,
            ZooDefs.Ids.OPEN_ACL_UNSAFE,
            CLIENTS,
            run,
            Map.of(1L, NEW_CLIENT),
            predicted,
            new BookkeepingState(1, 4),
            0);
    Batch two =
        Batch.plan(
            ZNODES,
            ZooDefs.Ids.OPEN_ACL_UNSAFE,
            CLIENTS,
            run.subList(0, 2),
            Map.of(1L, NEW_CLIENT),
            predicted.subList(0, 2),
            new BookkeepingState(1, 2),
            0);
    assertThat(four.fits(MAX_BUFFER)).isFalse();
    assertThat(two.fits(MAX_BUFFER)).isTrue();
    assertThat(ZkOps.requestBytes(two.multi())).isLessThanOrEqualTo(MAX_BUFFER);
  }

  @Test
  void eachWriteIsPredictedOnTheTreeTheWritesBeforeItLeaveUpToTheFirstUnpredictable() {
    ResultPredictor predictor = new ResultPredictor(ZNODES);
    List<List<Op>> writes =
        List.of(
            List.of(Op.create("/d", new byte[0])),
            List.of(Op.setData("/d", new byte[0], -1), Op.createSequential("/d/s-", new byte[0])),
            List.of(Op.setData("/d", new byte[0], -1)),
            List.of(Op.setData("/unknown", new byte[0], -1)),
            List.of(Op.create("/e", new byte[0])));
    assertThat(predictor.statsNeeded(writes.stream().flatMap(List::stream).toList()))
        .containsExactly("/zl/data/unknown");
    Map<String, org.apache.zookeeper.data.Stat> absent = new java.util.HashMap<>();
    absent.put("/zl/data/unknown", null);
    ResultPredictor.BatchPrediction prediction = predictor.predictEach(writes, absent);
    assertThat(prediction.results())
        .containsExactly(
            List.of(new OpResult.Created("/d")),
            List.of(new OpResult.DataSet(1), new OpResult.Created("/d/s-0000000000")),
            List.of(new OpResult.DataSet(2)));
  }

  /**
   * A failed multi's results: ops before {@code index} OK, it {@code code}, those after
   * RUNTIMEINCONSISTENCY.
   */
  private static List<org.apache.zookeeper.OpResult> failedAt(int size, int index, Code code) {
    List<org.apache.zookeeper.OpResult> results = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      int err = i < index ? 0 : i == index ? code.intValue() : Code.RUNTIMEINCONSISTENCY.intValue();
      results.add(new org.apache.zookeeper.OpResult.ErrorResult(err));
    }
    return results;
  }
}
