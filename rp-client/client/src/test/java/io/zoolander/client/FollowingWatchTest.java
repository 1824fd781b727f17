package io.zoolander.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.Test;

/**
 * How a watch armed through a {@link PartitionedClient} decides, on its path's deletion, whether to
 * follow the name: against partitions whose clients only arm watches and say their last seq (the
 * moves themselves, on real deployments, are in {@code MovedNameWatchIT}).
 */
class FollowingWatchTest {
  private final List<WatchEvent> delivered = new ArrayList<>();
  private final Map<Integer, PartitionStub> stubs = new HashMap<>();
  private final Map<String, Integer> routes = new HashMap<>();
  private CompletableFuture<Boolean> moved = CompletableFuture.completedFuture(false);

  private final FollowingWatch.Partitions partitions =
      new FollowingWatch.Partitions() {
        @Override
        public int partitionOf(String path) {
          return routes.getOrDefault(path, 0);
        }

        @Override
        public ZoolanderClient client(int partition) {
          return stubs.computeIfAbsent(partition, p -> new PartitionStub(10L * (p + 1))).client;
        }

        @Override
        public CompletableFuture<Boolean> learnIfMoved(int partition, String path) {
          return moved;
        }
      };

  @Test
  void aDeletionWithoutAMoveIsDeliveredAsIs() {
    FollowingWatch watch = armedAt0("/users");
    stub(0).fire(WatchEvent.Type.NODE_DELETED, "/users/a", 5);
    stub(0).fire(WatchEvent.Type.NODE_DELETED, "/users", 6);

    assertThat(delivered)
        .containsExactly(
            new WatchEvent(WatchEvent.Type.NODE_DELETED, "/users/a", 5),
            new WatchEvent(WatchEvent.Type.NODE_DELETED, "/users", 6));
    assertThat(stub(0).closed).isZero();
    watch.close();
    assertThat(stub(0).closed).isEqualTo(1);
  }

  @Test
  void aMovedNameIsFollowedWithResyncInsteadOfTheDeletion() {
    FollowingWatch watch = armedAt0("/users");
    routes.put("/users", 1);
    moved = CompletableFuture.completedFuture(true);

    stub(0).fire(WatchEvent.Type.NODE_DELETED, "/users", 6);

    assertThat(delivered).containsExactly(new WatchEvent(WatchEvent.Type.RESYNC, "/users", 20));
    assertThat(stub(0).closed).as("the source's watch closed").isEqualTo(1);
    assertThat(stub(1).armed).containsExactly("/users");
    stub(1).fire(WatchEvent.Type.NODE_CREATED, "/users/b", 21);
    assertThat(delivered)
        .last()
        .isEqualTo(new WatchEvent(WatchEvent.Type.NODE_CREATED, "/users/b", 21));

    watch.close();
    assertThat(stub(1).closed).isEqualTo(1);
    stub(1).fire(WatchEvent.Type.NODE_CREATED, "/users/c", 22); // one already queued: not delivered
    assertThat(delivered).hasSize(2);
  }

  @Test
  void whenWhetherItMovedCannotBeLearnedTheDeletionIsDeliveredAndTheWatchStays() {
    FollowingWatch watch = armedAt0("/users");
    moved =
        CompletableFuture.failedFuture(
            new ZoolanderException(KeeperException.Code.CONNECTIONLOSS, "partition 0 unreachable"));

    stub(0).fire(WatchEvent.Type.NODE_DELETED, "/users", 6);

    assertThat(delivered)
        .containsExactly(new WatchEvent(WatchEvent.Type.NODE_DELETED, "/users", 6));
    assertThat(stub(0).closed).isZero();
    assertThat(stubs).doesNotContainKey(1);
    watch.close();
  }

  @Test
  void aWatchClosedBeforeItIsArmedClosesWhatIsArmedLater() {
    FollowingWatch watch = new FollowingWatch("/users", delivered::add, partitions);
    stub(0).holdArming = true;
    CompletableFuture<WatchHandle> arming = watch.arm(0);
    watch.close();
    stub(0).pending.complete(stub(0).handle("/users"));

    assertThat(arming).isCompletedWithValue(watch);
    assertThat(stub(0).closed).isEqualTo(1);
    stub(0).fire(WatchEvent.Type.NODE_CREATED, "/users/a", 3);
    assertThat(delivered).isEmpty();
  }

  private FollowingWatch armedAt0(String path) {
    FollowingWatch watch = new FollowingWatch(path, delivered::add, partitions);
    assertThat(watch.arm(0)).isCompletedWithValue(watch);
    return watch;
  }

  private PartitionStub stub(int partition) {
    partitions.client(partition);
    return stubs.get(partition);
  }

  /** A partition's client that arms watches at once (or when told) and reports a fixed seq. */
  private static final class PartitionStub {
    final List<String> armed = new ArrayList<>();
    final List<Watcher> watchers = new ArrayList<>();
    final CompletableFuture<WatchHandle> pending = new CompletableFuture<>();
    boolean holdArming;
    int closed;
    final ZoolanderClient client;

    PartitionStub(long lastSeenSeq) {
      client =
          (ZoolanderClient)
              Proxy.newProxyInstance(
                  ZoolanderClient.class.getClassLoader(),
                  new Class<?>[] {ZoolanderClient.class},
                  (proxy, method, args) ->
                      switch (method.getName()) {
                        case "addPersistentRecursiveWatch" -> {
                          armed.add((String) args[0]);
                          watchers.add((Watcher) args[1]);
                          yield holdArming
                              ? pending
                              : CompletableFuture.completedFuture(handle((String) args[0]));
                        }
                        case "lastSeenSeq" -> lastSeenSeq;
                        case "toString" -> "partition stub";
                        default -> throw new UnsupportedOperationException(method.getName());
                      });
    }

    WatchHandle handle(String path) {
      return new WatchHandle() {
        @Override
        public String path() {
          return path;
        }

        @Override
        public void close() {
          closed++;
        }
      };
    }

    void fire(WatchEvent.Type type, String path, long seq) {
      watchers.get(watchers.size() - 1).process(new WatchEvent(type, path, seq));
    }
  }
}
