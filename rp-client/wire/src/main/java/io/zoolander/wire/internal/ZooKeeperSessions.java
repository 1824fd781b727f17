package io.zoolander.wire.internal;

import java.io.IOException;
import org.apache.zookeeper.ClientCnxnSocketNetty;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.client.ZKClientConfig;

/**
 * Opens the ZooKeeper sessions Zoolander keeps for itself (record watchers, a repeater's sessions
 * to the duplicates, the testing artifact's digests) on ZooKeeper's Netty client socket. Its close
 * ends with the connection: the default NIO socket sleeps 100 ms in every close, which a client
 * watching three records per duplicate paid at every close (about 3 ms instead, measured against an
 * in-process server). Every other client setting comes from the system properties, as for any
 * ZooKeeper client; the socket's event loop thread is a daemon. Internal.
 */
public final class ZooKeeperSessions {
  private ZooKeeperSessions() {}

  /** A session to {@code connectString}, as {@code new ZooKeeper(...)} opens it. */
  public static ZooKeeper open(String connectString, int sessionTimeoutMs, Watcher watcher)
      throws IOException {
    ZKClientConfig config = new ZKClientConfig();
    config.setProperty(
        ZKClientConfig.ZOOKEEPER_CLIENT_CNXN_SOCKET, ClientCnxnSocketNetty.class.getName());
    return new ZooKeeper(connectString, sessionTimeoutMs, watcher, config);
  }
}
