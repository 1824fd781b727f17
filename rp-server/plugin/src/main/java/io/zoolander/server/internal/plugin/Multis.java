package io.zoolander.server.internal.plugin;

import java.util.List;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;

/**
 * Where the applier's multis go. Today the plugin's own ZooKeeper session; the seam for submitting
 * them into the leader's request pipeline in-process ({@code ZoolanderLocalConnection}), which is
 * built and tested but not used yet: with it, a duplicate diverged once under NetworkFaultIT's
 * network faults and the cause is not found (issue 17). Either way a multi returns once the quorum
 * committed it and the server applied it, and fails as {@code ZooKeeper.multi} does. Called on the
 * applier thread, one multi at a time.
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
