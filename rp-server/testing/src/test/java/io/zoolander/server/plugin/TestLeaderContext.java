package io.zoolander.server.plugin;

import io.zoolander.server.LeaderContext;
import io.zoolander.server.testing.ZooKeeperEnsemble;
import io.zoolander.wire.Znodes;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.HashMap;
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

  /**
   * The context of a plugin started in this JVM against server 1 of {@code ensemble}, as duplicate
   * {@code duplicateId} on its own base path (beside the ensemble's own plugin), with {@code more}
   * settings.
   */
  static TestLeaderContext onOwnBasePath(
      ZooKeeperEnsemble ensemble, int duplicateId, Znodes znodes, Map<String, String> more) {
    Map<String, String> properties = new HashMap<>(more);
    properties.put(ZoolanderPluginConfig.DUPLICATE_ID_KEY, Integer.toString(duplicateId));
    properties.put(ZoolanderPluginConfig.BASE_PATH_KEY, znodes.basePath());
    return of(ensemble, 1, properties);
  }

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
