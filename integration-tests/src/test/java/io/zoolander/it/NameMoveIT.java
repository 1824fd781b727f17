package io.zoolander.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zoolander.client.NodeData;
import io.zoolander.client.PartitionedClient;
import io.zoolander.client.Partitioning;
import io.zoolander.client.RetryBudget;
import io.zoolander.client.WriteResult;
import io.zoolander.client.ZoolanderException;
import io.zoolander.server.testing.EmbeddedCluster;
import io.zoolander.server.testing.EmbeddedPartitions;
import io.zoolander.testsupport.Await;
import io.zoolander.testsupport.ZooKeepers;
import io.zoolander.wire.ErrorCode;
import io.zoolander.wire.NameRoutes;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.UnaryOperator;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

/**
 * Moving a top-level name between the two partitions of an {@link EmbeddedPartitions} deployment
 * online ({@link PartitionedClient#moveName}), while other clients that still route it by the old
 * partitioning write and read it. Checked in each partition's own duplicates with a plain ZooKeeper
 * client. The tests run in order: the name moves there and back.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class NameMoveIT {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final Partitioning STATIC = Partitioning.builder().partitions(2).build();
  private static final int WRITES_AFTER = 20;
  private static final int MAX_WRITES = 5_000;
  private static int written;

  private static EmbeddedPartitions deployment;
  private static PartitionedClient mover;
  private static PartitionedClient writer;
  private static PartitionedClient reader;

  @BeforeAll
  static void start() throws Exception {
    deployment =
        EmbeddedPartitions.builder().partitions(2).eachPartition(b -> b.duplicates(2)).start();
    mover = deployment.newClient(STATIC);
    writer = deployment.newClient(STATIC);
    reader = deployment.newClient(STATIC);
    await(mover.create("/users", bytes("root")));
    for (int i = 0; i < 5; i++) {
      await(mover.create("/users/" + i, bytes("user " + i)));
      await(mover.create("/users/" + i + "/profile", bytes("profile " + i)));
    }
    await(mover.create("/orders", bytes("stays")));
  }

  @AfterAll
  static void stop() {
    if (deployment != null) {
      deployment.close();
    }
  }

  /**
   * While {@code /users} moves from partition 0 to 1, another client creates nodes under it one
   * after the other, routing by the partitioning that says 0: every write succeeds exactly once,
   * the ones after the move land in partition 1, and partition 0 keeps nothing of the name.
   */
  @Test
  @Order(1)
  void aNameMovesUnderWritesWithNoWriteLostOrAppliedTwice() throws Exception {
    assertThat(text(await(reader.getData("/users/3")).data())).isEqualTo("user 3");

    AtomicBoolean moved = new AtomicBoolean();
    long deadline = System.nanoTime() + WAIT.toNanos();
    CompletableFuture<List<Integer>> writes =
        CompletableFuture.supplyAsync(
            () -> {
              List<Integer> routedTo = new ArrayList<>(); // where each write was routed, once done
              int after = 0;
              while (after < WRITES_AFTER
                  && routedTo.size() < MAX_WRITES
                  && System.nanoTime() < deadline) {
                boolean movedBefore = moved.get();
                writer
                    .create("/users/w" + routedTo.size(), bytes("w"))
                    .orTimeout(WAIT.toMillis(), TimeUnit.MILLISECONDS)
                    .join();
                routedTo.add(writer.partitionOf("/users"));
                after += movedBefore ? 1 : 0;
              }
              return routedTo;
            });
    await(writer.create("/users/first", bytes("before the move"))); // the writer is going
    CompletableFuture<Void> move = mover.moveName("users", 1);
    // The mover's own client writes the name while it is frozen: the write waits for the move (the
    // freeze lets the mover's writes through, so one sent to the source now could miss the copy).
    Await.await(WAIT, "the move's freeze at partition 0", () -> frozen(writer, 0, "users"));
    CompletableFuture<WriteResult> own = mover.create("/users/own", bytes("the mover's"));
    CompletableFuture<Boolean> ownAfterTheMove = own.thenApply(written -> move.isDone());
    await(move);
    moved.set(true);
    assertThat(await(own).succeeded()).isTrue();
    assertThat(await(ownAfterTheMove)).as("the mover's own write waited for the move").isTrue();
    List<Integer> routedTo = writes.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    written = routedTo.size();
    assertThat(routedTo)
        .as("writes done while the writer routed to 0, then to 1")
        .contains(0, 1)
        .endsWith(1);
    assertThat(mover.partitionOf("/users/1")).isEqualTo(1);
    assertThat(writer.movedNames()).containsEntry("users", 1);
    EmbeddedCluster to = deployment.partition(1);
    EmbeddedCluster from = deployment.partition(0);
    to.awaitConverged(WAIT); // every duplicate has applied every write, not only the first
    from.awaitConverged(WAIT);
    for (int id : to.duplicateIds()) {
      try (ZooKeeper zk = ZooKeepers.connect(to.duplicate(id).connectString())) {
        List<String> children = zk.getChildren(to.znodes().toZnode("/users"), false);
        assertThat(children).as("partition 1, duplicate %d", id).hasSize(5 + 2 + written);
        assertThat(children).contains("own", "first");
        for (int i = 0; i < written; i++) {
          assertThat(children).contains("w" + i);
        }
        assertThat(text(zk.getData(to.znodes().toZnode("/users/4/profile"), false, null)))
            .isEqualTo("profile 4");
      }
    }
    for (int id : from.duplicateIds()) {
      try (ZooKeeper zk = ZooKeepers.connect(from.duplicate(id).connectString())) {
        assertThat(zk.exists(from.znodes().toZnode("/users"), false))
            .as("partition 0, duplicate %d keeps no copy", id)
            .isNull();
        assertThat(zk.exists(from.znodes().toZnode("/orders"), false)).isNotNull();
      }
    }
    // The root lists the name once, and never the route record.
    assertThat(await(reader.getChildren("/"))).containsExactly("orders", "users");
  }

  /**
   * A client that read the name before the move, and has not written it since, reads it after
   * another client changed it in its new partition: it is sent there, and reads the change.
   */
  @Test
  @Order(2)
  void aClientThatReadTheOldPartitionReadsTheNewOne() throws Exception {
    assertThat(reader.movedNames()).isEmpty();
    assertThat(await(writer.setData("/users/3", bytes("changed after the move"), -1)).succeeded())
        .isTrue();
    NodeData read = await(reader.getData("/users/3"));
    assertThat(text(read.data())).isEqualTo("changed after the move");
    assertThat(reader.movedNames()).containsEntry("users", 1);
    assertThat(await(reader.getChildren("/users"))).hasSize(5 + 2 + written);
  }

  /**
   * A client of partition 0 alone, which routes nothing, is refused: its writes before sequencing,
   * its reads by the duplicates; and so is a repeater that takes partition 0 over, which reads the
   * route record from the duplicates it claims.
   */
  @Test
  @Order(3)
  void theOldPartitionRefusesTheNameAcrossATakeover() throws Exception {
    EmbeddedCluster from = deployment.partition(0);
    assertMoved(reader.partition(0).create("/users/x", bytes("stale route")));
    assertMoved(reader.partition(0).getData("/users"));

    int port = from.repeater().boundAddress().getPort();
    from.killRepeater();
    from.startRepeater(b -> b.clientListen("127.0.0.1", port));
    long deadline = System.nanoTime() + WAIT.toNanos();
    var created =
        CompletableFuture.supplyAsync(
            () -> {
              while (true) {
                try {
                  return reader.partition(0).create("/users/y", bytes("stale route")).join();
                } catch (CompletionException e) {
                  if (System.nanoTime() > deadline
                      || (e.getCause() instanceof ZoolanderException z
                          && z.errorCode().orElse(null) == ErrorCode.NAME_MOVED)) {
                    throw e;
                  }
                  // the client is still finding the new repeater: try again
                }
              }
            });
    assertMoved(created);
    assertThat(await(reader.partition(0).create("/orders/z", bytes("ok"))).succeeded()).isTrue();
  }

  /** The name moves back; a move onto a partition that holds the name is refused and undone. */
  @Test
  @Order(4)
  void aNameMovesBackAndAMoveOntoHeldDataIsRefusedAndUndone() throws Exception {
    await(mover.moveName("users", 0));
    assertThat(mover.partitionOf("/users")).isZero();
    // The writer still routes /users to partition 1. Its reads there are only as fresh as the seqs
    // it has seen there, so a duplicate that has not applied the move's mark yet may answer one;
    // once it has seen the mark's seq, its next request is refused as moved and it follows.
    await(writer.partition(1).barrier(mover.partition(1).lastSeenSeq()));
    assertThat(text(await(writer.getData("/users/3")).data())).isEqualTo("changed after the move");
    assertThat(writer.partitionOf("/users")).isZero();
    assertThat(await(writer.getChildren("/users"))).hasSize(5 + 2 + written);

    // "/both" exists in each partition: a move of it would overwrite data.
    await(mover.partition(0).create("/both", bytes("in 0")));
    await(mover.partition(1).create("/both", bytes("in 1")));
    assertThatThrownBy(() -> await(mover.moveName("both", 1)))
        .cause()
        .isInstanceOf(ZoolanderException.class)
        .extracting(e -> ((ZoolanderException) e).code())
        .isEqualTo(KeeperException.Code.NODEEXISTS);
    // Undone: both partitions serve their own /both again, to any client.
    assertThat(await(writer.partition(0).setData("/both", bytes("0 again"), -1)).succeeded())
        .isTrue();
    assertThat(await(writer.partition(1).setData("/both", bytes("1 again"), -1)).succeeded())
        .isTrue();
    Map<String, ?> routes0 =
        NameRoutes.decode(await(mover.partition(0).getData(NameRoutes.PATH)).data()).routes();
    assertThat(routes0).doesNotContainKey("both");
  }

  /**
   * A mover that stopped while it copied {@code /carts} to partition 1 (played by a client that
   * freezes both partitions, copies part of the subtree and closes) leaves the name frozen: an
   * impatient client's write to it is refused. {@link PartitionedClient#recoverMove} undoes the
   * move: the partial copy is deleted, partition 1 sends the name's clients back to 0, and the
   * writes go on in partition 0.
   */
  @Test
  @Order(5)
  void aMoveWhoseMoverStoppedIsUndoneByAnotherClient() throws Exception {
    await(writer.create("/carts", bytes("c")));
    await(writer.create("/carts/1", bytes("one")));
    try (PartitionedClient stopped = deployment.newClient(STATIC)) {
      long a = stopped.partition(0).clientId();
      long b = stopped.partition(1).clientId();
      changeRoutes(stopped, 0, r -> r.with("carts", new NameRoutes.Frozen(a, 0, 1)));
      changeRoutes(stopped, 1, r -> r.with("carts", new NameRoutes.Frozen(b, 0, 1)));
      await(stopped.partition(1).create("/carts", bytes("c"))); // the copy, cut short
      // Not the copy's: a node the source never held. Recovery must not delete it.
      await(stopped.partition(1).create("/carts/stray", bytes("s")));
    }
    try (PartitionedClient impatient =
        deployment.newClient(
            STATIC,
            (partition, builder) ->
                builder.retryBudget(RetryBudget.builder().maxShedWriteRetries(0).build()))) {
      assertThatThrownBy(() -> await(impatient.create("/carts/2", bytes("two"))))
          .cause()
          .isInstanceOf(ZoolanderException.class)
          .extracting(e -> ((ZoolanderException) e).errorCode().orElseThrow())
          .isEqualTo(ErrorCode.NAME_FROZEN);
    }

    assertThat(await(mover.recoverMove("carts"))).isZero();
    assertThat(await(writer.create("/carts/2", bytes("two"))).succeeded()).isTrue();
    assertThat(await(writer.getChildren("/carts"))).containsExactly("1", "2");
    EmbeddedCluster to = deployment.partition(1);
    to.awaitConverged(WAIT);
    for (int id : to.duplicateIds()) {
      try (ZooKeeper zk = ZooKeepers.connect(to.duplicate(id).connectString())) {
        assertThat(zk.getChildren(to.znodes().toZnode("/carts"), false))
            .as("partition 1, duplicate %d: the partial copy is deleted, the stray node kept", id)
            .containsExactly("stray");
      }
    }
    assertMoved(writer.partition(1).getData("/carts"));
    assertThat(await(mover.recoverMove("carts"))).as("nothing left to recover").isEqualTo(-1);
    // The recovering client is the one whose writes partition 1 still takes for the name.
    assertMoved(writer.partition(1).delete("/carts/stray", -1));
    assertThat(await(mover.partition(1).delete("/carts/stray", -1)).succeeded()).isTrue();
    assertThat(await(mover.partition(1).delete("/carts", -1)).succeeded()).isTrue();
  }

  /**
   * A mover that stopped after it marked {@code /carts} moved at partition 0, before it ended the
   * freeze at partition 1: the copy is complete, so {@link PartitionedClient#recoverMove} finishes
   * the move.
   */
  @Test
  @Order(6)
  void aMoveWhoseCopyWasCompleteIsFinishedByAnotherClient() throws Exception {
    try (PartitionedClient stopped = deployment.newClient(STATIC)) {
      long a = stopped.partition(0).clientId();
      long b = stopped.partition(1).clientId();
      changeRoutes(stopped, 0, r -> r.with("carts", new NameRoutes.Frozen(a, 0, 1)));
      changeRoutes(stopped, 1, r -> r.with("carts", new NameRoutes.Frozen(b, 0, 1)));
      await(stopped.partition(1).create("/carts", bytes("c")));
      await(stopped.partition(1).create("/carts/1", bytes("one")));
      long t = await(stopped.partition(1).create("/carts/2", bytes("two"))).seq();
      changeRoutes(stopped, 0, r -> r.with("carts", new NameRoutes.Moved(1, t, a)));
    }
    assertThat(await(mover.recoverMove("carts"))).isOne();
    assertThat(await(writer.create("/carts/3", bytes("three"))).succeeded()).isTrue();
    assertThat(writer.partitionOf("/carts")).isOne();
    assertThat(await(reader.getChildren("/carts"))).containsExactly("1", "2", "3");
  }

  /**
   * A client that has not learned where {@code /carts} lives (its routes say 0; it lives in 1)
   * moves it: to 1, nothing to do; to 0, the move starts where it lives, and the copy the stopped
   * mover of the previous test left in partition 0 (unreachable since) is deleted first, so that
   * partition 0 ends with exactly what partition 1 held.
   */
  @Test
  @Order(7)
  void aMoveFromAPartitionTheNameLeftStartsWhereItLives() throws Exception {
    try (PartitionedClient fresh = deployment.newClient(STATIC)) {
      await(fresh.moveName("carts", 1));
      assertThat(fresh.partitionOf("/carts")).as("it lives there already").isOne();
    }
    try (PartitionedClient fresh = deployment.newClient(STATIC)) {
      await(fresh.moveName("carts", 0));
      assertThat(fresh.partitionOf("/carts")).isZero();
    }
    assertThat(await(reader.getChildren("/carts"))).containsExactly("1", "2", "3");
    assertThat(reader.partitionOf("/carts")).isZero();
  }

  /**
   * The target partition loses its repeater: the move fails at the target's freeze, and the mover
   * undoes the source's freeze, so the name is written at the source again at once. With a new
   * repeater at the target, the same move goes through.
   */
  @Test
  @Order(8)
  void aMoveThatFailsAtTheTargetLeavesTheSourceWritable() throws Exception {
    await(writer.create("/lamps", bytes("l")));
    EmbeddedCluster to = deployment.partition(1);
    int port = to.repeater().boundAddress().getPort();
    try (PartitionedClient impatient =
        deployment.newClient(
            STATIC, (partition, builder) -> builder.requestTimeout(Duration.ofSeconds(3)))) {
      to.killRepeater();
      assertThatThrownBy(() -> await(impatient.moveName("lamps", 1)))
          .cause()
          .isInstanceOf(ZoolanderException.class);
      // Asked of the mover's client, which reads its own writes: the undo included.
      assertThat(frozen(impatient, 0, "lamps")).as("the source's freeze is undone").isFalse();
      assertThat(await(writer.create("/lamps/1", bytes("one"))).succeeded()).isTrue();

      to.startRepeater(b -> b.clientListen("127.0.0.1", port));
      long deadline = System.nanoTime() + WAIT.toNanos();
      while (true) { // the clients find the new repeater
        try {
          await(impatient.moveName("lamps", 1));
          break;
        } catch (ExecutionException e) {
          if (System.nanoTime() > deadline) {
            throw e;
          }
          Await.await(WAIT, "partition 1 unfrozen again", () -> !frozen(writer, 1, "lamps"));
        }
      }
    }
    assertThat(await(writer.getChildren("/lamps"))).containsExactly("1");
    assertThat(writer.partitionOf("/lamps")).isOne();
  }

  /** Whether {@code partition}'s route record says {@code name} is frozen. */
  private static boolean frozen(PartitionedClient client, int partition, String name) {
    try {
      byte[] record = client.partition(partition).getData(NameRoutes.PATH).join().data();
      return NameRoutes.decode(record).route(name).orElse(null) instanceof NameRoutes.Frozen;
    } catch (CompletionException e) {
      return false; // no record yet
    }
  }

  /** Changes a partition's route record as a mover does: read, change, write at its version. */
  private static void changeRoutes(
      PartitionedClient client, int partition, UnaryOperator<NameRoutes> change) throws Exception {
    NodeData record = await(client.partition(partition).getData(NameRoutes.PATH));
    byte[] next = change.apply(NameRoutes.decode(record.data())).encode();
    assertThat(
            await(client.partition(partition).setData(NameRoutes.PATH, next, record.version()))
                .succeeded())
        .isTrue();
  }

  private static void assertMoved(CompletableFuture<?> refused) {
    assertThatThrownBy(() -> refused.get(WAIT.toMillis(), TimeUnit.MILLISECONDS))
        .cause()
        .isInstanceOf(ZoolanderException.class)
        .satisfies(
            e -> {
              ZoolanderException z = (ZoolanderException) e;
              assertThat(z.errorCode()).contains(ErrorCode.NAME_MOVED);
              assertThat(z.code()).isEqualTo(KeeperException.Code.BADARGUMENTS);
            });
  }

  private static <T> T await(CompletableFuture<T> f) throws Exception {
    return f.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String text(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }
}
