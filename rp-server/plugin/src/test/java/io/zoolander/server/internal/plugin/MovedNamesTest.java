package io.zoolander.server.internal.plugin;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.embedded.EmbeddedChannel;
import io.zoolander.testsupport.Await;
import io.zoolander.testsupport.StandaloneZooKeeper;
import io.zoolander.wire.ErrorCode;
import io.zoolander.wire.Message;
import io.zoolander.wire.NameRoutes;
import io.zoolander.wire.NameRoutes.Frozen;
import io.zoolander.wire.NameRoutes.Moved;
import io.zoolander.wire.ReadKind;
import io.zoolander.wire.Znodes;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The reads a partition's route record refuses: the rules alone, then through the plugin's session
 * reads (the path taken when the plugin does not run in the leader, or the tree keeps racing
 * commits) on a real standalone ZooKeeper server.
 */
class MovedNamesTest {
  private static final long MOVER = 5;
  private static final long OTHER = 6;
  private static final NameRoutes ROUTES =
      NameRoutes.NONE.with("gone", new Moved(1, 40, MOVER)).with("going", new Frozen(MOVER, 0, 1));

  private final MovedNames moved = new MovedNames();

  @Test
  void aMovedNameIsRefusedToAllButItsMoverAndAFrozenOneIsRead() {
    byte[] record = ROUTES.encode();
    Message.Error refused = moved.refusal(read(OTHER, "/gone/a"), record);
    assertThat(refused.code()).isEqualTo(ErrorCode.NAME_MOVED);
    assertThat(refused.message()).contains("/gone", "partition 1", "40");
    assertThat(moved.refusal(read(MOVER, "/gone/a"), record)).isNull();
    assertThat(moved.refusal(read(OTHER, "/going/a"), record)).isNull();
    assertThat(moved.refusal(read(OTHER, "/stays"), record)).isNull();
    assertThat(moved.refusal(read(OTHER, "/gone"), null)).as("no record").isNull();

    Message.Error unreadable = moved.refusal(read(OTHER, "/stays"), "junk".getBytes(UTF_8));
    assertThat(unreadable.code()).isEqualTo(ErrorCode.INTERNAL);
    assertThat(unreadable.message()).contains(NameRoutes.PATH);
  }

  @Test
  void theRootListsNeitherMovedNamesNorTheRecord() {
    byte[] record = ROUTES.encode();
    List<String> children = List.of("going", "gone", "stays", NameRoutes.NAME);
    assertThat(moved.visibleChildren(read(OTHER, "/"), children, record))
        .containsExactly("going", "stays");
    assertThat(moved.visibleChildren(read(OTHER, "/stays"), List.of("gone"), record))
        .containsExactly("gone");
  }

  @Test
  void sessionReadsCheckTheRecordReadAfterTheData(@TempDir Path dir) throws Exception {
    Znodes znodes = new Znodes("/zl");
    ApplierThread thread = new ApplierThread("test-applier");
    ExecutorService applier = Executors.newSingleThreadExecutor(thread);
    try (StandaloneZooKeeper server = StandaloneZooKeeper.start(dir)) {
      OwnSession session = new OwnSession(server.connectString(), 10_000, () -> {});
      try {
        ZooKeeper zk = session.renew(30_000);
        for (String path :
            List.of(
                znodes.basePath(),
                znodes.dataRoot(),
                znodes.toZnode("/gone"),
                znodes.toZnode("/stays"))) {
          zk.create(path, "d".getBytes(UTF_8), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
        }
        SessionReads reads =
            new SessionReads(
                thread,
                1,
                znodes,
                session,
                new AnomalyInjector(1, znodes.anomaly()),
                10_000,
                null,
                moved);
        EmbeddedChannel channel = new EmbeddedChannel();

        Message served = answer(applier, reads, channel, read(OTHER, "/gone"));
        assertThat(served).isInstanceOf(Message.ReadReply.class);
        assertThat(((Message.ReadReply) served).code()).isEqualTo(Code.OK);

        zk.create(
            znodes.toZnode(NameRoutes.PATH),
            ROUTES.encode(),
            ZooDefs.Ids.OPEN_ACL_UNSAFE,
            CreateMode.PERSISTENT);
        Message refused = answer(applier, reads, channel, read(OTHER, "/gone"));
        assertThat(refused).isInstanceOf(Message.Error.class);
        assertThat(((Message.Error) refused).code()).isEqualTo(ErrorCode.NAME_MOVED);

        Message root =
            answer(
                applier, reads, channel, new Message.Read(OTHER, 9, ReadKind.GET_CHILDREN, "/", 0));
        assertThat(((Message.ReadReply) root).children()).containsExactly("stays");
      } finally {
        session.close();
        applier.shutdownNow();
      }
    }
  }

  private static Message answer(
      ExecutorService applier, SessionReads reads, EmbeddedChannel channel, Message.Read read)
      throws Exception {
    applier.submit(() -> reads.issue(channel, read, 0)).get(30, TimeUnit.SECONDS);
    Await.await(
        Duration.ofSeconds(30),
        "the answer to " + read,
        () -> {
          channel.runPendingTasks();
          return !channel.outboundMessages().isEmpty();
        });
    return (Message) channel.readOutbound();
  }

  private static Message.Read read(long clientId, String path) {
    return new Message.Read(clientId, 1, ReadKind.GET_DATA, path, 0);
  }
}
