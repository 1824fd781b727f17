package io.zoolander.server.internal.plugin;

import java.util.List;
import java.util.function.Consumer;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;

/**
 * Where the applier's multis go: the leader's request pipeline in-process ({@link LocalMultis}) or
 * the plugin's own ZooKeeper session. Either way a multi returns once the quorum committed it and
 * the server applied it, and fails as {@code ZooKeeper.multi} does: a {@link KeeperException} with
 * the code of the first failed op and, when the server answered, every op's result ({@link
 * KeeperException#getResults()}). Called on the applier thread, one multi at a time.
 */
@FunctionalInterface
interface Multis {

  /** Applies {@code ops} atomically. */
  List<OpResult> multi(List<Op> ops) throws KeeperException, InterruptedException;

  /**
   * As {@link #multi(List)}, and hands a successful multi's results to {@code whenApplied} as soon
   * as they are known, before this returns: on ZooKeeper's thread that applied it for the
   * in-process path, so that the applier's REPLY need not wait for the applier thread to wake. Not
   * called for a multi that failed or timed out. {@code whenApplied} must be short, must not block,
   * and may touch only what is safe from another thread; what it does happens-before this returns.
   */
  default List<OpResult> multi(List<Op> ops, Consumer<List<OpResult>> whenApplied)
      throws KeeperException, InterruptedException {
    List<OpResult> results = multi(ops);
    whenApplied.accept(results);
    return results;
  }

  /** Multis through the plugin's session, as a ZooKeeper client sends them. */
  static Multis through(OwnSession session) {
    return ops -> session.zk().multi(ops);
  }
}
