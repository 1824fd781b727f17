package io.zoolander.client;

import io.zoolander.wire.ErrorCode;
import io.zoolander.wire.NameRoutes;
import io.zoolander.wire.Op;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.zookeeper.KeeperException;
import org.jspecify.annotations.Nullable;

/**
 * A client of a partitioned deployment: one {@link ZoolanderClient} per partition, and every read,
 * write and watch routed by its path's {@link Partitioning}. Each partition is a deployment of its
 * own, so each keeps its own guarantees and nothing more: read-your-writes and monotonic reads hold
 * per partition (a partition's seqs mean nothing in another), a write is atomic within one
 * partition and refused with {@link ErrorCode#CROSS_PARTITION} if it names paths in two, and each
 * partition fails, takes over and rejoins on its own.
 *
 * <p>The root is in every partition: {@code getChildren("/")} lists the top-level names of every
 * partition; other reads of {@code /} go to the default partition; writes and watches on it are
 * refused ({@code BADARGUMENTS}).
 *
 * <pre>{@code
 * PartitionedClient client =
 *     PartitionedClient.builder()
 *         .partitioning(Partitioning.builder().partitions(2).route("orders", 1).build())
 *         .partition(0, ZoolanderClient.builder().repeater("10.0.0.1", 7000)...build())
 *         .partition(1, ZoolanderClient.builder().repeater("10.0.1.1", 7000)...build())
 *         .build();
 * client.create("/orders/42", data); // partition 1
 * }</pre>
 *
 * <p>A top-level name can be moved to another partition online ({@link #moveName}). Each client
 * learns of a move when the old partition refuses a request for the name ({@link
 * ErrorCode#NAME_MOVED}): it reads that partition's route record, waits until the new partition's
 * duplicates have applied the copy, and sends the request there, from then on routing the name
 * there ({@link #movedNames()}).
 *
 * <p>Thread-safe, as the partitions' clients are. It owns them: {@link #close()} closes them all.
 */
public final class PartitionedClient implements AutoCloseable {
  /** Most times one request follows a name moved again and again before it fails. */
  static final int MAX_MOVES_FOLLOWED = 4;

  private final Partitioning partitioning;
  private final List<ZoolanderClient> partitions;

  /** Top-level names learned to live elsewhere than the partitioning says: moved online. */
  private final Map<String, Integer> movedNames = new ConcurrentHashMap<>();

  /**
   * Names this client is moving, each with a future completed when the move ends. This client's
   * partition clients are the movers, whose writes a freeze lets through: the application's own
   * writes to the name through this client must wait for the move, or they could land at the source
   * after its subtree was read, and be lost.
   */
  private final Map<String, CompletableFuture<Void>> moving = new ConcurrentHashMap<>();

  private PartitionedClient(Partitioning partitioning, List<ZoolanderClient> partitions) {
    this.partitioning = partitioning;
    this.partitions = List.copyOf(partitions);
  }

  public static Builder builder() {
    return new Builder();
  }

  public Partitioning partitioning() {
    return partitioning;
  }

  /**
   * The client of one partition, for what only it can answer (its seqs, barriers, listeners).
   *
   * @throws IndexOutOfBoundsException if there is no such partition
   */
  public ZoolanderClient partition(int partition) {
    return partitions.get(partition);
  }

  /**
   * The partition holding {@code path}: where its top-level name was moved, as far as this client
   * has learned, else {@link Partitioning#partitionOf}.
   *
   * @throws IllegalArgumentException if {@code path} is not absolute, or is the root
   */
  public int partitionOf(String path) {
    int partition = partitioning.partitionOf(path); // validates
    Integer moved = movedNames.get(NameRoutes.topLevelName(path));
    return moved != null ? moved : partition;
  }

  /**
   * The top-level names this client has learned were moved online, with the partition each lives in
   * now.
   */
  public Map<String, Integer> movedNames() {
    return Map.copyOf(movedNames);
  }

  /**
   * Partition {@code partition}'s route record: the names it is moving away or has moved away
   * ({@link NameRoutes#NONE} if none ever was).
   *
   * @throws IndexOutOfBoundsException if there is no such partition
   */
  public CompletableFuture<NameRoutes> routes(int partition) {
    return NameMover.readRoutes(partitions.get(partition)).thenApply(NameRoutes.Versioned::routes);
  }

