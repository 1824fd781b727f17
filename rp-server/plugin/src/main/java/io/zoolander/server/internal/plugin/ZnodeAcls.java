package io.zoolander.server.internal.plugin;

import io.zoolander.wire.Znodes;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Puts the plugin's ACL on Zoolander's znodes at start-up, so that only the plugin's ZooKeeper
 * identity can write them: the base path (nobody else can create or delete the endpoint, state,
 * clients or data root), the state znode, the clients znode and the data root with everything under
 * them.
 *
 * <p>Bootstrap: the first plugin that starts with an identity creates what is missing with the ACL,
 * and tightens what an earlier deployment without ACLs left open (setACL needs the ADMIN
 * permission, which the open ACL grants to anyone). A subtree (the data root, the clients) is
 * walked only when its top znode's ACL differs, which happens once, at that migration: afterwards
 * every znode the plugin creates carries the ACL already. A znode whose ACL this identity may not
 * change (another identity's, or a wrong password) fails start-up with a message naming it.
 */
final class ZnodeAcls {
  private static final Logger LOG = LoggerFactory.getLogger(ZnodeAcls.class);

  private ZnodeAcls() {}

  /**
   * @return how many znodes had their ACL changed
   * @throws IllegalStateException if this identity may not change a znode's ACL
   */
  static int ensure(ZooKeeper zk, Znodes znodes, List<ACL> acl)
      throws KeeperException, InterruptedException {
    int changed = 0;
    changed += ensureOne(zk, znodes.basePath(), acl);
    changed += ensureOne(zk, znodes.state(), acl);
    changed += ensureTree(zk, znodes.clients(), acl);
    changed += ensureTree(zk, znodes.dataRoot(), acl);
    if (changed > 0) {
      LOG.info(
          "ZooKeeper ACL set on {} znodes under {} (writes by the plugin's identity only)",
          changed,
          znodes.basePath());
    }
    return changed;
  }

  private static int ensureTree(ZooKeeper zk, String top, List<ACL> acl)
      throws KeeperException, InterruptedException {
    if (same(zk.getACL(top, new Stat()), acl)) {
      return 0;
    }
    // The top first: from then on nobody else can add children while the walk goes on.
    int changed = ensureOne(zk, top, acl);
    Deque<String> pending = new ArrayDeque<>(List.of(top));
    while (!pending.isEmpty()) {
      String parent = pending.pop();
      List<String> children;
      try {
        children = zk.getChildren(parent, false);
      } catch (KeeperException.NoNodeException e) {
        continue;
      }
      for (String child : children) {
        String path = parent.equals("/") ? "/" + child : parent + "/" + child;
        try {
          changed += ensureOne(zk, path, acl);
          pending.push(path);
        } catch (KeeperException.NoNodeException e) {
          // deleted meanwhile
        }
      }
    }
    return changed;
  }

  private static int ensureOne(ZooKeeper zk, String path, List<ACL> acl)
      throws KeeperException, InterruptedException {
    Stat stat = new Stat();
    List<ACL> current = zk.getACL(path, stat);
    if (same(current, acl)) {
      return 0;
    }
    try {
      zk.setACL(path, acl, -1);
      return 1;
    } catch (KeeperException.NoAuthException e) {
      throw new IllegalStateException(
          "the plugin's ZooKeeper identity may not change the ACL of "
              + path
              + " ("
              + current
              + "): it belongs to another identity, or zoolander.zookeeper.passwordFile holds the"
              + " wrong password",
          e);
    }
  }

  private static boolean same(List<ACL> a, List<ACL> b) {
    return a.size() == b.size() && new HashSet<>(a).equals(new HashSet<>(b));
  }
}
