/**
 * The testing artifact: real ZooKeeper ensembles running {@link io.zoolander.server.ZoolanderPeerMain}
 * in child JVMs on 127.0.0.1, for tests and for the embedded cluster, in the spirit of Curator's
 * {@code TestingCluster}. See {@link io.zoolander.server.testing.ZooKeeperEnsemble}.
 */
package io.zoolander.server.testing;
