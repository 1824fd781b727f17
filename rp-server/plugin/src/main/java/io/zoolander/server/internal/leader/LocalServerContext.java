package io.zoolander.server.internal.leader;

import io.zoolander.server.LeaderContext;

/**
 * The context of a plugin hosted by a real leader: with the server itself, for in-process access.
 * Zoolander's own plugin looks for it; the public {@link LeaderContext} does not expose ZooKeeper's
 * internals.
 */
public interface LocalServerContext extends LeaderContext {

  /** The leader's ZooKeeper server, in-process. */
  LocalServer localServer();
}
