package io.zoolander.server.internal.leader;

import io.zoolander.wire.BookkeepingState;
import io.zoolander.wire.NameRoutes;
import io.zoolander.wire.ReadKind;
import io.zoolander.wire.Znodes;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.apache.zookeeper.data.Stat;
import org.apache.zookeeper.server.DataNode;
import org.apache.zookeeper.server.DataTree;

/**
 * Reads one znode, together with the duplicate's bookkeeping state, or the stats of several,
 * straight from the leader's in-memory {@link DataTree}: no ZooKeeper session, no request pipeline,
 * no queueing behind writes.
 *
 * <h2>Why the answer is consistent</h2>
 *
 * ZooKeeper's own reads never overlap the application of a write: its {@code CommitProcessor} waits
 * until no read is in flight before it hands a committed transaction to the {@code
 * FinalRequestProcessor}, which applies it to the tree. A read from another thread has no such
 * exclusion, so it could see half of a {@code multi} (the plugin applies a write's ops and its new
 * {@code appliedSeq} in one multi, op by op). This reader validates instead of excluding, like a
 * sequence lock:
 *
 * <ol>
 *   <li>it reads {@code z = DataTree.lastProcessedZxid}, which ZooKeeper raises only after a whole
 *       transaction, multi included, is applied; every transaction up to {@code z} is complete;
 *   <li>it reads the state znode and the target znode (each under the node's own lock, as {@code
 *       DataTree.getData} does);
 *   <li>it accepts the result only if nothing it saw was changed by a transaction after {@code z}:
 *       the state's and the target's {@code mzxid}, the target's {@code pzxid} for its children,
 *       and for a missing target the {@code pzxid} of its nearest existing ancestor (a create or a
 *       delete raises the parent's {@code pzxid} before it changes the node map).
 * </ol>
 *
 * The partition's route record ({@link NameRoutes#PATH}) is read and validated the same way, so a
 * read of a name moved away is refused by the record as of the very transaction it read.
 *
 * <p>An accepted result is therefore exactly the state after transaction {@code z} for all three:
 * the data returned reflects the {@code appliedSeq} returned, never a later write, never part of
 * one. Every applied write changes the state znode, so the state's {@code appliedSeq} is the seq of
 * the last write the data can reflect. A transaction applied concurrently makes a validation fail;
 * the reader then tries again, a bounded number of times ({@link #read}).
 *
 * <p>The tree holds only committed transactions (the leader applies a proposal to it when the
 * quorum commits it), and a write's reply to the plugin is sent after the tree has it, so a read
 * issued after the plugin saw {@code appliedSeq} reach {@code minSeq} returns at least that.
 *
 * <p>Thread-safe: any thread may read, concurrently with the leader applying writes.
 */
public final class TreeReader {

  /** Attempts before {@link #read} gives up; a failed validation means a commit raced the read. */
  static final int MAX_ATTEMPTS = 1_000;

  private final Supplier<DataTree> tree;
  private final String statePath;
  private final String routesPath;
  private final LongAdder racedAttempts = new LongAdder();

  /**
   * @param tree the leader's current tree (a supplier: ZooKeeper replaces the tree on a snapshot
   *     load)
   * @param znodes where the bookkeeping state lives
   */
  public TreeReader(Supplier<DataTree> tree, Znodes znodes) {
    this.tree = Objects.requireNonNull(tree, "tree");
    this.statePath = Objects.requireNonNull(znodes, "znodes").state();
    this.routesPath = znodes.toZnode(NameRoutes.PATH);
  }

  /**
   * One consistent read of a znode.
   *
   * @param exists whether the znode exists (false: {@code data}, {@code version} and {@code
   *     children} are empty)
   * @param data its data ({@link ReadKind#GET_DATA} only; never modified by ZooKeeper: a setData
   *     replaces the array)
   * @param version its data version
   * @param children its child names, sorted ({@link ReadKind#GET_CHILDREN} only)
   * @param state the duplicate's bookkeeping state the answer reflects
   * @param zxid the last transaction the answer reflects
   * @param routes the partition's route record ({@link NameRoutes#PATH}) as of the same
   *     transaction, null if it does not exist
   */
  @SuppressWarnings("ArrayRecordComponent") // ZooKeeper's own array, passed on without a copy
  public record Result(
      boolean exists,
      byte[] data,
      int version,
      List<String> children,
      BookkeepingState state,
      long zxid,
      byte[] routes) {}

  /**
   * Reads {@code znode}, trying again while commits race it.
   *
   * @return the result, or empty if {@link #MAX_ATTEMPTS} attempts all raced a commit or the state
   *     znode does not exist yet; the caller then reads through the request pipeline
   */
  public Optional<Result> read(String znode, ReadKind kind) {
    Objects.requireNonNull(znode, "znode");
    Objects.requireNonNull(kind, "kind");
    if (tree.get().getNode(statePath) == null) {
      return Optional.empty(); // not set up yet: the state znode is never deleted once created
    }
    return untilConsistent(() -> tryOnce(tree.get(), znode, kind));
  }

