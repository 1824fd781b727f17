package io.zoolander.server.internal.plugin;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.zoolander.server.internal.leader.AppliedWrite;
import io.zoolander.server.internal.leader.LocalServer;
import io.zoolander.server.internal.leader.TreeReader;
import io.zoolander.testsupport.Await;
import io.zoolander.testsupport.StandaloneZooKeeper;
import io.zoolander.wire.Znodes;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.server.ZoolanderLocalConnection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A foreign write's fence is recorded in the ensemble at once, from ZooKeeper's commit thread,
 * without waiting for the applier: an applier stalled (a GC pause, a long multi, an injected stall)
 * when its duplicate crashes must not take the fence with it. Here the applier never takes it (the
 * fence hand-over is only remembered), and the record still appears, on a real standalone ZooKeeper
 * server; only the leader's write observation is driven by the test.
 */
class ForeignWritesTest {
  private static final Znodes ZNODES = new Znodes("/zl");
  private static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir Path dir;
  private StandaloneZooKeeper server;
  private OwnSession session;
  private final AtomicReference<Consumer<AppliedWrite>> observer = new AtomicReference<>();
  private final List<String> handedOver = new CopyOnWriteArrayList<>();

  /** The leader's write observation only; the plugin reads and writes through its session here. */
  private final LocalServer leader =
      new LocalServer() {
        @Override
        public TreeReader treeReader(Znodes znodes) {
          throw new UnsupportedOperationException("not used by ForeignWrites");
        }

        @Override
        public ZoolanderLocalConnection connect(
            long sessionId, int sessionTimeoutMs, List<Id> identities) {
          throw new UnsupportedOperationException("not used by ForeignWrites");
        }

        @Override
        public AutoCloseable observeWrites(String pathPrefix, Consumer<AppliedWrite> onWrite) {
          assertThat(pathPrefix).isEqualTo(ZNODES.dataRoot());
          observer.set(onWrite);
          return () -> observer.set(null);
        }
      };

  @BeforeEach
  void start() throws Exception {
    server = StandaloneZooKeeper.start(dir);
    session = new OwnSession(server.connectString(), 10_000, () -> {});
    ZooKeeper zk = session.renew(30_000);
    for (String path : List.of(ZNODES.basePath(), ZNODES.dataRoot())) {
      zk.create(path, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    }
  }

  @AfterEach
  void stop() {
    session.close();
    server.close();
  }

  @Test
  void aForeignWritesFenceIsRecordedWithoutTheApplier() throws Exception {
    try (ForeignWrites foreign = foreignWrites(true)) {
      observer.get().accept(new AppliedWrite(0x1234, "create", ZNODES.dataRoot() + "/behind"));

      Await.await(WAIT, "a fence record", () -> !record().isEmpty());
      assertThat(record()).contains("create " + ZNODES.dataRoot() + "/behind").contains("0x1234");
      assertThat(handedOver).hasSize(1);
      assertThat(foreign.seen()).isEqualTo(1);

      // A second one updates the record (it exists already).
      observer.get().accept(new AppliedWrite(0x5678, "setData", ZNODES.dataRoot() + "/again"));
      Await.await(WAIT, "the fence record updated", () -> record().contains("/again"));
      assertThat(record()).contains("setData " + ZNODES.dataRoot() + "/again");
    }
  }

  @Test
  void thePluginsOwnWritesAndUnfencedForeignOnesAreNotRecorded() throws Exception {
    try (ForeignWrites own = foreignWrites(true)) {
      observer
          .get()
          .accept(
              new AppliedWrite(session.zk().getSessionId(), "create", ZNODES.dataRoot() + "/x"));
      assertThat(own.seen()).isZero();
    }
    try (ForeignWrites logged = foreignWrites(false)) {
      observer.get().accept(new AppliedWrite(0x1234, "create", ZNODES.dataRoot() + "/y"));
      assertThat(logged.seen()).isEqualTo(1);
    }
    // A record would have been queued on this session before this read: one session's requests
    // are answered in order.
    assertThat(session.zk().exists(ZNODES.fenceRecord(), false)).isNull();
    assertThat(handedOver).isEmpty();
  }

  private ForeignWrites foreignWrites(boolean fences) {
    return new ForeignWrites(
        1,
        leader,
        ZNODES.dataRoot(),
        session::isOwnOrPrevious,
        fences,
        handedOver::add,
        new FenceRecord(1, ZNODES, session, ZooDefs.Ids.OPEN_ACL_UNSAFE));
  }

  /** The fence record's reason; empty while there is none. */
  private String record() {
    try {
      return new String(session.zk().getData(ZNODES.fenceRecord(), false, null), UTF_8);
    } catch (KeeperException.NoNodeException e) {
      return "";
    } catch (KeeperException e) {
      throw new IllegalStateException("cannot read the fence record", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
