package io.zoolander.server;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * What a {@link LeaderPlugin} knows about the server it runs in and the leadership term it serves.
 * Immutable; one instance per term.
 */
public interface LeaderContext {

  /**
   * @return this server's id ({@code myid}, the {@code N} of its {@code server.N} line)
   */
  long serverId();

  /**
   * @return the epoch of this leadership term (the high 32 bits of the zxids the leader issues); it
   *     increases with every new leader of the ensemble, so it can fence an older leader
   */
  long epoch();

  /**
   * @return the address this server's (plain) client port is bound to, possibly a wildcard address;
   *     {@code null} if the server has only a secure client port
   */
  InetSocketAddress clientAddress();

  /**
   * @return a ZooKeeper connect string ({@code host:port}) that reaches this very server, the
   *     wildcard address replaced by the loopback address; {@code null} if there is no plain client
   *     port
   */
  String localConnectString();

  /**
   * @return this server's configured data directory ({@code dataDir} in {@code zoo.cfg})
   */
  Path dataDir();

  /**
   * @return the {@code zoo.cfg} entries whose key starts with {@value
   *     ZoolanderPeerMain#PROPERTY_PREFIX}, keys unchanged (prefix included), unmodifiable
   */
  Map<String, String> properties();

  /**
   * @param key full key, prefix included (for example {@code zoolander.repeater.address})
   * @return the value of that {@code zoo.cfg} entry, if present
   */
  default Optional<String> property(String key) {
    return Optional.ofNullable(properties().get(key));
  }
}