  /**
   * Moves every path under the top-level name {@code name} to partition {@code toPartition},
   * online: the other clients' writes to it wait (they are refused with {@link
   * ErrorCode#NAME_FROZEN} and sent again) while the subtree is copied, and once the copy is
   * complete the source partition refuses every request for it with {@link ErrorCode#NAME_MOVED},
   * which sends a {@code PartitionedClient} to the new partition. No write is lost or applied
   * twice, and no client reads the name older than what it has read or written before. The steps
   * and their limits are in {@code docs/operations.md}, "Moving a name to another partition".
   *
   * @return completes once the name is served by {@code toPartition} and the source's copy is
   *     deleted; fails with {@link ZoolanderException} if the name is not valid, the target holds
   *     {@code /name} already, or a step fails (the steps done are undone as far as they can be)
   */
  public CompletableFuture<Void> moveName(String name, int toPartition) {
    if (toPartition < 0 || toPartition >= partitions.size()) {
      return badArguments(
          new IllegalArgumentException(
              "toPartition " + toPartition + " is not one of the " + partitions.size()));
    }
    int from;
    try {
      from = partitionOf("/" + name);
      if (name.isEmpty() || name.contains("/") || name.equals(NameRoutes.NAME)) {
        throw new IllegalArgumentException(
            "name must be one top-level path component, not "
                + NameRoutes.NAME
                + ": '"
                + name
                + "'");
      }
    } catch (IllegalArgumentException | NullPointerException e) {
      return badArguments(e);
    }
    return whileMoving(
        name, () -> new NameMover(partitions, movedNames, name, from, toPartition).start());
  }

  /**
   * Runs {@code move} with {@code name} marked as moving by this client: its writes through this
   * client wait until it ends. Refused if this client moves the name already.
   */
  private <T> CompletableFuture<T> whileMoving(String name, Supplier<CompletableFuture<T>> move) {
    CompletableFuture<Void> ended = new CompletableFuture<>();
    if (moving.putIfAbsent(name, ended) != null) {
      return CompletableFuture.failedFuture(
          new ZoolanderException(
              KeeperException.Code.BADARGUMENTS, "this client is moving /" + name + " already"));
    }
    CompletableFuture<T> done;
    try {
      done = move.get();
    } catch (RuntimeException e) { // no thread for it, say: nothing was moved
      moving.remove(name, ended);
      ended.complete(null);
      return CompletableFuture.failedFuture(e);
    }
    done.whenComplete(
        (result, failure) -> {
          moving.remove(name, ended);
          ended.complete(null);
        });
    return done;
  }

  /**
   * Finishes or undoes a move of {@code name} whose mover stopped before it was done (its process
   * died, say), which leaves the name frozen: its writes wait until they fail. This client takes
   * the move over: if the source had marked the name moved, the copy was complete and the move is
   * finished; otherwise the partial copy is deleted from the target and the name stays where it
   * was. Safe to call while the mover still runs: that move then fails, its further writes to the
   * name refused.
   *
   * @return completes with the partition the name lives in, or -1 if no move of it was unfinished
   */
  public CompletableFuture<Integer> recoverMove(String name) {
    try {
      partitionOf("/" + name); // validates
    } catch (IllegalArgumentException | NullPointerException e) {
      return badArguments(e);
    }
    return whileMoving(name, () -> NameMover.recover(partitions, movedNames, name));
  }

  // ---- writes ----

  /**
   * Writes {@code ops} atomically in the one partition their paths are in ({@link
   * ZoolanderClient#write}). Fails with {@code BADARGUMENTS} and {@link ErrorCode#CROSS_PARTITION}
   * if they are in two or more (applied nowhere), and with {@code BADARGUMENTS} if one names the
   * root or a relative path.
   */
  public CompletableFuture<WriteResult> write(List<Op> ops) {
    return routeOps(ops, c -> c.write(ops));
  }

  /** As {@link #write}, completing once every live duplicate of the partition has applied it. */
  public CompletableFuture<WriteResult> writeAll(List<Op> ops) {
    return routeOps(ops, c -> c.writeAll(ops));
  }

  /** Creates a persistent node in its partition. */
  public CompletableFuture<WriteResult> create(String path, byte[] data) {
    return routeWrite(List.of(path), c -> c.create(path, data));
  }

  /** Creates a persistent sequential node in its partition; the created path is in the result. */
  public CompletableFuture<WriteResult> createSequential(String pathPrefix, byte[] data) {
    return routeWrite(List.of(pathPrefix), c -> c.createSequential(pathPrefix, data));
  }

  /** Sets a node's data if its version matches ({@code -1}: any version). */
  public CompletableFuture<WriteResult> setData(String path, byte[] data, int version) {
    return routeWrite(List.of(path), c -> c.setData(path, data, version));
  }

