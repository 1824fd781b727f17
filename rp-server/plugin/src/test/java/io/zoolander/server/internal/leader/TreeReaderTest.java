package io.zoolander.server.internal.leader;

import static org.assertj.core.api.Assertions.assertThat;

import io.zoolander.testsupport.StandaloneZooKeeper;
import io.zoolander.testsupport.ZooKeepers;
import io.zoolander.wire.BookkeepingState;
import io.zoolander.wire.NameRoutes;
import io.zoolander.wire.ReadKind;
import io.zoolander.wire.Znodes;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reads from the in-memory tree of a real ZooKeeper server while writes are applied to it, as the
 * plugin's multis are: every write changes the bookkeeping state and the data together, so an
 * answer whose data does not match its state saw part of a multi, or a later write.
 */
class TreeReaderTest {
  private static final Znodes ZNODES = Znodes.defaults();
  private static final String X = ZNODES.toZnode("/x");
  private static final String Y = ZNODES.toZnode("/y");
  private static final String P = ZNODES.toZnode("/p");
  private static final String DEEP = ZNODES.toZnode("/gone/deeper/still");
  private static final String ROUTES = ZNODES.toZnode(NameRoutes.PATH);

  @TempDir Path dir;
  private StandaloneZooKeeper zooKeeper;
  private ZooKeeper zk;