  /**
   * The stats of {@code znodes} (as {@code exists} gives them), all as of one transaction,
   * validated as {@link #read} is: each stat's {@code mzxid} and {@code pzxid} (so its version and
   * its child count's version), and for a missing znode its nearest existing ancestor's {@code
   * pzxid}, at most that transaction. Tries again while commits race it.
   *
   * @return each znode's stat, null if it does not exist; empty if {@link #MAX_ATTEMPTS} attempts
   *     all raced a commit (the caller then reads through the request pipeline)
   */
  public Optional<Map<String, Stat>> stats(Collection<String> znodes) {
    Objects.requireNonNull(znodes, "znodes");
    return untilConsistent(() -> tryStats(tree.get(), znodes));
  }

  /**
   * Runs {@code attempt} until it gives an answer (null: a commit raced it), at most {@link
   * #MAX_ATTEMPTS} times.
   */
  private <T> Optional<T> untilConsistent(Supplier<T> attempt) {
    for (int i = 1; i <= MAX_ATTEMPTS; i++) {
      T answer = attempt.get();
      if (answer != null) {
        return Optional.of(answer);
      }
      racedAttempts.increment();
      if (i % 16 == 0) {
        LockSupport.parkNanos(1_000); // let the committing thread finish on a busy host
      } else {
        Thread.onSpinWait();
      }
    }
    return Optional.empty();
  }

  /**
   * One attempt of {@link #stats}: null if a transaction after the one it started from raced it.
   */
  private static Map<String, Stat> tryStats(DataTree dataTree, Collection<String> znodes) {
    long z = dataTree.lastProcessedZxid;
    Map<String, Stat> stats = new HashMap<>();
    for (String znode : znodes) {
      DataNode node = dataTree.getNode(znode);
      if (node == null) {
        if (ancestorPzxid(dataTree, znode) > z) {
          return null;
        }
        stats.put(znode, null);
        continue;
      }
      Stat stat = new Stat();
      synchronized (node) {
        node.copyStat(stat);
      }
      if (stat.getMzxid() > z || stat.getPzxid() > z) {
        return null;
      }
      stats.put(znode, stat);
    }
    return stats;
  }

  /** Attempts so far that a concurrent commit invalidated (and that were tried again). */
  public long racedAttempts() {
    return racedAttempts.sum();
  }

  /** One attempt: the result, or null if a transaction after the one it started from raced it. */
  private Result tryOnce(DataTree dataTree, String znode, ReadKind kind) {
    long z = dataTree.lastProcessedZxid;
    DataNode stateNode = dataTree.getNode(statePath);
    if (stateNode == null) {
      return null;
    }
    byte[] stateBytes;
    long stateMzxid;
    synchronized (stateNode) {
      stateBytes = stateNode.getData();
      stateMzxid = stateNode.stat.getMzxid();
    }
    if (stateMzxid > z) {
      return null;
    }
    byte[] routes;
    DataNode routesNode = dataTree.getNode(routesPath);
    if (routesNode == null) {
      if (ancestorPzxid(dataTree, routesPath) > z) {
        return null;
      }
      routes = null;
    } else {
      synchronized (routesNode) {
        routes = routesNode.getData();
        if (routesNode.stat.getMzxid() > z) {
          return null;
        }
      }
    }
    DataNode node = dataTree.getNode(znode);
    if (node == null) {
      return ancestorPzxid(dataTree, znode) > z
          ? null
          : new Result(false, null, -1, List.of(), BookkeepingState.decode(stateBytes), z, routes);
    }
    Stat stat = new Stat();
    byte[] data = null;
    List<String> children = List.of();
    synchronized (node) {
      node.copyStat(stat);
      if (kind == ReadKind.GET_DATA) {
        data = node.getData();
      } else if (kind == ReadKind.GET_CHILDREN) {
        children = new ArrayList<>(node.getChildren());
      }
    }
    if (stat.getMzxid() > z || (kind == ReadKind.GET_CHILDREN && stat.getPzxid() > z)) {
      return null;
    }
    if (kind == ReadKind.GET_CHILDREN) {
      children.sort(null);
    }
    return new Result(
        true,
        data,
        stat.getVersion(),
        List.copyOf(children),
        BookkeepingState.decode(stateBytes),
        z,
        routes);
  }

  /** The child-list zxid of the nearest ancestor of {@code znode} that exists. */
  private static long ancestorPzxid(DataTree dataTree, String znode) {
    String path = znode;
    while (true) {
      int slash = path.lastIndexOf('/');
      path = slash <= 0 ? "/" : path.substring(0, slash);
      DataNode ancestor = dataTree.getNode(path);
      if (ancestor != null) {
        synchronized (ancestor) {
          return ancestor.stat.getPzxid();
        }
      }
      if (path.equals("/")) {
        return Long.MAX_VALUE; // no root: nothing is consistent, report a race
      }
    }
  }
}
