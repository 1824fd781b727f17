package io.zoolander.server.internal.plugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zoolander.server.internal.leader.TreeReader;
import io.zoolander.testsupport.StandaloneZooKeeper;
import io.zoolander.testsupport.ZooKeepers;
import io.zoolander.wire.BookkeepingState;
import io.zoolander.wire.ClientRecord;
import io.zoolander.wire.OpResult;
import io.zoolander.wire.Znodes;
import java.nio.file.Path;
import java.util.List;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Client records read from a real ZooKeeper server: from its in-memory tree when the table has one,
 * with the same answer as through the session.
 */
class ClientTableTest {
  private static final Znodes ZNODES = new Znodes("/zl");

  @TempDir Path dir;
  private StandaloneZooKeeper server;
  private ZooKeeper zk;
  private ClientRecord record;

  @BeforeEach
  void start() throws Exception {
    server = StandaloneZooKeeper.start(dir);
    zk = ZooKeepers.connect(server.connectString());
    for (String path : List.of(ZNODES.basePath(), ZNODES.clients())) {
      zk.create(path, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    }
    zk.create(
        ZNODES.state(),
        new BookkeepingState(1, 2).encode(),
        ZooDefs.Ids.OPEN_ACL_UNSAFE,
        CreateMode.PERSISTENT);
    record = ClientTable.after(null, 1, 1, List.of(new OpResult.Checked()));
    zk.create(
        ZNODES.client(1), record.encode(), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    record = ClientTable.after(record, 2, 2, List.of(new OpResult.DataSet(4)));
    zk.setData(ZNODES.client(1), record.encode(), 0);
  }

  @AfterEach
  void stop() throws Exception {
    zk.close();
    server.close();
  }

  private TreeReader tree() {
    return new TreeReader(() -> server.server().getZKDatabase().getDataTree(), ZNODES);
  }

  @Test
  void recordsComeFromTheTreeAsTheSessionWouldGiveThem() throws Exception {
    ClientTable fromTree = new ClientTable(ZNODES, ZooDefs.Ids.OPEN_ACL_UNSAFE, tree());
    ClientTable throughSession = new ClientTable(ZNODES);

    ClientTable.Known known = fromTree.get(zk, 1);
    ClientTable.Known absent = fromTree.get(zk, 7);

    assertThat(known.record()).isEqualTo(record);
    assertThat(known.version()).isEqualTo(1);
    assertThat(known).isEqualTo(throughSession.get(zk, 1));
    assertThat(absent).isEqualTo(new ClientTable.Known(null, ClientTable.ABSENT));
    assertThat(absent).isEqualTo(throughSession.get(zk, 7));
    assertThat(fromTree.readFromTree()).isEqualTo(2);
    assertThat(throughSession.readFromTree()).isZero();

    fromTree.get(zk, 1);
    assertThat(fromTree.readFromTree()).as("a cached record is not read again").isEqualTo(2);
  }

  @Test
  void anUnreadableRecordFailsAsThroughTheSession() throws Exception {
    zk.create(
        ZNODES.client(3), new byte[] {42}, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    ClientTable fromTree = new ClientTable(ZNODES, ZooDefs.Ids.OPEN_ACL_UNSAFE, tree());

    assertThatThrownBy(() -> fromTree.get(zk, 3)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new ClientTable(ZNODES).get(zk, 3))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void withoutAStateZnodeTheTreeIsNotReadAndTheSessionAnswers() throws Exception {
    zk.delete(ZNODES.state(), -1);
    ClientTable fromTree = new ClientTable(ZNODES, ZooDefs.Ids.OPEN_ACL_UNSAFE, tree());

    assertThat(fromTree.get(zk, 1).record()).isEqualTo(record);
    assertThat(fromTree.readFromTree()).isZero();
  }
}