  @BeforeEach
  void start() throws Exception {
    zooKeeper = StandaloneZooKeeper.start(dir);
    zk = ZooKeepers.connect(zooKeeper.connectString());
    for (String path : List.of(ZNODES.basePath(), ZNODES.dataRoot(), X, P)) {
      zk.create(path, seqBytes(0), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    }
    zk.create(P + "/c0", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    zk.create(Y, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
  }

  @AfterEach
  void stop() throws Exception {
    if (zk != null) {
      zk.close();
    }
    zooKeeper.close();
  }

  private TreeReader reader() {
    return new TreeReader(() -> zooKeeper.server().getZKDatabase().getDataTree(), ZNODES);
  }

  @Test
  void noStateZnodeYetMeansNoAnswer() {
    assertThat(reader().read(X, ReadKind.GET_DATA)).isEmpty();
  }

  @Test
  void readsDataVersionChildrenAndMissingNodesWithTheStateTheyReflect() throws Exception {
    zk.create(
        ZNODES.state(),
        new BookkeepingState(3, 7).encode(),
        ZooDefs.Ids.OPEN_ACL_UNSAFE,
        CreateMode.PERSISTENT);
    zk.setData(X, seqBytes(7), -1);
    zk.create(P + "/a", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    TreeReader reader = reader();

    TreeReader.Result data = reader.read(X, ReadKind.GET_DATA).orElseThrow();
    assertThat(data.exists()).isTrue();
    assertThat(seqOf(data.data())).isEqualTo(7);
    assertThat(data.version()).isEqualTo(1);
    assertThat(data.state()).isEqualTo(new BookkeepingState(3, 7));

    TreeReader.Result exists = reader.read(X, ReadKind.EXISTS).orElseThrow();
    assertThat(exists.exists()).isTrue();
    assertThat(exists.data()).isNull();
    assertThat(exists.version()).isEqualTo(1);

    TreeReader.Result children = reader.read(P, ReadKind.GET_CHILDREN).orElseThrow();
    assertThat(children.children()).containsExactly("a", "c0");

    TreeReader.Result missing = reader.read(DEEP, ReadKind.GET_DATA).orElseThrow();
    assertThat(missing.exists()).isFalse();
    assertThat(missing.version()).isEqualTo(-1);
    assertThat(missing.state().appliedSeq()).isEqualTo(7);
    assertThat(missing.zxid())
        .isEqualTo(zooKeeper.server().getZKDatabase().getDataTree().lastProcessedZxid);
    assertThat(missing.routes()).as("no route record").isNull();

    zk.create(ROUTES, seqBytes(9), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    assertThat(seqOf(reader.read(X, ReadKind.GET_DATA).orElseThrow().routes())).isEqualTo(9);
  }

  @Test
  void statsAreWhatZooKeeperReportsAndNullForMissingNodes() throws Exception {
    zk.setData(X, seqBytes(7), -1);
    zk.create(P + "/a", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    zk.delete(P + "/c0", -1);

    Map<String, Stat> stats = reader().stats(List.of(X, P, DEEP)).orElseThrow();

    assertThat(stats).containsOnlyKeys(X, P, DEEP);
    assertThat(stats.get(X)).isEqualTo(zk.exists(X, false));
    assertThat(stats.get(X).getVersion()).isEqualTo(1);
    assertThat(stats.get(P)).isEqualTo(zk.exists(P, false));
    assertThat(stats.get(DEEP)).isNull();
  }

  /**
   * Write {@code seq} sets the state to seq, /x and the route record to seq, replaces /p's only
   * child with c{seq}, and creates /y when seq is even, deletes it when odd: one multi each,
   * several in flight at once. Readers on two threads check that every answer is exactly what the
   * state it reports says, and that the stats of /x and /y they read together are those one write
   * left.
   */
  @Test
  void answersUnderConcurrentMultisAlwaysMatchTheStateTheyReport() throws Exception {
    zk.create(
        ZNODES.state(),
        new BookkeepingState(1, 0).encode(),
        ZooDefs.Ids.OPEN_ACL_UNSAFE,
        CreateMode.PERSISTENT);
    zk.create(ROUTES, seqBytes(0), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    TreeReader reader = reader();
    int writes = 3_000;
    AtomicBoolean writing = new AtomicBoolean(true);
    ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
    AtomicLong answers = new AtomicLong();
    AtomicLong distinctStates = new AtomicLong();
    List<Thread> readers = new ArrayList<>();
    for (int r = 0; r < 2; r++) {
      Thread t =
          new Thread(
              () -> {
                long lastSeq = -1;
                while (writing.get()) {
                  Optional<Map<String, Stat>> stats = reader.stats(List.of(X, Y));
                  if (stats.isPresent()) {
                    // /x's version is the seq of the last write; /y exists after even ones.
                    Stat x = stats.get().get(X);
                    boolean y = stats.get().get(Y) != null;
                    if (x == null || y != (x.getVersion() % 2 == 0)) {
                      violations.add("stats: /x " + x + ", /y exists=" + y);
                    }
                    answers.incrementAndGet();
                  }
                  for (ReadKind kind : ReadKind.values()) {
                    String path =
                        switch (kind) {
                          case GET_DATA -> X;
                          case EXISTS -> Y;
                          case GET_CHILDREN -> P;
                        };
                    Optional<TreeReader.Result> answer = reader.read(path, kind);
                    if (answer.isEmpty()) {
                      continue; // gave up after racing commits: allowed, never wrong
                    }
                    TreeReader.Result a = answer.get();
                    long seq = a.state().appliedSeq();
                    String problem = check(kind, a, seq);
                    if (problem != null) {
                      violations.add(problem);
                    }
                    answers.incrementAndGet();
                    if (seq != lastSeq) {
                      distinctStates.incrementAndGet();
                      lastSeq = seq;
                    }
                  }
                }
              },
              "tree-reader-" + r);
      t.start();
      readers.add(t);
    }

    Semaphore inFlight = new Semaphore(32);
    CountDownLatch done = new CountDownLatch(writes);
    AtomicLong failed = new AtomicLong();
    for (long seq = 1; seq <= writes; seq++) {
      assertThat(inFlight.tryAcquire(30, TimeUnit.SECONDS)).as("write slot").isTrue();
      zk.multi(
          ops(seq),
          (rc, path, ctx, results) -> {
            if (rc != 0) {
              failed.incrementAndGet();
            }
            inFlight.release();
            done.countDown();
          },
          null);
    }
    assertThat(done.await(120, TimeUnit.SECONDS)).as("all writes applied").isTrue();
    writing.set(false);
    for (Thread t : readers) {
      t.join(30_000);
    }

    assertThat(failed.get()).as("failed multis").isZero();
    assertThat(violations).as("answers that saw part of a write or a later one").isEmpty();
    assertThat(answers.get()).as("answers").isGreaterThan(100);
    assertThat(distinctStates.get())
        .as("the readers ran while writes were applied")
        .isGreaterThan(10);
    TreeReader.Result last = reader.read(X, ReadKind.GET_DATA).orElseThrow();
    assertThat(last.state().appliedSeq()).isEqualTo(writes);
    assertThat(seqOf(last.data())).isEqualTo(writes);
  }

  private static List<Op> ops(long seq) {
    List<Op> ops = new ArrayList<>();
    ops.add(Op.setData(ZNODES.state(), new BookkeepingState(1, seq).encode(), -1));
    ops.add(Op.setData(X, seqBytes(seq), -1));
    ops.add(Op.setData(ROUTES, seqBytes(seq), -1));
    ops.add(Op.delete(P + "/c" + (seq - 1), -1));
    ops.add(
        Op.create(P + "/c" + seq, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT));
    ops.add(
        seq % 2 == 0
            ? Op.create(Y, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT)
            : Op.delete(Y, -1));
    return ops;
  }

  private static String check(ReadKind kind, TreeReader.Result a, long seq) {
    if (a.routes() == null || seqOf(a.routes()) != seq) {
      return "route record " + (a.routes() == null ? "none" : seqOf(a.routes())) + " at seq " + seq;
    }
    return switch (kind) {
      case GET_DATA ->
          a.exists() && seqOf(a.data()) == seq && a.version() == seq
              ? null
              : "x="
                  + (a.exists() ? seqOf(a.data()) : "none")
                  + " v"
                  + a.version()
                  + " at seq "
                  + seq;
      case EXISTS ->
          a.exists() == (seq % 2 == 0) ? null : "y exists=" + a.exists() + " at seq " + seq;
      case GET_CHILDREN ->
          a.children().equals(List.of("c" + seq))
              ? null
              : "p's children " + a.children() + " at seq " + seq;
    };
  }

  private static byte[] seqBytes(long seq) {
    return ByteBuffer.allocate(Long.BYTES).putLong(seq).array();
  }

  private static long seqOf(byte[] data) {
    return ByteBuffer.wrap(data).getLong();
  }
}
