package io.zoolander.server.internal.leader;

import io.zoolander.server.LeaderContext;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Map;

/** The immutable {@link LeaderContext} of one leadership term, with the leader's server. */
record LeaderTermContext(
    long serverId,
    long epoch,
    InetSocketAddress clientAddress,
    Path dataDir,
    Map<String, String> properties,
    LocalServer localServer)
    implements LocalServerContext {

  LeaderTermContext {
    properties = Map.copyOf(properties);
  }

  @Override
  public String localConnectString() {
    if (clientAddress == null) {
      return null;
    }
    String host =
        clientAddress.getAddress() == null || clientAddress.getAddress().isAnyLocalAddress()
            ? "127.0.0.1"
            : clientAddress.getAddress().getHostAddress();
    if (host.indexOf(':') >= 0) {
      host = '[' + host + ']';
    }
    return host + ':' + clientAddress.getPort();
  }
}
