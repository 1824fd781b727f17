package io.zoolander.server.internal.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import io.zoolander.server.internal.zk.ZkOps;
import io.zoolander.wire.BookkeepingState;
import io.zoolander.wire.Op;
import io.zoolander.wire.OpResult;
import io.zoolander.wire.Znodes;
import java.util.List;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;

/** Building the multi of a sequenced write and reading its results back, without ZooKeeper. */
class ZkOpsTest {

  private static final Znodes ZNODES = new Znodes("/zl");
  private static final ClientTable CLIENTS = new ClientTable(ZNODES);

  /** Client 5's first write: its record is created. */
  private static final org.apache.zookeeper.Op CREATE_RECORD =
      CLIENTS.update(5, new ClientTable.Known(null, ClientTable.ABSENT), new byte[] {1});

  @Test
  void theBookkeepingUpdatesComeFirstAndOpsLiveUnderTheDataRoot() {
    List<org.apache.zookeeper.Op> multi =
        ZkOps.multi(
            ZNODES,
            new BookkeepingState(2, 9),
            8,
            CREATE_RECORD,
            List.of(
                Op.create("/a", new byte[] {1}),
                Op.createSequential("/a/", new byte[0]),
                Op.setData("/a", new byte[0], 3),
                Op.delete("/a/b", -1),
                Op.check("/", 0)));
    assertThat(multi)
        .extracting(org.apache.zookeeper.Op::getPath)
        .containsExactly(
            "/zl/state",
            "/zl/clients/5",
            "/zl/data/a",
            "/zl/data/a/",
            "/zl/data/a",
            "/zl/data/a/b",
            "/zl/data");
    assertThat(multi.get(0))
        .isEqualTo(
            org.apache.zookeeper.Op.setData("/zl/state", new BookkeepingState(2, 9).encode(), 8));
    assertThat(multi.get(1))
        .isEqualTo(
            org.apache.zookeeper.Op.create(
                "/zl/clients/5",
                new byte[] {1},
                org.apache.zookeeper.ZooDefs.Ids.OPEN_ACL_UNSAFE,
                CreateMode.PERSISTENT));
    assertThat(multi.get(3))
        .isEqualTo(
            org.apache.zookeeper.Op.create(
                "/zl/data/a/",
                new byte[0],
                org.apache.zookeeper.ZooDefs.Ids.OPEN_ACL_UNSAFE,
                CreateMode.PERSISTENT_SEQUENTIAL));
    assertThat(multi.get(5)).isEqualTo(org.apache.zookeeper.Op.delete("/zl/data/a/b", -1));
    assertThat(CLIENTS.update(5, new ClientTable.Known(null, 3), new byte[] {2}))
        .isEqualTo(org.apache.zookeeper.Op.setData("/zl/clients/5", new byte[] {2}, 3));
  }

  @Test
  void aSequentialCreateOfTheRootNamesAChildOfTheDataRoot() {
    assertThat(ZkOps.toZooKeeper(ZNODES, Op.createSequential("/", new byte[0])).getPath())
        .isEqualTo("/zl/data/");
    assertThat(ZkOps.toZooKeeper(ZNODES, Op.createSequential("/a/n-", new byte[0])).getPath())
        .isEqualTo("/zl/data/a/n-");
  }

  @Test
  void successResultsNamePathsRelativeToTheDataRoot() {
    Stat stat = new Stat();
    stat.setVersion(4);
    List<org.apache.zookeeper.OpResult> zk =
        List.of(
            new org.apache.zookeeper.OpResult.SetDataResult(new Stat()),
            new org.apache.zookeeper.OpResult.CreateResult("/zl/clients/5"),
            new org.apache.zookeeper.OpResult.CreateResult("/zl/data/a/0000000007"),
            new org.apache.zookeeper.OpResult.SetDataResult(stat),
            new org.apache.zookeeper.OpResult.DeleteResult(),
            new org.apache.zookeeper.OpResult.CheckResult());
    List<OpResult> results = ZkOps.succeeded(ZNODES, zk);
    assertThat(ZkOps.clientVersion(zk)).as("a created record").isZero();
    assertThat(results)
        .containsExactly(
            new OpResult.Created("/a/0000000007"),
            new OpResult.DataSet(4),
            new OpResult.Deleted(),
            new OpResult.Checked());
  }

