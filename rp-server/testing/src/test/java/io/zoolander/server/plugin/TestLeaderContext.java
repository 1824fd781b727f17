package io.zoolander.server.plugin;

import io.zoolander.server.LeaderContext;
import io.zoolander.server.testing.ZooKeeperEnsemble;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Map;

/** The context of a plugin started by a test in its own JVM, against one server of an ensemble. */
record TestLeaderContext(
    long serverId,
    long epoch,
    InetSocketAddress clientAddress,
    String localConnectString,
    Path dataDir,
    Map<String, String> properties)
    implements LeaderContext {

  static TestLeaderContext of(
      ZooKeeperEnsemble ensemble, int serverId, Map<String, String> properties) {
    return new TestLeaderContext(
        serverId,
        1,
        ensemble.clientAddress(serverId),
        ensemble.connectString(serverId),
        ensemble.dataDir(serverId),
        Map.copyOf(properties));
  }
}