  /** Deletes a node if its version matches ({@code -1}: any version). */
  public CompletableFuture<WriteResult> delete(String path, int version) {
    return routeWrite(List.of(path), c -> c.delete(path, version));
  }

  // ---- reads ----

  /** A node's data and version, from its partition; the root's from the default partition. */
  public CompletableFuture<NodeData> getData(String path) {
    return routeRead(path, c -> c.getData(path));
  }

  /** Whether a node exists in its partition (the root exists). */
  public CompletableFuture<Boolean> exists(String path) {
    return routeRead(path, c -> c.exists(path));
  }

  /**
   * A node's children, sorted by name, from its partition; for the root, the top-level names of
   * every partition.
   */
  public CompletableFuture<List<String>> getChildren(String path) {
    if (!"/".equals(path)) {
      return routePath(path, c -> c.getChildren(path));
    }
    List<CompletableFuture<List<String>>> each = new ArrayList<>();
    for (ZoolanderClient client : partitions) {
      each.add(client.getChildren("/"));
    }
    return CompletableFuture.allOf(each.toArray(CompletableFuture<?>[]::new))
        .thenApply(
            done -> {
              TreeSet<String> names = new TreeSet<>();
              each.forEach(f -> names.addAll(f.join()));
              return List.copyOf(names);
            });
  }

  // ---- watches ----

  /** {@link ZoolanderClient#getData(String, Watcher)} in the node's partition. */
  public CompletableFuture<NodeData> getData(String path, Watcher watcher) {
    return routePath(path, c -> c.getData(path, watcher));
  }

  /** {@link ZoolanderClient#exists(String, Watcher)} in the node's partition. */
  public CompletableFuture<Boolean> exists(String path, Watcher watcher) {
    return routePath(path, c -> c.exists(path, watcher));
  }

  /** {@link ZoolanderClient#getChildren(String, Watcher)} in the node's partition. */
  public CompletableFuture<List<String>> getChildren(String path, Watcher watcher) {
    return routePath(path, c -> c.getChildren(path, watcher));
  }

  /**
   * {@link ZoolanderClient#addPersistentRecursiveWatch} in the path's partition, which holds the
   * whole subtree; refused for the root, which spans every partition (watch each top-level name).
   * The watch follows its name when the name moves to another partition: the source's copy is
   * deleted (NODE_DELETED for each node of the subtree but the watched path), then the watcher gets
   * {@link WatchEvent.Type#RESYNC} and the events of the partition the name went to.
   */
  public CompletableFuture<WatchHandle> addPersistentRecursiveWatch(String path, Watcher watcher) {
    Objects.requireNonNull(watcher, "watcher must not be null");
    FollowingWatch watch =
        new FollowingWatch(
            path,
            watcher,
            new FollowingWatch.Partitions() {
              @Override
              public int partitionOf(String p) {
                return PartitionedClient.this.partitionOf(p);
              }

              @Override
              public ZoolanderClient client(int partition) {
                return partitions.get(partition);
              }

              @Override
              public CompletableFuture<Boolean> learnIfMoved(int partition, String p) {
                return NameMover.learnIfMoved(partitions, movedNames, partition, p);
              }
            });
    return routePath(path, c -> watch.arm(partitions.indexOf(c)));
  }

  /** Closes every partition's client. */
  @Override
  public void close() {
    partitions.forEach(ZoolanderClient::close);
  }

  @Override
  public String toString() {
    return "PartitionedClient[" + partitioning + "]";
  }

  private <T> CompletableFuture<T> routeRead(
      String path, Function<ZoolanderClient, CompletableFuture<T>> call) {
    if ("/".equals(path)) {
      return call.apply(partitions.get(partitioning.defaultPartition()));
    }
    return routePath(path, call);
  }

  private <T> CompletableFuture<T> routePath(
      String path, Function<ZoolanderClient, CompletableFuture<T>> call) {
    int partition;
    try {
      partition = partitionOf(path);
    } catch (IllegalArgumentException | NullPointerException e) {
      return badArguments(e);
    }
    return followingMoves(List.of(path), partition, call, 0);
  }

