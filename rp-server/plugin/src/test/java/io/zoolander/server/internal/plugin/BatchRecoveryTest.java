package io.zoolander.server.internal.plugin;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.zoolander.server.plugin.ZoolanderPluginConfig;
import io.zoolander.testsupport.StandaloneZooKeeper;
import io.zoolander.wire.BookkeepingState;
import io.zoolander.wire.Message;
import io.zoolander.wire.Op;
import io.zoolander.wire.Znodes;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A batch whose multi applied but whose answer was lost (a connection loss after the commit): the
 * recovered writes are held in {@link RecentWrites} like any applied write, so a repeater taking
 * over can still recover them from this duplicate. The applier's parts on a real standalone
 * ZooKeeper server; only the loss of the answer is simulated.
 */
class BatchRecoveryTest {
  private static final Znodes ZNODES = new Znodes("/zl");

  @TempDir Path dir;
  private StandaloneZooKeeper server;
  private OwnSession session;
  private final ApplierThread thread = new ApplierThread("test-applier");
  private final ExecutorService applier = Executors.newSingleThreadExecutor(thread);

  @BeforeEach
  void start() throws Exception {
    server = StandaloneZooKeeper.start(dir);
    session = new OwnSession(server.connectString(), 10_000, () -> {});
    ZooKeeper zk = session.renew(30_000);
    for (String path : List.of(ZNODES.basePath(), ZNODES.dataRoot(), ZNODES.clients())) {
      zk.create(path, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    }
    zk.create(
        ZNODES.state(),
        new BookkeepingState(1, 0).encode(),
        ZooDefs.Ids.OPEN_ACL_UNSAFE,
        CreateMode.PERSISTENT);
  }

  @AfterEach
  void stop() {
    applier.shutdownNow();
    session.close();
    server.close();
  }

  private <T> T onApplier(Callable<T> task) throws Exception {
    return applier.submit(task).get(60, TimeUnit.SECONDS);
  }

  @Test
  void writesABatchAppliedBeforeItsAnswerWasLostAreHeldForATakeover() throws Exception {
    RecentWrites recent = new RecentWrites(1_000, 1 << 20);
    AtomicBoolean loseNextAnswer = new AtomicBoolean(true);
    Multis losing =
        ops -> {
          List<org.apache.zookeeper.OpResult> done = session.zk().multi(ops);
          if (loseNextAnswer.getAndSet(false)) {
            throw new KeeperException.ConnectionLossException(); // applied, answer lost
          }
          return done;
        };
    BatchApplier batches =
        onApplier(
            () -> {
              GapTracker gaps = new GapTracker(16, 0);
              ApplierState state = new ApplierState(thread, gaps, new BookkeepingState(1, 0), 0);
              AnomalyInjector anomalies = new AnomalyInjector(1, ZNODES.anomaly());
              SessionReads reads =
                  new SessionReads(
                      thread, 1, ZNODES, session, anomalies, 10_000, null, new MovedNames());
              ReadGate gate = new ReadGate(thread, 1, state, reads, 1_000, 16);
              Fencing fencing =
                  new Fencing(
                      thread,
                      1,
                      state,
                      gaps,
                      gate,
                      () -> {},
                      new FenceRecord(1, ZNODES, session, ZooDefs.Ids.OPEN_ACL_UNSAFE));
              EpochGuard epochs = new EpochGuard(thread, 1, state, gaps);
              ClientTable clients = new ClientTable(ZNODES);
              ResultPredictor predictor = new ResultPredictor(ZNODES);
              Outbound out = new Outbound(1, new Peers(), state);
              Recovery recovery =
                  new Recovery(
                      thread, 1, ZNODES, session, () -> {}, state, epochs, fencing, clients,
                      predictor, out);
              return new BatchApplier(
                  thread,
                  1,
                  ZNODES,
                  ZooDefs.Ids.OPEN_ACL_UNSAFE,
                  session,
                  losing,
                  reads,
                  state,
                  epochs,
                  clients,
                  predictor,
                  recent,
                  new WriteStall(thread, 1, anomalies),
                  recovery,
                  out,
                  PluginMeters.none(),
                  ZoolanderPluginConfig.MAX_BATCH_BYTES_DEFAULT);
            });
    List<Message.Sequenced> run =
        List.of(
            new Message.Sequenced(1, 1, 77, 1, List.of(Op.create("/a", "1".getBytes(UTF_8)))),
            new Message.Sequenced(1, 2, 77, 2, List.of(Op.create("/b", "2".getBytes(UTF_8)))),
            new Message.Sequenced(1, 3, 77, 3, List.of(Op.create("/c", "3".getBytes(UTF_8)))));
    int handled = onApplier(() -> batches.apply(null, run));
    assertThat(handled).as("the state was read again").isNegative();
    assertThat(BookkeepingState.decode(session.zk().getData(ZNODES.state(), false, null)))
        .as("the lost attempt applied the batch")
        .isEqualTo(new BookkeepingState(1, 3));
    assertThat(onApplier(() -> recent.range(1, 3)))
        .as("the recovered writes are held for a repeater taking over")
        .containsExactlyElementsOf(run);
  }
}
