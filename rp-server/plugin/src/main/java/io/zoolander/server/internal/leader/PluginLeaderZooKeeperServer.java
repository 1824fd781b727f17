package io.zoolander.server.internal.leader;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.server.DataTree.ProcessTxnResult;
import org.apache.zookeeper.server.Request;
import org.apache.zookeeper.server.ZKDatabase;
import org.apache.zookeeper.server.persistence.FileTxnSnapLog;
import org.apache.zookeeper.server.quorum.LeaderZooKeeperServer;
import org.apache.zookeeper.server.quorum.QuorumPeer;
import org.apache.zookeeper.server.util.ZxidUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leader's ZooKeeper server, with the plugin's lifecycle tied to its own.
 *
 * <p>Hooks (ZooKeeper 3.9.5):
 *
 * <ul>
 *   <li>{@link #startup()}: {@code Leader.lead()} calls it (through {@code Leader.startZkServer()})
 *       once a quorum of followers has acknowledged the new leader; after {@code super.startup()}
 *       the request pipeline is running and the zxid carries the new epoch. The plugin is started
 *       asynchronously: right after {@code startup()} returns, {@code Leader.lead()} attaches this
 *       server to the client connection factory, so a plugin that connects to its own server must
 *       not be waited for here.
 *   <li>{@link #shutdownComponents()}: {@code ZooKeeperServer.shutdown(boolean)} calls it when a
 *       running (or failed) server shuts down, which {@code Leader.shutdown(String)} does on every
 *       way out of leadership: lost quorum, a failed leader, {@code QuorumPeer.shutdown()}. The
 *       plugin is stopped first, bounded in time, then ZooKeeper's own components.
 *   <li>{@link #submitRequest(Request)}: every request of a client connected to this server enters
 *       here (from ZooKeeper's connection threads); the plugin may have it held for a while first
 *       ({@link ClientRequestDelays}, the anomaly injector's path for plain ZooKeeper clients).
 *       Requests forwarded by followers enter through {@code submitLearnerRequest} and are never
 *       held.
 *   <li>{@link #processTxn(Request)}: {@code FinalRequestProcessor} applies every committed
 *       transaction through it, on the commit processor's threads; the plugin observes the writes
 *       under its data root there ({@link LocalServer#observeWrites}).
 *   <li>{@link #takeSnapshot(boolean, boolean)}: ZooKeeper's {@code SyncRequestProcessor} rolls the
 *       log and calls {@code takeSnapshot()} on a "Snapshot Thread" of its own every {@code
 *       snapCount} transactions or so (and {@code loadData} at start); the plugin hears when it
 *       starts and ends ({@link LeaderPlugin#backgroundWork}), to announce planned slowness to its
 *       clients.
 * </ul>
 */
final class PluginLeaderZooKeeperServer extends LeaderZooKeeperServer {

  private static final Logger LOG = LoggerFactory.getLogger(PluginLeaderZooKeeperServer.class);

  private final PluginSettings settings;
  private final LeaderPluginHost pluginHost;
  private final ScheduledThreadPoolExecutor delayTimer;
  private final ClientRequestDelays delays;
  private final WriteObservers writeObservers = new WriteObservers();

  PluginLeaderZooKeeperServer(
      FileTxnSnapLog logFactory,
      QuorumPeer self,
      ZKDatabase zkDb,
      PluginSettings settings,
      LeaderPluginHost pluginHost)
      throws IOException {
    super(logFactory, self, zkDb);
    this.settings = settings;
    this.pluginHost = pluginHost;
    // One thread, started on the first held request only (core threads start on demand).
    this.delayTimer =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread t = new Thread(r, "zoolander-request-delays-" + self.getMyId());
              t.setDaemon(true);
              return t;
            });
    this.delays =
        new ClientRequestDelays(
            pluginHost::clientRequestDelayMs,
            super::submitRequest,
            (task, delayNanos) -> delayTimer.schedule(task, delayNanos, TimeUnit.NANOSECONDS),
            System::nanoTime);
  }

  @Override
  public void submitRequest(Request si) {
    delays.submit(si);
  }

  @Override
  public ProcessTxnResult processTxn(Request request) {
    ProcessTxnResult rc = super.processTxn(request);
    writeObservers.applied(request, rc);
    return rc;
  }

  @Override
  public File takeSnapshot(boolean syncSnap, boolean isSevere) throws IOException {
    pluginHost.backgroundWork("snapshot", true);
    try {
      return super.takeSnapshot(syncSnap, isSevere);
    } finally {
      pluginHost.backgroundWork("snapshot", false);
    }
  }

  @Override
  public synchronized void startup() {
    super.startup();
    try {
      Path dataDir =
          settings.dataDir() != null
              ? settings.dataDir()
              : getTxnLogFactory().getSnapDir().toPath().getParent();
      pluginHost.leadershipStarted(
          new LeaderTermContext(
              getServerId(),
              ZxidUtils.getEpochFromZxid(getZxid()),
              self.getClientAddress(),
              dataDir,
              settings.properties(),
              new LeaderLocalServer(this, writeObservers)));
    } catch (RuntimeException e) {
      LOG.error("Could not start the leader plugin; ZooKeeper keeps serving without it", e);
    }
  }

  @Override
  protected synchronized void shutdownComponents() {
    try {
      pluginHost.leadershipEnded("server " + getServerId() + " stopped leading");
    } catch (RuntimeException e) {
      LOG.warn("Could not stop the leader plugin", e);
    }
    delayTimer.shutdownNow();
    delays.releaseAll();
    super.shutdownComponents();
  }
}
