package io.zoolander.server.testing;

/**
 * Where the ZooKeeper servers of a {@link ZooKeeperEnsemble} (and so of an {@link EmbeddedCluster})
 * run. Both modes run the same launcher, {@link io.zoolander.server.ZoolanderPeerMain}, from the
 * same generated {@code zoo.cfg}, with the plugin on each duplicate's leader; they differ in
 * isolation, start time and what a kill is.
 */
public enum ServerMode {

  /**
   * Each server is a child JVM (the default): fully isolated, {@link ZooKeeperEnsemble#kill(int)}
   * is a real {@code kill -9}, each server writes its own {@code server.log}. Slower to start (a
   * JVM per server) and heavier on memory.
   */
  CHILD_JVM,

  /**
   * Each server runs in this JVM, as Curator's {@code TestingCluster} runs its {@code QuorumPeer}s:
   * faster to start, debuggable, no extra processes. The price:
   *
   * <ul>
   *   <li>{@link ZooKeeperEnsemble#kill(int)} cannot be {@code kill -9}: it closes the server's
   *       client port and every client connection first (so no client, the plugin's own ZooKeeper
   *       session included, gets a clean goodbye), then shuts the {@code QuorumPeer} down (quorum
   *       and election sockets closed, the plugin stopped within its stop timeout), and waits until
   *       its threads are gone (ZooKeeper threads a stopped server leaves parked are interrupted,
   *       as they would die with a JVM of their own). Unlike {@code kill -9}, the plugin's {@code
   *       stop()} runs and unflushed log data is flushed; like it, the plugin's ephemeral endpoint
   *       znode is not deleted by a clean session close but lives until its session expires.
   *   <li>The servers share this JVM's heap, GC pauses and static state: ZooKeeper's metrics, its
   *       four-letter-word whitelist (read once per JVM; {@code srvr} is always on) and its JMX
   *       MBeans (names repeat across ensembles with the same server ids: the later registration is
   *       skipped with a warning). ZooKeeper's requests to exit the JVM on a fatal server error are
   *       logged instead ({@code ServiceUtils.LOG_ONLY}) once an in-process server has started in
   *       this JVM.
   *   <li>Servers log through this JVM's SLF4J binding; {@link ZooKeeperEnsemble#logFile(int)}
   *       holds only the ensemble's own lines (starts, stops, kills; a failed start's stack trace
   *       is in the exception) and {@link ZooKeeperEnsemble#pid(int)} is empty.
   *   <li>The AdminServer stays disabled, and JVM arguments and class path settings of the builder
   *       do not apply.
   * </ul>
   */
  IN_PROCESS
}
