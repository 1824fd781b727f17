/**
 * The testing artifact of {@code rp-server}: whole Zoolander deployments on 127.0.0.1 for tests and
 * demos, in the spirit of Curator's {@code TestingCluster}.
 *
 * <ul>
 *   <li>{@link io.zoolander.server.testing.EmbeddedCluster}: N duplicates and a repeater, with
 *       clients, tree digests and fault injection (kill and restart servers, whole duplicates or
 *       the repeater; the anomaly injector);
 *   <li>{@link io.zoolander.server.testing.ZoolanderClusterExtension}: a JUnit 5 extension that
 *       runs an embedded cluster for a test class and injects connected clients into test methods;
 *   <li>{@link io.zoolander.server.testing.ZooKeeperEnsemble}: one real ZooKeeper ensemble running
 *       {@link io.zoolander.server.ZoolanderPeerMain} in child JVMs or in this JVM ({@link
 *       io.zoolander.server.testing.ServerMode}), the building block of the above;
 *   <li>{@link io.zoolander.server.testing.TreeDigest}: a duplicate's data as one comparable hash.
 * </ul>
 */
package io.zoolander.server.testing;
