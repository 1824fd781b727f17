package io.zoolander.client;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A persistent recursive watch armed through a {@link PartitionedClient}, which follows its name
 * when the name moves to another partition ({@link PartitionedClient#moveName}).
 *
 * <p>A move ends by deleting the source partition's copy, so the watch there sees every node of its
 * subtree deleted, the watched path last. When the watched path's own NODE_DELETED arrives, the
 * watch asks that partition's route record whether the name moved. If it did, the watch is armed in
 * the partition the name went to (once that partition's duplicates hold the copy), the old one is
 * closed, and the watcher gets {@link WatchEvent.Type#RESYNC} instead of that NODE_DELETED: the
 * nodes are there, in the other partition, and what changed there between the copy and the new
 * watch was not reported, so the application reads them again. The NODE_DELETED events of the
 * subtree's other nodes, which came before, were the copy's deletion, not the nodes'. If the name
 * did not move, the NODE_DELETED is delivered as it is.
 *
 * <p>Threading: events arrive on the watch thread of the client of the partition the watch is armed
 * in; following a move runs on the old partition's watch thread and waits for the reads and the new
 * watch there (bounded by {@link #FOLLOW_TIMEOUT_MS}). The watcher is called one event at a time
 * ({@code synchronized} on this handle), on either partition's watch thread.
 */
final class FollowingWatch implements WatchHandle {
  private static final Logger LOG = LoggerFactory.getLogger(FollowingWatch.class);

  /** How long following a move may take before the watch stays where it was. */
  static final long FOLLOW_TIMEOUT_MS = 30_000;

  /** What a watch needs of the partitioned client. */
  interface Partitions {
    /** The partition that holds {@code path} by the client's routes now. */
    int partitionOf(String path);

    /** The client of {@code partition}. */
    ZoolanderClient client(int partition);

    /**
     * Whether {@code partition} says the name of {@code path} moved away; once true, the routes say
     * where it went and that partition holds the copy.
     */
    CompletableFuture<Boolean> learnIfMoved(int partition, String path);
  }

  private final String path;
  private final Watcher watcher;
  private final Partitions partitions;

  // Guarded by this.
  private WatchHandle armed;
  private int armedPartition = -1;
  private boolean closed;

  FollowingWatch(String path, Watcher watcher, Partitions partitions) {
    this.path = path;
    this.watcher = watcher;
    this.partitions = partitions;
  }

  /**
   * Arms the watch in {@code partition}.
   *
   * @return completes with this handle once armed there; fails as the client's own watch does
   */
  CompletableFuture<WatchHandle> arm(int partition) {
    return partitions
        .client(partition)
        .addPersistentRecursiveWatch(path, event -> onEvent(partition, event))
        .thenApply(
            handle -> {
              if (!armedIn(partition, handle)) {
                handle.close();
              }
              return this;
            });
  }

  /** Takes {@code handle} as the armed watch, unless this handle was closed meanwhile. */
  private synchronized boolean armedIn(int partition, WatchHandle handle) {
    if (closed) {
      return false;
    }
    armed = handle;
    armedPartition = partition;
    return true;
  }

  private void onEvent(int partition, WatchEvent event) {
    if (event.type() == WatchEvent.Type.NODE_DELETED
        && event.path().equals(path)
        && follow(partition)) {
      return;
    }
    deliver(event);
  }

  /**
   * On {@code from}'s watch thread: if the name moved away from {@code from}, arms the watch where
   * it went, closes the old one and delivers RESYNC.
   *
   * @return whether the watch followed the name (the NODE_DELETED is then not delivered)
   */
  private boolean follow(int from) {
    synchronized (this) {
      if (closed || armedPartition != from) {
        return false;
      }
    }
    int to;
    try {
      if (!partitions.learnIfMoved(from, path).get(FOLLOW_TIMEOUT_MS, TimeUnit.MILLISECONDS)) {
        return false;
      }
      to = partitions.partitionOf(path);
      if (to == from) {
        return false;
      }
      WatchHandle old;
      WatchHandle next =
          partitions
              .client(to)
              .addPersistentRecursiveWatch(path, event -> onEvent(to, event))
              .get(FOLLOW_TIMEOUT_MS, TimeUnit.MILLISECONDS);
      synchronized (this) {
        if (closed) {
          next.close();
          return true;
        }
        old = armed;
        armed = next;
        armedPartition = to;
      }
      old.close();
      LOG.info("watch on {} follows its name from partition {} to {}", path, from, to);
      deliver(new WatchEvent(WatchEvent.Type.RESYNC, path, partitions.client(to).lastSeenSeq()));
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    } catch (Exception e) {
      LOG.warn(
          "watch on {}: its node was deleted in partition {}, and whether its name moved, or the"
              + " watch where it went, could not be had: {}",
          path,
          from,
          e.toString());
      return false;
    }
  }

  private synchronized void deliver(WatchEvent event) {
    if (!closed) {
      watcher.process(event);
    }
  }

  @Override
  public String path() {
    return path;
  }

  @Override
  public void close() {
    WatchHandle handle;
    synchronized (this) {
      closed = true;
      handle = armed;
      armed = null;
    }
    if (handle != null) {
      handle.close();
    }
  }
}
