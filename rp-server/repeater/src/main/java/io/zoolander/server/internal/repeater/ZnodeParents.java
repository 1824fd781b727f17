package io.zoolander.server.internal.repeater;

import java.util.List;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;

/**
 * Creates the parents of a znode the repeater writes under the base path, as the plugin does: those
 * above the base path open, the base path with Zoolander's ACL. Parents created meanwhile by
 * another writer (a plugin, another repeater) are fine.
 */
final class ZnodeParents {
  private ZnodeParents() {}

  /**
   * @param path the znode whose parents must exist (it is not created)
   * @param basePath Zoolander's base path, created with {@code baseAcl}
   */
  static void create(ZooKeeper zk, String path, String basePath, List<ACL> baseAcl)
      throws KeeperException, InterruptedException {
    for (int slash = path.indexOf('/', 1); slash > 0; slash = path.indexOf('/', slash + 1)) {
      String parent = path.substring(0, slash);
      try {
        zk.create(
            parent,
            new byte[0],
            parent.equals(basePath) ? baseAcl : ZooDefs.Ids.OPEN_ACL_UNSAFE,
            CreateMode.PERSISTENT);
      } catch (KeeperException.NodeExistsException e) {
        // there already
      }
    }
  }
}
