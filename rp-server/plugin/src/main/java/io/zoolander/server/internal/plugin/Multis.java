package io.zoolander.server.internal.plugin;

import java.util.List;
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

  /** Multis through the plugin's session, as a ZooKeeper client sends them. */
  static Multis through(OwnSession session) {
    return ops -> session.zk().multi(ops);
  }
}
