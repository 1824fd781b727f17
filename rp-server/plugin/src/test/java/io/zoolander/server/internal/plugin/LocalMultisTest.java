package io.zoolander.server.internal.plugin;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zoolander.server.internal.leader.AppliedWrite;
import io.zoolander.server.internal.leader.LocalServer;
import io.zoolander.server.internal.leader.TreeReader;
import io.zoolander.testsupport.StandaloneZooKeeper;
import io.zoolander.wire.Znodes;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.server.ZoolanderLocalConnection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The applier's in-process multis on a real standalone ZooKeeper server: a successful multi's
 * results reach the early hook on ZooKeeper's thread before {@code multi} returns (so the REPLY can
 * leave without waiting for the applier to wake); a failed multi never reaches it; a failing hook
 * does not fail the multi.
 */
class LocalMultisTest {

  @TempDir Path dir;
  private StandaloneZooKeeper server;
  private OwnSession session;
  private final ApplierThread applier = new ApplierThread("local-multis-test-applier");
  private ExecutorService applierExecutor;
  private LocalMultis multis;

  @BeforeEach
  void start() throws Exception {
    server = StandaloneZooKeeper.start(dir);
    session = new OwnSession(server.connectString(), 10_000, () -> {});
    session.renew(30_000);
    applierExecutor = Executors.newSingleThreadExecutor(applier);
    LocalServer local =
        new LocalServer() {
          @Override
          public TreeReader treeReader(Znodes znodes) {
            throw new UnsupportedOperationException("not used by LocalMultis");
          }

          @Override
          public ZoolanderLocalConnection connect(
              long sessionId, int sessionTimeoutMs, List<Id> identities) {
            return new ZoolanderLocalConnection(
                server.server(), sessionId, sessionTimeoutMs, identities);
          }

          @Override
          public AutoCloseable observeWrites(String pathPrefix, Consumer<AppliedWrite> onWrite) {
            throw new UnsupportedOperationException("not used by LocalMultis");
          }
        };
    multis = new LocalMultis(applier, local, session, null);
  }

  @AfterEach
  void stop() {
    applierExecutor.shutdownNow();
    session.close();
    server.close();
  }

  private <T> T onApplier(Callable<T> task) throws Exception {
    try {
      return applierExecutor.submit(task).get(30, TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      throw (Exception) e.getCause();
    }
  }

  private static Op create(String path) {
    return Op.create(path, "v".getBytes(UTF_8), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
  }

  @Test
  void aSuccessfulMultisResultsReachTheHookOnZooKeepersThreadBeforeItReturns() throws Exception {
    AtomicReference<Thread> hookThread = new AtomicReference<>();
    AtomicReference<List<OpResult>> hookResults = new AtomicReference<>();
    AtomicReference<Thread> applierThread = new AtomicReference<>();

    List<OpResult> results =
        onApplier(
            () -> {
              applierThread.set(Thread.currentThread());
              List<OpResult> r =
                  multis.multi(
                      List.of(create("/a"), Op.setData("/a", "w".getBytes(UTF_8), 0)),
                      applied -> {
                        hookThread.set(Thread.currentThread());
                        hookResults.set(applied);
                      });
              // What the hook did happens-before multi returns.
              assertThat(hookResults.get()).isSameAs(r);
              return r;
            });

    assertThat(results).hasSize(2);
    assertThat(hookThread.get())
        .as("the hook runs where ZooKeeper applied the multi, not on the applier thread")
        .isNotNull()
        .isNotSameAs(applierThread.get());
    assertThat(server.server().getZKDatabase().getNode("/a").stat.getVersion()).isEqualTo(1);
  }

  @Test
  void aFailedMultiNeverReachesTheHook() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    assertThatThrownBy(
            () ->
                onApplier(
                    () ->
                        multis.multi(
                            List.of(create("/b"), create("/b")),
                            applied -> calls.incrementAndGet())))
        .isInstanceOfSatisfying(
            KeeperException.class,
            e -> assertThat(e.code()).isEqualTo(KeeperException.Code.NODEEXISTS));
    assertThat(calls).hasValue(0);
    assertThat(server.server().getZKDatabase().getNode("/b")).isNull();
  }

  @Test
  void aFailingHookDoesNotFailTheMulti() throws Exception {
    List<OpResult> results =
        onApplier(
            () ->
                multis.multi(
                    List.of(create("/c")),
                    applied -> {
                      throw new IllegalStateException("a broken hook");
                    }));
    assertThat(results).hasSize(1).first().isInstanceOf(OpResult.CreateResult.class);
    assertThat(server.server().getZKDatabase().getNode("/c")).isNotNull();
  }
}
