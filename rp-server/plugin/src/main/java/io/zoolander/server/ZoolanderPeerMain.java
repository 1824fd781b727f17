package io.zoolander.server;

import io.zoolander.server.internal.leader.LeaderPluginHost;
import io.zoolander.server.internal.leader.PluginSettings;
import io.zoolander.server.internal.leader.ZoolanderPeerConfig;
import io.zoolander.server.internal.leader.ZoolanderQuorumPeer;
import io.zoolander.server.settings.Setting;
import java.io.IOException;
import java.util.List;
import javax.security.sasl.SaslException;
import org.apache.zookeeper.audit.ZKAuditProvider;
import org.apache.zookeeper.server.DatadirCleanupManager;
import org.apache.zookeeper.server.ExitCode;
import org.apache.zookeeper.server.ZooKeeperServerMain;
import org.apache.zookeeper.server.admin.AdminServer.AdminServerException;
import org.apache.zookeeper.server.persistence.FileTxnSnapLog.DatadirException;
import org.apache.zookeeper.server.quorum.QuorumPeer;
import org.apache.zookeeper.server.quorum.QuorumPeerConfig;
import org.apache.zookeeper.server.quorum.QuorumPeerConfig.ConfigException;
import org.apache.zookeeper.server.quorum.QuorumPeerMain;
import org.apache.zookeeper.util.ServiceUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Launches a ZooKeeper server that runs a {@link LeaderPlugin} while it leads: a drop-in
 * replacement for ZooKeeper's {@link QuorumPeerMain}, started the same way with the same {@code
 * zoo.cfg}:
 *
 * <pre>java -cp ... io.zoolander.server.ZoolanderPeerMain /path/to/zoo.cfg</pre>
 *
 * <p>Zoolander's own settings are {@code zoo.cfg} entries with the {@value #PROPERTY_PREFIX}
 * prefix; every such entry is also handed to the plugin ({@link LeaderContext#properties()}):
 *
 * <ul>
 *   <li>{@value #PLUGIN_FACTORY_KEY}: class name of the {@link LeaderPluginFactory}. Without it the
 *       server runs as plain ZooKeeper and logs that no plugin is configured.
 *   <li>{@value #STOP_TIMEOUT_KEY}: how long, in milliseconds, the server waits for the plugin to
 *       stop when leadership ends (default 5000).
 * </ul>
 *
 * <p>The server checks these entries when it starts, however it is started ({@link #main}, {@link
 * #initializeAndRun}, {@link #runFromConfig}): a factory that cannot be created, an invalid stop
 * timeout, and, when the factory declares its plugin's settings ({@link
 * LeaderPluginFactory#settings()}, as Zoolander's own plugin does), any {@value #PROPERTY_PREFIX}
 * key that neither reads is a configuration error naming the key and the nearest known one.
 *
 * <p>The plugin lives in the leader's ZooKeeper server, which exists only on the quorum code path.
 * A one-server duplicate therefore runs as a one-server ensemble: {@code standaloneEnabled=false}
 * and a single {@code server.1=...} line. A configuration that names a plugin factory but would run
 * ZooKeeper standalone is rejected.
 *
 * <p>A plugin that talks to its own server through {@link LeaderContext#localConnectString()} needs
 * the leader to serve clients, which is ZooKeeper's default ({@code leaderServes=yes}).
 *
 * <p>ZooKeeper 3.9.5 is pinned: the hook subclasses its internal {@code QuorumPeer} and {@code
 * LeaderZooKeeperServer}.
 */
public class ZoolanderPeerMain extends QuorumPeerMain {

  /** Prefix of the {@code zoo.cfg} entries that belong to Zoolander and its plugin. */
  public static final String PROPERTY_PREFIX = PluginSettings.PREFIX;

  /** {@code zoo.cfg} key naming the {@link LeaderPluginFactory} class. */
  public static final String PLUGIN_FACTORY_KEY = PluginSettings.FACTORY_KEY;

  /** {@code zoo.cfg} key: bound, in milliseconds, on waiting for a plugin to stop. */
  public static final String STOP_TIMEOUT_KEY = PluginSettings.STOP_TIMEOUT_KEY;

  /**
   * The {@code zoo.cfg} entries the launcher itself reads ({@value #PLUGIN_FACTORY_KEY}, {@value
   * #STOP_TIMEOUT_KEY}), as descriptors. With those its plugin factory declares ({@link
   * LeaderPluginFactory#settings()}), they are every {@value #PROPERTY_PREFIX} key the server
   * accepts: another one is refused when the server starts.
   */
  public static List<Setting<?>> settings() {
    return PluginSettings.SETTINGS;
  }

  private static final Logger LOG = LoggerFactory.getLogger(ZoolanderPeerMain.class);
  private static final String USAGE = "Usage: ZoolanderPeerMain configfile";

  private volatile PluginSettings settings;
  private volatile LeaderPluginHost pluginHost;
  private Thread shutdownHook; // guarded by this

  /** Creates a launcher; configure it through {@code zoo.cfg}. */
  public ZoolanderPeerMain() {}

  /**
   * Runs a server from a {@code zoo.cfg}, exiting the JVM when it ends, exactly like {@link
   * QuorumPeerMain#main(String[])} (same exit codes).
   *
   * @param args the path of the {@code zoo.cfg}
   */
  public static void main(String[] args) {
    ZoolanderPeerMain main = new ZoolanderPeerMain();
    try {
      main.initializeAndRun(args);
    } catch (IllegalArgumentException e) {
      LOG.error("Invalid arguments, exiting abnormally", e);
      LOG.info(USAGE);
      System.err.println(USAGE);
      ZKAuditProvider.addServerStartFailureAuditLog();
      ServiceUtils.requestSystemExit(ExitCode.INVALID_INVOCATION.getValue());
    } catch (ConfigException e) {
      LOG.error("Invalid config, exiting abnormally", e);
      System.err.println("Invalid config, exiting abnormally: " + e.getMessage());
      ZKAuditProvider.addServerStartFailureAuditLog();
      ServiceUtils.requestSystemExit(ExitCode.INVALID_INVOCATION.getValue());
    } catch (DatadirException e) {
      LOG.error("Unable to access datadir, exiting abnormally", e);
      System.err.println("Unable to access datadir, exiting abnormally");
      ZKAuditProvider.addServerStartFailureAuditLog();
      ServiceUtils.requestSystemExit(ExitCode.UNABLE_TO_ACCESS_DATADIR.getValue());
    } catch (AdminServerException e) {
      LOG.error("Unable to start AdminServer, exiting abnormally", e);
      System.err.println("Unable to start AdminServer, exiting abnormally");
      ZKAuditProvider.addServerStartFailureAuditLog();
      ServiceUtils.requestSystemExit(ExitCode.ERROR_STARTING_ADMIN_SERVER.getValue());
    } catch (Exception e) {
      LOG.error("Unexpected exception, exiting abnormally", e);
      ZKAuditProvider.addServerStartFailureAuditLog();
      ServiceUtils.requestSystemExit(ExitCode.UNEXPECTED_ERROR.getValue());
    }
    LOG.info("Exiting normally");
    ServiceUtils.requestSystemExit(ExitCode.EXECUTION_FINISHED.getValue());
  }

  /**
   * As {@link QuorumPeerMain}, but parses with a configuration that keeps the {@value
   * #PROPERTY_PREFIX} entries, and refuses to run a plugin in standalone mode.
   */
  @Override
  protected void initializeAndRun(String[] args)
      throws ConfigException, IOException, AdminServerException {
    ZoolanderPeerConfig config = new ZoolanderPeerConfig();
    if (args.length == 1) {
      config.parse(args[0]);
    }
    PluginSettings parsed = PluginSettings.of(config);

    DatadirCleanupManager purgeMgr =
        new DatadirCleanupManager(
            config.getDataDir(),
            config.getDataLogDir(),
            config.getSnapRetainCount(),
            config.getPurgeInterval());
    purgeMgr.start();

    if (args.length == 1 && config.isDistributed()) {
      settings = parsed;
      runFromConfig(config);
    } else if (parsed.factory() != null) {
      throw new ConfigException(
          PLUGIN_FACTORY_KEY
              + " is set but the server would run standalone, where no"
              + " leader exists: set standaloneEnabled=false and list the server as server.<myid>=...");
    } else {
      LOG.warn(
          "Either no config or no quorum defined in config, running in standalone mode without a leader plugin");
      ZooKeeperServerMain.main(args);
    }
  }

  /**
   * Runs the server of a parsed configuration until it shuts down, as {@link
   * QuorumPeerMain#runFromConfig(QuorumPeerConfig)}. A plain {@link QuorumPeerConfig} works too:
   * its file is then read again for the {@value #PROPERTY_PREFIX} entries.
   *
   * @throws IOException also if the Zoolander entries are invalid
   */
  @Override
  public void runFromConfig(QuorumPeerConfig config) throws IOException, AdminServerException {
    PluginSettings current = settings;
    if (current == null) {
      try {
        current = PluginSettings.of(config);
      } catch (ConfigException e) {
        throw new IOException("Invalid Zoolander configuration: " + e.getMessage(), e);
      }
      settings = current;
    }
    LeaderPluginHost host = new LeaderPluginHost(current.factory(), current.stopTimeout());
    pluginHost = host;
    if (host.hasPlugin()) {
      LOG.info(
          "Leader plugin factory {}; the plugin runs while server {} leads",
          current.factory().getClass().getName(),
          config.getServerId());
    } else {
      LOG.info(
          "No {} configured: server {} runs as plain ZooKeeper, without a leader plugin",
          PLUGIN_FACTORY_KEY,
          config.getServerId());
    }
    installShutdownHook(host);
    super.runFromConfig(config);
  }

  /**
   * @return a {@link QuorumPeer} whose leader runs the plugin
   */
  @Override
  protected QuorumPeer getQuorumPeer() throws SaslException {
    PluginSettings current = settings;
    LeaderPluginHost host = pluginHost;
    if (current == null || host == null) {
      throw new IllegalStateException("getQuorumPeer() before runFromConfig()");
    }
    return new ZoolanderQuorumPeer(current, host);
  }

  /**
   * Shuts the server down, stopping its plugin (not a public API, as in {@link QuorumPeerMain}).
   */
  @Override
  public void close() {
    try {
      super.close();
    } finally {
      LeaderPluginHost host = pluginHost;
      if (host != null) {
        host.close("server closed");
      }
      removeShutdownHook();
    }
  }

  /**
   * On JVM shutdown (SIGTERM), ZooKeeper itself just stops; the plugin is stopped first, within its
   * stop timeout, so that it can release what it holds.
   */
  private synchronized void installShutdownHook(LeaderPluginHost host) {
    if (shutdownHook != null) {
      return;
    }
    shutdownHook = new Thread(() -> host.close("JVM shutdown"), "zoolander-plugin-shutdown");
    Runtime.getRuntime().addShutdownHook(shutdownHook);
  }

  private synchronized void removeShutdownHook() {
    if (shutdownHook == null) {
      return;
    }
    try {
      Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException e) {
      // JVM shutdown in progress: the hook runs anyway
    }
    shutdownHook = null;
  }
}
