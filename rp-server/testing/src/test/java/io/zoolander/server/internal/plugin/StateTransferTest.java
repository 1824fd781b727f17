package io.zoolander.server.internal.plugin;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zoolander.server.testing.TreeDigest;
import io.zoolander.testsupport.ZooKeepers;
import io.zoolander.wire.BookkeepingState;
import io.zoolander.wire.Message;
import io.zoolander.wire.Znodes;
import java.io.File;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.apache.zookeeper.server.ServerCnxnFactory;
import org.apache.zookeeper.server.ZooKeeperServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The plugin's halves of a state transfer on real ZooKeeper (two in-process standalone servers, a
 * healthy and a stale "duplicate"): the snapshot, its chunks, and an install that makes the stale
 * tree identical to the healthy one by {@link TreeDigest} (data, data versions, child versions), so
 * that later conditional and sequential writes behave the same on both.
 */
class StateTransferTest {
  private static final Znodes ZNODES = Znodes.defaults();
  private static final long TIMEOUT_MS = 10_000;

  @TempDir Path dir;
  private final List<ServerCnxnFactory> factories = new ArrayList<>();
  private final List<ZooKeeper> sessions = new ArrayList<>();
  private ZooKeeper healthy;
  private ZooKeeper stale;

  @BeforeEach
  void startServers() throws Exception {
    healthy = session(startServer("healthy"));
    stale = session(startServer("stale"));
    for (ZooKeeper zk : List.of(healthy, stale)) {
      for (String path : List.of(ZNODES.basePath(), ZNODES.dataRoot(), ZNODES.clients())) {
        zk.create(path, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
      }
      zk.create(
          ZNODES.state(),
          BookkeepingState.INITIAL.encode(),
          ZooDefs.Ids.OPEN_ACL_UNSAFE,
          CreateMode.PERSISTENT);
    }
  }

  @AfterEach
  void stopServers() throws InterruptedException {
    for (ZooKeeper zk : sessions) {
      zk.close();
    }
    factories.forEach(ServerCnxnFactory::shutdown);
  }

  @Test
  void anInstalledSnapshotMakesTheStaleTreeIdenticalAndLaterWritesAgree() throws Exception {
    // The healthy tree: set data (versions), sequential children some of them deleted (child
    // versions above the
    // children), an empty intermediate node, a client record.
    String root = ZNODES.dataRoot();
    create(healthy, root + "/app", "v0");
    for (int i = 1; i <= 7; i++) {
      healthy.setData(root + "/app", ("v" + i).getBytes(UTF_8), -1);
    }
    for (int i = 0; i < 5; i++) {
      healthy.create(
          root + "/app/q-",
          ("item " + i).getBytes(UTF_8),
          ZooDefs.Ids.OPEN_ACL_UNSAFE,
          CreateMode.PERSISTENT_SEQUENTIAL);
    }
    healthy.delete(root + "/app/q-0000000001", -1);
    healthy.delete(root + "/app/q-0000000003", -1);
    create(healthy, root + "/gone", "");
    healthy.delete(root + "/gone", -1); // raises the data root's child version only
    create(healthy, root + "/empty", "");
    create(healthy, root + "/empty/deep", "x".repeat(3_000));
    create(healthy, ZNODES.client(7), "record of 7");
    healthy.setData(ZNODES.state(), new BookkeepingState(3, 42).encode(), -1);

    // The stale tree: other nodes, a higher child version at the data root, another client record,
    // an older state.
    for (int i = 0; i < 30; i++) {
      create(stale, root + "/old-" + i, "old");
    }
    create(stale, root + "/app", "older");
    create(stale, ZNODES.client(9), "record of 9");
    stale.setData(ZNODES.state(), new BookkeepingState(3, 5).encode(), -1);

    StateTransfer.Snapshot snapshot =
        StateTransfer.read(
            healthy, ZNODES, new BookkeepingState(3, 42), StateTransfer.MAX_BYTES, TIMEOUT_MS);
    assertThat(snapshot.nodes())
        .extracting(Message.TransferChunk.Node::path)
        .containsExactly(
            root,
            root + "/app",
            root + "/empty",
            root + "/app/q-0000000000",
            root + "/app/q-0000000002",
            root + "/app/q-0000000004",
            root + "/empty/deep",
            ZNODES.client(7));
    List<Message.TransferChunk> chunks = StateTransfer.chunks(11, 1, snapshot);
    assertThat(chunks).hasSize(1);
    assertThat(chunks.get(0).last()).isTrue();

    int version = install(chunks, new BookkeepingState(3, 42));

    TreeDigest want = TreeDigest.of(healthy, ZNODES);
    TreeDigest got = TreeDigest.of(stale, ZNODES);
    assertThat(got.differences(want, 10)).isEmpty();
    assertThat(got).isEqualTo(want);
    assertThat(got.state()).isEqualTo(new BookkeepingState(3, 42));
    Stat stat = new Stat();
    stale.getData(ZNODES.state(), false, stat);
    assertThat(stat.getVersion()).isEqualTo(version);
    assertThat(stale.exists(ZNODES.transferMarker(), false))
        .as("the marker is gone with the install")
        .isNull();
    assertThat(stale.getChildren(ZNODES.clients(), false)).containsExactly("7");
    assertThat(new String(stale.getData(ZNODES.client(7), false, null), UTF_8))
        .isEqualTo("record of 7");

    // The same writes now have the same outcomes: sequential names and conditional versions agree.
    for (ZooKeeper zk : List.of(healthy, stale)) {
      assertThat(
              zk.create(
                  root + "/app/q-",
                  new byte[0],
                  ZooDefs.Ids.OPEN_ACL_UNSAFE,
                  CreateMode.PERSISTENT_SEQUENTIAL))
          .isEqualTo(root + "/app/q-0000000005");
      assertThat(
              zk.create(
                  root + "/n-",
                  new byte[0],
                  ZooDefs.Ids.OPEN_ACL_UNSAFE,
                  CreateMode.PERSISTENT_SEQUENTIAL))
          .isEqualTo(root + "/n-0000000003");
      assertThat(zk.setData(root + "/app", "v8".getBytes(UTF_8), 7).getVersion()).isEqualTo(8);
      assertThatThrownBy(() -> zk.setData(root + "/empty", new byte[0], 1))
          .isInstanceOf(KeeperException.BadVersionException.class);
    }
    assertThat(TreeDigest.of(stale, ZNODES).entries())
        .isEqualTo(TreeDigest.of(healthy, ZNODES).entries());
  }

  @Test
  void anApplicationNodeNamedLikeThePaddingChildDoesNotBreakTheInstall() throws Exception {
    // A parent whose child version needs padding, with an application child of the name the
    // install used to pad with (and of the next names it might pick): the padding must not
    // collide.
    String root = ZNODES.dataRoot();
    create(healthy, root + "/app", "");
    create(healthy, root + "/app/gone", "");
    healthy.delete(root + "/app/gone", -1); // the child version now needs a padding pair
    for (String name :
        List.of("zoolander-transfer-pad", "zoolander-transfer-pad-1", "zoolander-transfer-pad-2")) {
      create(healthy, root + "/app/" + name, "the application's");
    }
    List<Message.TransferChunk> chunks =
        StateTransfer.chunks(
            12,
            1,
            StateTransfer.read(
                healthy, ZNODES, new BookkeepingState(1, 4), StateTransfer.MAX_BYTES, TIMEOUT_MS));

    install(chunks, new BookkeepingState(1, 4));

    assertThat(TreeDigest.of(stale, ZNODES)).isEqualTo(TreeDigest.of(healthy, ZNODES));
    assertThat(stale.getChildren(root + "/app", false))
        .containsExactlyInAnyOrder(
            "zoolander-transfer-pad", "zoolander-transfer-pad-1", "zoolander-transfer-pad-2");
  }

  @Test
  void anEmptyDuplicateReceivesALargeTreeInBoundedChunks() throws Exception {
    String root = ZNODES.dataRoot();
    byte[] value = new byte[10_000];
    for (int i = 0; i < 120; i++) {
      healthy.create(root + "/n" + i, value, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    }
    create(healthy, root + "/big", "");
    healthy.setData(root + "/big", new byte[900_000], -1);
    StateTransfer.Snapshot snapshot =
        StateTransfer.read(
            healthy, ZNODES, new BookkeepingState(1, 9), StateTransfer.MAX_BYTES, TIMEOUT_MS);
    List<Message.TransferChunk> chunks = StateTransfer.chunks(5, 1, snapshot);

    assertThat(chunks.size()).isGreaterThanOrEqualTo(6);
    for (int i = 0; i < chunks.size(); i++) {
      Message.TransferChunk chunk = chunks.get(i);
      assertThat(chunk.index()).isEqualTo(i);
      assertThat(chunk.last()).isEqualTo(i == chunks.size() - 1);
      long bytes = chunk.nodes().stream().mapToLong(n -> n.path().length() + n.data().length).sum();
      assertThat(bytes <= StateTransfer.CHUNK_BYTES || chunk.nodes().size() == 1)
          .as("chunk %d holds %d bytes in %d nodes", i, bytes, chunk.nodes().size())
          .isTrue();
    }
    install(chunks, new BookkeepingState(1, 9));
    assertThat(TreeDigest.of(stale, ZNODES)).isEqualTo(TreeDigest.of(healthy, ZNODES));
  }

  @Test
  void aSnapshotOverTheLimitIsRefusedOnEitherSide() throws Exception {
    create(healthy, ZNODES.dataRoot() + "/a", "x".repeat(5_000));
    assertThatThrownBy(
            () -> StateTransfer.read(healthy, ZNODES, BookkeepingState.INITIAL, 4_000, TIMEOUT_MS))
        .isInstanceOf(StateTransfer.TooLargeException.class)
        .hasMessageContaining("limit of 4000 bytes");

    List<Message.TransferChunk> chunks =
        StateTransfer.chunks(
            1,
            1,
            StateTransfer.read(
                healthy, ZNODES, BookkeepingState.INITIAL, StateTransfer.MAX_BYTES, TIMEOUT_MS));
    StateTransfer.Install small = new StateTransfer.Install(ZNODES, 4_000, 1);
    assertThatThrownBy(() -> small.add(chunks.get(0)))
        .isInstanceOf(StateTransfer.TooLargeException.class);
  }

  @Test
  void chunksOutOfOrderOrOutsideTheDataRootAreRefused() throws Exception {
    String root = ZNODES.dataRoot();
    Message.TransferChunk.Node rootNode = new Message.TransferChunk.Node(root, new byte[0], 0, 0);
    StateTransfer.Install install = new StateTransfer.Install(ZNODES, StateTransfer.MAX_BYTES, 3);
    assertThatThrownBy(
            () -> install.add(new Message.TransferChunk(3, 1, 1, 1, 1, 1, 2, List.of(rootNode))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("out of order");
    assertThatThrownBy(
            () -> install.add(new Message.TransferChunk(4, 1, 1, 1, 1, 0, 1, List.of(rootNode))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("out of order");
    StateTransfer.Install other = new StateTransfer.Install(ZNODES, StateTransfer.MAX_BYTES, 3);
    assertThatThrownBy(
            () ->
                other.add(
                    new Message.TransferChunk(
                        3,
                        1,
                        1,
                        1,
                        1,
                        0,
                        2,
                        List.of(
                            rootNode,
                            new Message.TransferChunk.Node(ZNODES.state(), new byte[0], 0, 0)))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("outside the data root");
    StateTransfer.Install third = new StateTransfer.Install(ZNODES, StateTransfer.MAX_BYTES, 3);
    assertThatThrownBy(
            () ->
                third.add(
                    new Message.TransferChunk(
                        3,
                        1,
                        1,
                        1,
                        1,
                        0,
                        2,
                        List.of(new Message.TransferChunk.Node(root + "/a", new byte[0], 0, 0)))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must start with the data root");
    assertThatThrownBy(
            () ->
                new StateTransfer.Install(ZNODES, StateTransfer.MAX_BYTES, 3)
                    .install(
                        stale,
                        ZooDefs.Ids.OPEN_ACL_UNSAFE,
                        BookkeepingState.INITIAL,
                        0,
                        TIMEOUT_MS))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("incomplete");
    assertThat(stale.exists(ZNODES.transferMarker(), false)).isNull();

    // A child version that creates and deletes of children cannot produce is refused before
    // anything changes.
    create(stale, root + "/kept", "kept");
    StateTransfer.Install odd = new StateTransfer.Install(ZNODES, StateTransfer.MAX_BYTES, 5);
    assertThat(
            odd.add(
                new Message.TransferChunk(
                    5,
                    1,
                    1,
                    1,
                    1,
                    0,
                    1,
                    List.of(new Message.TransferChunk.Node(root, new byte[0], 0, 1)))))
        .isTrue();
    assertThatThrownBy(
            () ->
                odd.install(
                    stale, ZooDefs.Ids.OPEN_ACL_UNSAFE, BookkeepingState.INITIAL, 0, TIMEOUT_MS))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("child version 1 with 0 children");
    assertThat(stale.exists(ZNODES.transferMarker(), false)).isNull();
    assertThat(stale.exists(root + "/kept", false)).isNotNull();
  }

  // -------------------------------------------------------------------------------------------------

  /**
   * Installs {@code chunks} on the stale server as the plugin does; returns the state znode's new
   * version.
   */
  private int install(List<Message.TransferChunk> chunks, BookkeepingState next) throws Exception {
    StateTransfer.Install install =
        new StateTransfer.Install(ZNODES, StateTransfer.MAX_BYTES, chunks.get(0).transferId());
    for (int i = 0; i < chunks.size(); i++) {
      assertThat(install.add(chunks.get(i))).isEqualTo(i == chunks.size() - 1);
    }
    Stat stat = new Stat();
    stale.getData(ZNODES.state(), false, stat);
    return install.install(stale, ZooDefs.Ids.OPEN_ACL_UNSAFE, next, stat.getVersion(), TIMEOUT_MS);
  }

  private static void create(ZooKeeper zk, String path, String data) throws Exception {
    zk.create(path, data.getBytes(UTF_8), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
  }

  private String startServer(String name) throws Exception {
    File data = dir.resolve(name).toFile();
    ZooKeeperServer server = new ZooKeeperServer(data, data, 2_000);
    // AddressSelection: the IPv4 loopback literal on purpose: the server binds where the returned
    // connect string points; getLoopbackAddress() would be ::1 when IPv6 is preferred.
    @SuppressWarnings("AddressSelection")
    ServerCnxnFactory factory =
        ServerCnxnFactory.createFactory(new InetSocketAddress("127.0.0.1", 0), 20);
    factory.startup(server);
    factories.add(factory);
    return "127.0.0.1:" + factory.getLocalPort();
  }

  private ZooKeeper session(String connectString) throws Exception {
    ZooKeeper zk =
        ZooKeepers.connect(connectString, Duration.ofSeconds(10), Duration.ofSeconds(10));
    sessions.add(zk);
    return zk;
  }
}
