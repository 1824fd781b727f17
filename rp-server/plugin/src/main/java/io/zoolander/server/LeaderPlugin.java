package io.zoolander.server;

/**
 * Server-side extension that runs inside a ZooKeeper server JVM and is active only while that
 * server leads its ensemble (its duplicate).
 *
 * <p>A new instance is obtained from the {@link LeaderPluginFactory} for every leadership term:
 * when the server becomes leader and its ZooKeeper server is up, {@link #start(LeaderContext)} is
 * called; when the server stops leading (it loses the election or its quorum, or it shuts down),
 * {@link #stop()} is called. The instance is not reused afterwards.
 *
 * <p>Threading and failure contract:
 *
 * <ul>
 *   <li>{@code start} runs on a dedicated thread, never on a ZooKeeper thread, so it may block (for
 *       example to connect a ZooKeeper client to its own server: the server starts accepting client
 *       requests only shortly after the plugin is started, so such a connection must simply wait).
 *       It should return once the plugin is running.
 *   <li>If leadership ends while {@code start} is still running, that thread is interrupted and
 *       {@code stop} follows once {@code start} has returned.
 *   <li>An exception thrown by {@code start} is logged; ZooKeeper keeps serving without the plugin
 *       for the rest of the term, and {@code stop} is still called once so a partially started
 *       plugin can release what it holds.
 *   <li>{@code stop} is called at most once per instance. It should be quick: the server waits for
 *       it only for a bounded time ({@code zoolander.plugin.stopTimeoutMs}) before it goes back to
 *       leader election, then abandons it.
 * </ul>
 *
 * <p>Note that by the time {@code stop} runs because leadership ended, the server has usually
 * already closed its client connections: a plugin must not count on its own ensemble to clean up
 * (ephemeral znodes of its sessions expire on their own).
 */
public interface LeaderPlugin {

  /**
   * Starts the plugin for one leadership term.
   *
   * @param context this server and this leadership term
   * @throws Exception if the plugin cannot start; it is logged and ZooKeeper keeps serving
   */
  void start(LeaderContext context) throws Exception;

  /** Stops the plugin and releases everything it holds. Called at most once. */
  void stop();

  /**
   * How long the leader's ZooKeeper server holds back a read or write request of a plain ZooKeeper
   * client connected to it before it processes the request; 0 processes it at once (the default).
   * The server keeps each session's requests in order, as ZooKeeper promises: requests behind a
   * held one wait for it.
   *
   * <p>Called for every data request (reads such as {@code getData}, {@code exists}, {@code
   * getChildren}; writes such as {@code create}, {@code setData}, {@code delete}, {@code multi})
   * that a client sends to this very server, on ZooKeeper's connection threads, while the plugin
   * runs: it must be quick and must not block. Requests that followers forward and session, ping
   * and authentication requests are never held. An exception counts as 0. Zoolander's plugin uses
   * it so that its anomaly injector slows plain ZooKeeper clients of a duplicate exactly as it
   * slows Zoolander's own accesses.
   *
   * @param sessionId the client's session
   * @param xid the request's id within its session
   * @param write whether the request changes data
   * @return the delay in milliseconds, 0 for none
   */
  default long clientRequestDelayMs(long sessionId, int xid, boolean write) {
    return 0;
  }

  /**
   * The leader's ZooKeeper server starts ({@code started == true}) or has finished background work
   * that slows it down: a snapshot of its data tree, which ZooKeeper takes on its own thread after
   * rolling its transaction log every {@code snapCount} transactions or so. Zoolander's plugin
   * announces it to its clients (planned slowness), which read from other duplicates meanwhile.
   * Called on the thread doing the work, while the plugin runs; must be quick and must not block.
   * An exception is logged and ignored. Default: nothing.
   *
   * @param what what the work is, for logs (e.g. "snapshot")
   * @param started true when the work starts, false when it ends (failed or not)
   */
  default void backgroundWork(String what, boolean started) {}
}
