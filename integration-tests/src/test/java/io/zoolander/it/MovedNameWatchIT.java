package io.zoolander.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.zoolander.client.PartitionedClient;
import io.zoolander.client.Partitioning;
import io.zoolander.client.WatchEvent;
import io.zoolander.client.WatchEvent.Type;
import io.zoolander.client.WatchHandle;
import io.zoolander.server.testing.EmbeddedPartitions;
import io.zoolander.testsupport.Await;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A persistent recursive watch armed through a {@link PartitionedClient} follows its name when the
 * name moves to the other partition of an {@link io.zoolander.server.testing.EmbeddedPartitions}
 * deployment: RESYNC instead of the watched node's deletion at the source, then the changes made
 * where the name went. A node deleted without a move is reported deleted.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class MovedNameWatchIT {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final Partitioning STATIC = Partitioning.builder().partitions(2).build();

  private static EmbeddedPartitions deployment;
  private static PartitionedClient mover;
  private static PartitionedClient watching;
  private static PartitionedClient writer;

  @BeforeAll
  static void start() throws Exception {
    deployment =
        EmbeddedPartitions.builder().partitions(2).eachPartition(b -> b.duplicates(1)).start();
    mover = deployment.newClient(STATIC);
    watching = deployment.newClient(STATIC);
    writer = deployment.newClient(STATIC);
  }

  @AfterAll
  static void stop() {
    if (deployment != null) {
      deployment.close();
    }
  }

  @Test
  void aWatchFollowsItsNameToThePartitionItMovesTo() throws Exception {
    await(mover.create("/users", bytes("root")));
    await(mover.create("/users/0", bytes("user 0")));
    int from = watching.partitionOf("/users");
    int to = 1 - from;
    List<WatchEvent> events = new CopyOnWriteArrayList<>();
    WatchHandle handle = await(watching.addPersistentRecursiveWatch("/users", events::add));
    await(writer.setData("/users/0", bytes("before"), -1));
    awaitEvent(events, Type.NODE_DATA_CHANGED, "/users/0");

    await(mover.moveName("users", to));

    awaitEvent(events, Type.RESYNC, "/users");
    assertThat(events)
        .as("the watched node's deletion at the source is not reported: it moved")
        .noneMatch(e -> e.type() == Type.NODE_DELETED && e.path().equals("/users"));
    assertThat(watching.partitionOf("/users")).isEqualTo(to);

    // The writer still routes by the static partitioning: it follows the move itself.
    await(writer.create("/users/after", bytes("after the move")));
    awaitEvent(events, Type.NODE_CREATED, "/users/after");
    await(writer.setData("/users/0", bytes("after"), -1));
    awaitEvent(events, Type.NODE_DATA_CHANGED, "/users/0");
    int seen = events.size();

    handle.close();
    await(writer.create("/users/late", bytes("after the close")));
    // A second watch of the same client sees a later change: the closed one would have been told
    // of /users/late before it.
    List<WatchEvent> second = new CopyOnWriteArrayList<>();
    WatchHandle marker = await(watching.addPersistentRecursiveWatch("/users", second::add));
    await(writer.create("/users/marker", bytes("m")));
    awaitEvent(second, Type.NODE_CREATED, "/users/marker");
    marker.close();
    assertThat(events).as("nothing after the close").hasSize(seen);
  }

  @Test
  void aNodeDeletedWithoutAMoveIsReportedDeleted() throws Exception {
    await(mover.create("/orders", bytes("stays")));
    await(mover.create("/orders/1", bytes("order")));
    List<WatchEvent> events = new CopyOnWriteArrayList<>();
    WatchHandle handle = await(watching.addPersistentRecursiveWatch("/orders/1", events::add));
    await(writer.delete("/orders/1", -1));
    awaitEvent(events, Type.NODE_DELETED, "/orders/1");
    assertThat(events).noneMatch(e -> e.type() == Type.RESYNC);
    assertThat(watching.partitionOf("/orders")).isEqualTo(STATIC.partitionOf("/orders"));
    handle.close();
  }

  private static void awaitEvent(List<WatchEvent> events, Type type, String path) {
    Await.await(
        WAIT,
        type + " " + path,
        () -> events.stream().anyMatch(e -> e.type() == type && e.path().equals(path)),
        events::toString);
  }

  private static <T> T await(CompletableFuture<T> future) throws Exception {
    return future.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
