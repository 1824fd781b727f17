/**
 * Implementation of the leader plugin hook: the {@code QuorumPeer} and {@code
 * LeaderZooKeeperServer} subclasses that ZooKeeper 3.9.5 is extended through, and the host that
 * runs a {@link io.zoolander.server.LeaderPlugin} per leadership term. Not a public API: these
 * classes follow ZooKeeper's internals, which is why the ZooKeeper version is pinned.
 */
package io.zoolander.server.internal.leader;
