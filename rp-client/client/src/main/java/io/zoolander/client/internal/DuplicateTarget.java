package io.zoolander.client.internal;

import java.net.InetSocketAddress;

/**
 * Where a client finds one duplicate's plugin: through discovery in the duplicate's ensemble, or at
 * a fixed address. Internal.
 *
 * @param connectString the ensemble's ZooKeeper connect string, or null for a fixed endpoint
 * @param endpoint the fixed plugin endpoint, or null for discovery
 */
public record DuplicateTarget(String connectString, InetSocketAddress endpoint) {
  public static DuplicateTarget discovered(String connectString) {
    return new DuplicateTarget(connectString, null);
  }

  public static DuplicateTarget fixed(InetSocketAddress endpoint) {
    return new DuplicateTarget(null, endpoint);
  }
}
