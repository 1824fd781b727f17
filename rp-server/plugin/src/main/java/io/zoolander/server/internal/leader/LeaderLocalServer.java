package io.zoolander.server.internal.leader;

import io.zoolander.wire.Znodes;
import java.util.List;
import java.util.Objects;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.server.ZooKeeperServer;
import org.apache.zookeeper.server.ZoolanderLocalConnection;

/** The leader's {@link ZooKeeperServer} as a {@link LocalServer}. */
final class LeaderLocalServer implements LocalServer {
  private final ZooKeeperServer server;

  LeaderLocalServer(ZooKeeperServer server) {
    this.server = Objects.requireNonNull(server, "server");
  }

  @Override
  public TreeReader treeReader(Znodes znodes) {
    return new TreeReader(() -> server.getZKDatabase().getDataTree(), znodes);
  }

  @Override
  public ZoolanderLocalConnection connect(
      long sessionId, int sessionTimeoutMs, List<Id> identities) {
    return new ZoolanderLocalConnection(server, sessionId, sessionTimeoutMs, identities);
  }
}
