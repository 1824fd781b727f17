package io.zoolander.server.internal.leader;

import io.zoolander.wire.Znodes;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.server.ZooKeeperServer;
import org.apache.zookeeper.server.ZoolanderLocalConnection;

/** The leader's {@link ZooKeeperServer} as a {@link LocalServer}. */
final class LeaderLocalServer implements LocalServer {
  private final ZooKeeperServer server;
  private final WriteObservers writeObservers;

  LeaderLocalServer(ZooKeeperServer server, WriteObservers writeObservers) {
    this.server = Objects.requireNonNull(server, "server");
    this.writeObservers = Objects.requireNonNull(writeObservers, "writeObservers");
  }

  @Override
  public AutoCloseable observeWrites(String pathPrefix, Consumer<AppliedWrite> onWrite) {
    return writeObservers.add(
        Objects.requireNonNull(pathPrefix, "pathPrefix"),
        Objects.requireNonNull(onWrite, "onWrite"));
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
