package io.zoolander.server.internal.leader;

import io.zoolander.wire.Znodes;
import java.util.List;
import java.util.function.Consumer;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.server.ZoolanderLocalConnection;

/**
 * The ZooKeeper server a plugin runs in, as the plugin may use it in-process: reads from its
 * in-memory tree and writes into its request pipeline, with no loopback connection. Only a plugin
 * hosted by a real leader has one ({@link LocalServerContext}); a plugin started against a remote
 * server uses its ZooKeeper session for everything.
 */
public interface LocalServer {

  /** A reader of the server's in-memory tree; see {@link TreeReader} for why it is consistent. */
  TreeReader treeReader(Znodes znodes);

  /**
   * A connection into the server's request pipeline, in the live session {@code sessionId}.
   *
   * @param identities the identities its requests' ACL checks see
   */
  ZoolanderLocalConnection connect(long sessionId, int sessionTimeoutMs, List<Id> identities);

  /**
   * Calls {@code onWrite} for every write op the server applies at or under {@code pathPrefix},
   * whoever sent it (a multi's ops one by one), until the returned handle is closed. It runs on
   * ZooKeeper's thread that applied the transaction: it must be quick and must not block.
   */
  AutoCloseable observeWrites(String pathPrefix, Consumer<AppliedWrite> onWrite);
}
