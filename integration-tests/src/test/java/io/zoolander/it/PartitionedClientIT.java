package io.zoolander.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zoolander.client.PartitionedClient;
import io.zoolander.client.Partitioning;
import io.zoolander.client.ZoolanderException;
import io.zoolander.server.repeater.DuplicateView;
import io.zoolander.server.testing.EmbeddedCluster;
import io.zoolander.server.testing.EmbeddedPartitions;
import io.zoolander.testsupport.Await;
import io.zoolander.testsupport.ZooKeepers;
import io.zoolander.wire.ErrorCode;
import io.zoolander.wire.Op;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
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
 * A partitioned deployment ({@link EmbeddedPartitions}): two deployments of two one-server
 * duplicates, each with its own repeater, and a {@link PartitionedClient} that sends {@code
 * /orders} to the second and every other top-level name to the first. Checked in each partition's
 * own duplicates with a plain ZooKeeper client. The last two lose partition 1's repeater, take it
 * over with a new one and lose one of its duplicates with its data: the tests run in order.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PartitionedClientIT {
  private static final Duration WAIT = Duration.ofSeconds(30);

  private static EmbeddedPartitions deployment;
  private static EmbeddedCluster users; // partition 0, the default
  private static EmbeddedCluster orders; // partition 1
  private static PartitionedClient client;
  private static int ordersRepeaterPort;
  private static long ordersEpoch;

  @BeforeAll
  static void start() throws Exception {
    deployment =
        EmbeddedPartitions.builder().partitions(2).eachPartition(b -> b.duplicates(2)).start();
    users = deployment.partition(0);
    orders = deployment.partition(1);
    ordersRepeaterPort = orders.repeater().boundAddress().getPort();
    ordersEpoch = orders.repeater().epoch();
    client =
        deployment.newClient(
            Partitioning.builder().partitions(2).route("orders", 1).build(),
            (partition, builder) ->
                builder.requestTimeout(Duration.ofSeconds(partition == 1 ? 3 : 10)));
    await(client.create("/users", bytes("u")));
    await(client.create("/orders", bytes("o")));
  }

  @AfterAll
  static void stop() {
    if (deployment != null) {
      deployment.close();
    }
  }

  @Test
  @Order(1)
  void eachWriteLandsInItsPartitionOnlyAndIsReadBackThere() throws Exception {
    assertThat(await(client.create("/users/1", bytes("ann"))).succeeded()).isTrue();
    assertThat(await(client.create("/orders/1", bytes("book"))).succeeded()).isTrue();
    assertThat(await(client.setData("/orders/1", bytes("two books"), -1)).succeeded()).isTrue();

    // Read-your-writes within each partition.
    assertThat(text(await(client.getData("/users/1")).data())).isEqualTo("ann");
    assertThat(text(await(client.getData("/orders/1")).data())).isEqualTo("two books");

    for (int id : users.duplicateIds()) {
      assertThat(existsIn(users, id, "/users/1")).as("users duplicate %d", id).isTrue();
      assertThat(existsIn(users, id, "/orders")).as("users duplicate %d", id).isFalse();
    }
    for (int id : orders.duplicateIds()) {
      assertThat(existsIn(orders, id, "/orders/1")).as("orders duplicate %d", id).isTrue();
      assertThat(existsIn(orders, id, "/users")).as("orders duplicate %d", id).isFalse();
    }
  }

  @Test
  @Order(2)
  void aWriteAcrossPartitionsIsRefusedAndAppliedNowhere() throws Exception {
    var refused =
        client.write(
            List.of(Op.create("/users/2", bytes("bob")), Op.create("/orders/2", bytes("pen"))));
    assertThatThrownBy(refused::join)
        .isInstanceOf(CompletionException.class)
        .cause()
        .isInstanceOf(ZoolanderException.class)
        .satisfies(
            e -> {
              ZoolanderException z = (ZoolanderException) e;
              assertThat(z.code()).isEqualTo(KeeperException.Code.BADARGUMENTS);
              assertThat(z.errorCode()).contains(ErrorCode.CROSS_PARTITION);
            });
    assertThat(await(client.exists("/users/2"))).isFalse();
    assertThat(await(client.exists("/orders/2"))).isFalse();

    // Within one partition a multi stays atomic.
    var both =
        await(
            client.write(
                List.of(Op.create("/orders/3", bytes("a")), Op.create("/orders/4", bytes("b")))));
    assertThat(both.succeeded()).isTrue();
  }

  @Test
  @Order(3)
  void theRootListsEveryPartitionsTopLevelNamesAndIsNoWritesTarget() throws Exception {
    assertThat(await(client.getChildren("/"))).contains("orders", "users");
    assertThat(await(client.getChildren("/orders"))).contains("1", "3", "4");
    assertThatThrownBy(() -> client.create("/", bytes("x")).join())
        .cause()
        .isInstanceOf(ZoolanderException.class)
        .extracting(e -> ((ZoolanderException) e).code())
        .isEqualTo(KeeperException.Code.BADARGUMENTS);
  }

  @Test
  @Order(4)
  void onePartitionsLossLeavesTheOtherWriting() throws Exception {
    orders.killRepeater();
    assertThatThrownBy(() -> client.create("/orders/5", bytes("lost")).join())
        .as("no repeater for partition 1")
        .cause()
        .isInstanceOf(ZoolanderException.class);
    assertThat(await(client.create("/users/5", bytes("still"))).succeeded()).isTrue();
    assertThat(text(await(client.getData("/users/5")).data())).isEqualTo("still");
    assertThat(await(client.getData("/orders/1")).data())
        .as("partition 1's duplicates still answer reads")
        .isEqualTo(bytes("two books"));
  }

  /**
   * Partition 1 fails, takes over and rejoins on its own: a new repeater at the lost one's address
   * claims a higher epoch and the client's writes to {@code /orders} go on through it; then one of
   * its duplicates is lost with its data and comes back empty, and its repeater rejoins it by state
   * transfer. Partition 0 writes throughout, and its repeater and duplicates see none of it.
   */
  @Test
  @Order(5)
  void theLostPartitionTakesOverAndRejoinsOnItsOwnWhileTheOtherWrites() throws Exception {
    long usersEpoch = users.repeater().epoch();
    orders.startRepeater(b -> b.clientListen("127.0.0.1", ordersRepeaterPort));
    assertThat(orders.repeater().epoch()).isGreaterThan(ordersEpoch);
    Await.await(
        WAIT,
        "partition 1's writes going through its new repeater",
        () -> {
          try {
            return client.create("/orders/6", bytes("after")).get(5, TimeUnit.SECONDS).succeeded();
          } catch (ExecutionException | TimeoutException e) {
            return false; // the client is still finding the new repeater
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
          }
        },
        () -> orders.repeater().duplicates().toString());
    assertThat(await(client.create("/users/6", bytes("meanwhile"))).succeeded()).isTrue();

    orders.killDuplicate(2);
    orders.wipeDuplicate(2);
    assertThat(await(client.setData("/orders/6", bytes("while 2 is down"), -1)).succeeded())
        .isTrue();
    orders.duplicate(2).start();
    Await.await(
        WAIT,
        "partition 1's duplicate 2 rejoined by state transfer and streaming",
        () -> {
          DuplicateView d = orders.repeater().duplicate(2);
          return !d.fenced()
              && d.ackedSeq() >= orders.repeater().nextSeq() - 1
              && holds(orders, 2, "/orders/6");
        },
        () -> orders.repeater().duplicates().toString());
    assertThat(new HashSet<>(orders.awaitConverged(WAIT).values())).hasSize(1);
    assertThat(text(await(client.getData("/orders/6")).data())).isEqualTo("while 2 is down");

    assertThat(users.repeater().epoch()).as("partition 0's repeater").isEqualTo(usersEpoch);
    assertThat(users.repeater().duplicates()).noneMatch(DuplicateView::fenced);
    assertThat(await(client.create("/users/7", bytes("still"))).succeeded()).isTrue();
    assertThat(new HashSet<>(users.awaitConverged(WAIT).values())).hasSize(1);
  }

  /** {@link #existsIn}, false while the duplicate cannot be asked (it is starting). */
  private static boolean holds(EmbeddedCluster cluster, int duplicate, String path) {
    try {
      return existsIn(cluster, duplicate, path);
    } catch (Exception e) {
      return false;
    }
  }

  private static boolean existsIn(EmbeddedCluster cluster, int duplicate, String path)
      throws Exception {
    try (ZooKeeper zk = ZooKeepers.connect(cluster.duplicate(duplicate).connectString())) {
      return zk.exists(cluster.znodes().toZnode(path), false) != null;
    }
  }

  private static <T> T await(java.util.concurrent.CompletableFuture<T> f) throws Exception {
    return f.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String text(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }
}