  @Test
  void failuresKeepZooKeepersMultiConventionAndDropTheBookkeepingUpdates() {
    List<org.apache.zookeeper.OpResult> zk =
        List.of(
            new org.apache.zookeeper.OpResult.ErrorResult(Code.OK.intValue()),
            new org.apache.zookeeper.OpResult.ErrorResult(Code.OK.intValue()),
            new org.apache.zookeeper.OpResult.ErrorResult(Code.OK.intValue()),
            new org.apache.zookeeper.OpResult.ErrorResult(Code.NONODE.intValue()),
            new org.apache.zookeeper.OpResult.ErrorResult(Code.RUNTIMEINCONSISTENCY.intValue()));
    assertThat(ZkOps.stateUpdateCode(zk)).isEqualTo(Code.OK);
    assertThat(ZkOps.clientUpdateCode(zk)).isEqualTo(Code.OK);
    assertThat(
            ZkOps.failed(
                zk, List.of(Op.create("/a", new byte[0]), Op.delete("/x", -1), Op.check("/a", 0))))
        .containsExactly(
            new OpResult.Failed(Code.OK),
            new OpResult.Failed(Code.NONODE),
            new OpResult.Failed(Code.RUNTIMEINCONSISTENCY));
  }

  @Test
  void deletingTheDataRootBecomesACheckThatAlwaysFailsAndIsReportedAsBadArguments() {
    List<org.apache.zookeeper.Op> multi =
        ZkOps.multi(
            ZNODES, BookkeepingState.INITIAL, 0, CREATE_RECORD, List.of(Op.delete("/", -1)));
    assertThat(multi.get(2)).isEqualTo(org.apache.zookeeper.Op.check("/zl/state", -2));
    List<org.apache.zookeeper.OpResult> zk =
        List.of(
            new org.apache.zookeeper.OpResult.ErrorResult(Code.OK.intValue()),
            new org.apache.zookeeper.OpResult.ErrorResult(Code.OK.intValue()),
            new org.apache.zookeeper.OpResult.ErrorResult(Code.BADVERSION.intValue()));
    assertThat(ZkOps.failed(zk, List.of(Op.delete("/", -1))))
        .containsExactly(new OpResult.Failed(Code.BADARGUMENTS));
  }

  @Test
  void aMultiLargerThanOneZooKeeperRequestIsDetected() {
    int limit = 1_048_575; // ZooKeeper's default jute.maxbuffer
    List<Op> small = List.of(Op.create("/a", new byte[100]));
    assertThat(ZkOps.fitsInOneRequest(multi(small, new byte[1]), small, 1, limit)).isTrue();
    List<Op> nearLimit = List.of(Op.create("/a", new byte[limit - 300]));
    assertThat(ZkOps.fitsInOneRequest(multi(nearLimit, new byte[1]), nearLimit, 1, limit))
        .as("exact size, just under")
        .isTrue();
    assertThat(ZkOps.fitsInOneRequest(multi(nearLimit, new byte[300]), nearLimit, 300, limit))
        .as("exact size, just over because of the client record")
        .isFalse();
    List<Op> over = List.of(Op.setData("/a", new byte[limit - 100], -1), Op.delete("/b", -1));
    assertThat(ZkOps.fitsInOneRequest(multi(over, new byte[1]), over, 1, limit))
        .as("exact size, just over")
        .isFalse();
    List<Op> small2 = List.of(Op.create("/a", new byte[100]));
    assertThat(ZkOps.fitsInOneRequest(multi(small2, new byte[limit]), small2, limit, limit))
        .as("a huge client record alone")
        .isFalse();
  }

  private static List<org.apache.zookeeper.Op> multi(List<Op> ops, byte[] record) {
    return ZkOps.multi(
        ZNODES,
        BookkeepingState.INITIAL,
        0,
        CLIENTS.update(5, new ClientTable.Known(null, 2), record),
        ops);
  }
}
