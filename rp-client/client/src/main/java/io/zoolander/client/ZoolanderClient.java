package io.zoolander.client;

import io.zoolander.wire.Op;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.apache.zookeeper.KeeperException;
import org.jspecify.annotations.Nullable;

/**
 * A client of a Zoolander deployment: sequenced writes through the repeater, answered by the first
 * duplicate, and first-reply reads across C duplicates with read-your-writes.
 *
 * <p>Build one with {@link #builder()}; it is thread-safe and meant to be shared. Every operation
 * is asynchronous and completes exceptionally with a {@link ZoolanderException} carrying a
 * ZooKeeper result code; {@link #blocking()} gives the synchronous twins. Every future completes:
 * at the latest when the request timeout passes or the client closes.
 *
 * <p>Consistency: writes are applied by every duplicate in one global order (the seq). A read goes
 * to duplicates that have applied at least the highest seq this client has seen (its own writes,
 * earlier reads), so a client always reads its own writes and never goes back in time, even though
 * duplicates lag each other. {@link #writeAll} and {@link #barrier} wait until every live duplicate
 * has applied a write, so that any client's later read sees it.
 *
 * <p>Paths are application paths (absolute ZooKeeper paths). Only persistent nodes are replicated:
 * there are no ephemeral nodes (sessions are per duplicate).
 *
 * <p>Watches (ZooKeeper 3.6+ semantics): one-shot data watches ({@link #getData(String, Watcher)},
 * {@link #exists(String, Watcher)}), one-shot child watches ({@link #getChildren(String, Watcher)})
 * and persistent recursive watches ({@link #addPersistentRecursiveWatch}). A watch is armed on
 * every connected duplicate; the duplicates derive events from the writes they apply, so each
 * change comes with its write's seq, and the client delivers it once (the first duplicate's
 * report), in seq order, on its watch thread (see {@link Watcher}). When a duplicate is lost or
 * restarts, or the client reconnects, the watch is armed again from the last seq delivered, and the
 * duplicate sends what happened meanwhile, or {@link WatchEvent.Type#RESYNC} when it no longer can.
 */
public interface ZoolanderClient extends AutoCloseable {

  static ZoolanderClientBuilder builder() {
    return new ZoolanderClientBuilder();
  }

  /**
   * This client's id, unique per client instance; the repeater and plugins route replies and detect
   * retries by it.
   */
  long clientId();

  // ---- writes ----

  /**
   * Sequences {@code ops} as one write (more than one op is an atomic multi) and completes with the
   * first duplicate's result. A write whose ops fail (e.g. NODEEXISTS) completes normally: see
   * {@link WriteResult#code()}. A write retried after a timeout or reconnect is applied at most
   * once.
   */
  CompletableFuture<WriteResult> write(List<Op> ops);

  /** As {@link #write}, completing only once every live duplicate has applied the write. */
  CompletableFuture<WriteResult> writeAll(List<Op> ops);

  /** Creates a persistent node. */
  default CompletableFuture<WriteResult> create(String path, byte[] data) {
    return writeOp(() -> Op.create(path, data));
  }

  /** Creates a persistent sequential node; the created path is in the result. */
  default CompletableFuture<WriteResult> createSequential(String pathPrefix, byte[] data) {
    return writeOp(() -> Op.createSequential(pathPrefix, data));
  }

  /** Sets a node's data if its version matches ({@code -1}: any version). */
  default CompletableFuture<WriteResult> setData(String path, byte[] data, int version) {
    return writeOp(() -> Op.setData(path, data, version));
  }

  /** Deletes a node if its version matches ({@code -1}: any version). */
  default CompletableFuture<WriteResult> delete(String path, int version) {
    return writeOp(() -> Op.delete(path, version));
  }

  /**
   * Builds one op and writes it; an invalid op fails the future with {@code BADARGUMENTS}, like any
   * write.
   */
  private CompletableFuture<WriteResult> writeOp(Supplier<Op> op) {
    Op built;
    try {
      built = op.get();
    } catch (IllegalArgumentException | NullPointerException e) {
      return CompletableFuture.failedFuture(
          new ZoolanderException(KeeperException.Code.BADARGUMENTS, null, e.getMessage(), e));
    }
    return write(List.of(built));
  }

  /** Completes once every live duplicate has applied every write up to {@code seq}. */
  CompletableFuture<Void> barrier(long seq);

  /** Completes once every live duplicate has applied everything this client has seen. */
  default CompletableFuture<Void> barrier() {
    return barrier(lastSeenSeq());
  }

  // ---- reads ----

  /** A node's data and version; fails with {@code NONODE} if it does not exist. */
  CompletableFuture<NodeData> getData(String path);

  /** Whether a node exists. */
  CompletableFuture<Boolean> exists(String path);

  /** A node's children, sorted by name; fails with {@code NONODE} if it does not exist. */
  CompletableFuture<List<String>> getChildren(String path);

  // ---- watches ----

  /**
   * As {@link #getData(String)}, and arms a one-shot data watch: {@code watcher} is told of the
   * first change after the state read (NODE_DATA_CHANGED, NODE_DELETED), or RESYNC. No watch is
   * left when the read fails (NONODE included), as in ZooKeeper.
   */
  CompletableFuture<NodeData> getData(String path, Watcher watcher);

  /**
   * As {@link #exists(String)}, and arms a one-shot data watch whether or not the node exists:
   * {@code watcher} is told of the first NODE_CREATED, NODE_DATA_CHANGED or NODE_DELETED after the
   * state read, or RESYNC.
   */
  CompletableFuture<Boolean> exists(String path, Watcher watcher);

  /**
   * As {@link #getChildren(String)}, and arms a one-shot child watch: {@code watcher} is told of
   * the first NODE_CHILDREN_CHANGED or NODE_DELETED of the node after the state read, or RESYNC. No
   * watch is left when the read fails.
   */
  CompletableFuture<List<String>> getChildren(String path, Watcher watcher);

  /**
   * Arms a persistent recursive watch (ZooKeeper's {@code addWatch(path, PERSISTENT_RECURSIVE)}):
   * {@code watcher} is told of every NODE_CREATED, NODE_DATA_CHANGED and NODE_DELETED of {@code
   * path} and every node below it (no NODE_CHILDREN_CHANGED), for every write after the state a
   * read (issued first, like any read: at least this client's last seen seq) returned, until the
   * handle is closed. Completes once a duplicate has armed it; fails with {@code BADARGUMENTS} for
   * an invalid path, or when every duplicate refuses it (too many watches), and with {@code
   * CONNECTIONLOSS} when none armed it within the request timeout.
   */
  CompletableFuture<WatchHandle> addPersistentRecursiveWatch(String path, Watcher watcher);

  // ---- state ----

  /** The highest seq this client has seen: its reads never return older state. */
  long lastSeenSeq();

  /** The current degree of concurrency C for reads. */
  int readConcurrency();

  /** The connection state of a peer; null before its first connection attempt completed. */
  @Nullable ConnectionState connectionState(Peer peer);

  void addConnectionStateListener(ConnectionStateListener listener);

  void addInconsistencyListener(InconsistencyListener listener);

  /**
   * Observes every reply, winning and losing (latencies for the model, paired across duplicates).
   */
  void addReplyListener(ReplyListener listener);

  /** The synchronous twins of this client's operations. */
  BlockingZoolanderClient blocking();

  /**
   * Closes every connection; pending operations fail with {@code CONNECTIONLOSS}, later ones at
   * once.
   */
  @Override
  void close();
}