  /**
   * Calls {@code call} on {@code partition}'s client; if it refuses a name of {@code paths} as
   * moved (NAME_MOVED, applied nowhere), learns where it went from that partition's route record,
   * waits until the new partition's duplicates hold the moved copy, and calls it there.
   */
  private <T> CompletableFuture<T> followingMoves(
      List<String> paths,
      int partition,
      Function<ZoolanderClient, CompletableFuture<T>> call,
      int followed) {
    return call.apply(partitions.get(partition))
        .exceptionallyCompose(
            failure -> {
              if (!NameMover.refusedAsMoved(failure) || followed >= MAX_MOVES_FOLLOWED) {
                return CompletableFuture.failedFuture(failure);
              }
              return NameMover.learnMoves(partitions, movedNames, partition, paths)
                  .thenCompose(
                      learned -> {
                        int next;
                        try {
                          next = partitionOfAll(paths);
                        } catch (ZoolanderException e) {
                          return CompletableFuture.failedFuture(e);
                        }
                        return followingMoves(paths, next, call, followed + 1);
                      });
            });
  }

  /** The one partition holding every path of a write, or CROSS_PARTITION. */
  private int partitionOfAll(List<String> paths) {
    int partition = -1;
    String first = null;
    for (String path : paths) {
      int p = partitionOf(path);
      if (partition >= 0 && p != partition) {
        throw new ZoolanderException(
            KeeperException.Code.BADARGUMENTS,
            ErrorCode.CROSS_PARTITION,
            "a write spans partitions "
                + partition
                + " ("
                + first
                + ") and "
                + p
                + " ("
                + path
                + "); each partition sequences its own writes: write to each apart",
            null);
      }
      partition = p;
      first = first == null ? path : first;
    }
    return partition;
  }

  /** A path no partition holds fails the call as an invalid argument, like the client's own. */
  private static <T> CompletableFuture<T> badArguments(RuntimeException e) {
    return CompletableFuture.failedFuture(
        new ZoolanderException(KeeperException.Code.BADARGUMENTS, null, e.getMessage(), e));
  }

  private CompletableFuture<WriteResult> routeOps(
      List<Op> ops, Function<ZoolanderClient, CompletableFuture<WriteResult>> call) {
    if (ops.isEmpty()) {
      return call.apply(partitions.get(partitioning.defaultPartition())); // refused there
    }
    List<String> paths = new ArrayList<>(ops.size());
    for (Op op : ops) {
      paths.add(op.path());
    }
    return routeWrite(paths, call);
  }

  /**
   * Sends a write of {@code paths} to their partition, once no move this client makes of their
   * names is under way.
   */
  private CompletableFuture<WriteResult> routeWrite(
      List<String> paths, Function<ZoolanderClient, CompletableFuture<WriteResult>> call) {
    int partition;
    try {
      partition = partitionOfAll(paths);
    } catch (IllegalArgumentException | NullPointerException e) {
      return badArguments(e);
    } catch (ZoolanderException e) {
      return CompletableFuture.failedFuture(e);
    }
    for (String path : paths) {
      CompletableFuture<Void> move = moving.get(NameRoutes.topLevelName(path));
      if (move != null) {
        return move.thenCompose(ended -> routeWrite(paths, call)); // routed anew after it
      }
    }
    return followingMoves(paths, partition, call, 0);
  }

  /** Builds a {@link PartitionedClient}; every setter validates its argument. */
  public static final class Builder {
    private @Nullable Partitioning partitioning;
    private final Map<Integer, ZoolanderClient> partitions = new TreeMap<>();

    private Builder() {}

    public Builder partitioning(Partitioning partitioning) {
      this.partitioning = Objects.requireNonNull(partitioning, "partitioning must not be null");
      return this;
    }

    /**
     * The client of partition {@code partition} (given once for each, in any order).
     *
     * @throws IllegalArgumentException if {@code partition < 0} or was given already
     */
    public Builder partition(int partition, ZoolanderClient client) {
      Objects.requireNonNull(client, "client must not be null");
      if (partition < 0) {
        throw new IllegalArgumentException("partition must be >= 0, was " + partition);
      }
      if (partitions.putIfAbsent(partition, client) != null) {
        throw new IllegalArgumentException("partition " + partition + " was given already");
      }
      return this;
    }

    /**
     * @throws IllegalStateException if the partitioning is not set, or a partition's client is
     *     missing or beyond its count
     */
    public PartitionedClient build() {
      Partitioning p = partitioning;
      if (p == null) {
        throw new IllegalStateException("partitioning must be set");
      }
      List<ZoolanderClient> clients = new ArrayList<>();
      for (int i = 0; i < p.partitions(); i++) {
        ZoolanderClient client = partitions.get(i);
        if (client == null) {
          throw new IllegalStateException("partition " + i + "'s client must be given");
        }
        clients.add(client);
      }
      if (partitions.size() > p.partitions()) {
        throw new IllegalStateException(
            "clients given for partitions "
                + partitions.keySet()
                + ", but the partitioning has "
                + p.partitions());
      }
      return new PartitionedClient(p, clients);
    }
  }
}
