package io.zoolander.server.internal.plugin;

import io.micrometer.core.instrument.Metrics;
import io.zoolander.server.LeaderContext;
import io.zoolander.server.LeaderPlugin;
import io.zoolander.server.internal.jmx.RegisteredMBean;
import io.zoolander.server.internal.leader.LocalServerContext;
import io.zoolander.server.internal.security.ConnectionLimits;
import io.zoolander.server.jmx.PluginMXBean;
import io.zoolander.server.jmx.ZoolanderJmx;
import io.zoolander.server.plugin.AnomalySettings;
import io.zoolander.server.plugin.ZoolanderPluginConfig;
import io.zoolander.server.plugin.ZoolanderPluginView;
import io.zoolander.server.security.PluginSecurity;
import io.zoolander.wire.BookkeepingState;
import io.zoolander.wire.DuplicateState;
import io.zoolander.wire.PluginEndpoint;
import io.zoolander.wire.Znodes;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.management.InstanceAlreadyExistsException;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Zoolander plugin of one leadership term: see {@link
 * io.zoolander.server.plugin.ZoolanderPluginFactory} for what it does and {@code
 * docs/architecture.md} for the contract.
 *
 * <p>{@link #start} connects a ZooKeeper client to the own server, creates the base, data, state
 * and clients znodes if absent, reads the state, starts following the anomaly injector's znode
 * ({@link AnomalyInjector}), starts the {@link Applier} and the {@link PluginServer}, then
 * publishes the endpoint znode (deleting a stale one first). {@link #stop} closes the server, the
 * applier and the session (whose end deletes the ephemeral endpoint), each bounded in time.
 */
public final class ZoolanderPlugin implements LeaderPlugin, ZoolanderPluginView {

  private static final Logger LOG = LoggerFactory.getLogger(ZoolanderPlugin.class);

  /** Bound on each of the three shutdown steps. */
  static final int STOP_STEP_TIMEOUT_MS = 1_000;

  /** Pause between retries of a start-up step that met a transient ZooKeeper failure. */
  static final long START_RETRY_PAUSE_MS = 50;

  /** Attempts at replacing a stale endpoint znode that keeps coming back. */
  static final int PUBLISH_ATTEMPTS = 10;

  private volatile ZoolanderPluginConfig config;
  private volatile PluginSecurity security = PluginSecurity.NONE;
  private volatile OwnSession session;
  private volatile Applier applier;
  private volatile AnomalyInjector anomalies;
  private volatile PluginServer server;
  private volatile PluginEndpoint endpoint;
  private volatile boolean stopped;
  private volatile PluginMeters meters;
  private volatile RegisteredMBean mbean;
  private volatile Peers peers;
  private volatile PlannedSlowness slowness;

  /** A plugin for one leadership term, configured when it starts. */
  public ZoolanderPlugin() {}

  @Override
  public void start(LeaderContext context) throws Exception {
    ZoolanderPluginConfig cfg = ZoolanderPluginConfig.from(context.properties());
    ConnectionLimits limits = ZoolanderPluginConfig.connectionLimits(context.properties());
    config = cfg;
    PluginSecurity sec = PluginSecurity.from(context.properties());
    security = sec;
    String connectString = context.localConnectString();
    if (connectString == null) {
      throw new IllegalStateException(
          "the Zoolander plugin needs a plain clientPort on its server");
    }
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(cfg.connectTimeoutMs());
    OwnSession own =
        new OwnSession(
            connectString, cfg.sessionTimeoutMs(), this::onSessionExpired, sec.zooKeeperAuth());
    session = own;
    ZooKeeper zk = own.renew(cfg.connectTimeoutMs());
    Znodes znodes = cfg.znodes();
    retrying(deadline, () -> createZnodes(zk, znodes, sec.acl()));
    if (sec.protectsZnodes()) {
      retrying(deadline, () -> ZnodeAcls.ensure(zk, znodes, sec.acl()));
    }
    Stat stat = new Stat();
    BookkeepingState state =
        BookkeepingState.decode(retrying(deadline, () -> zk.getData(znodes.state(), false, stat)));

    AnomalyInjector injector = new AnomalyInjector(cfg.duplicateId(), znodes.anomaly());
    anomalies = injector;
    injector.watch(zk);
    PlannedSlowness announcer =
        new PlannedSlowness(
            cfg.duplicateId(),
            PlannedSlowness.maxDurationMs(context.properties()),
            System::nanoTime);
    Peers peers = new Peers(announcer::clientConnected);
    PluginMeters pluginMeters =
        new PluginMeters(Metrics.globalRegistry, cfg.duplicateId(), context.serverId());
    meters = pluginMeters;
    pluginMeters.watch(this);
    boolean inProcess = context instanceof LocalServerContext local && local.localServer() != null;
    Applier app =
        new Applier(
            cfg,
            own,
            peers,
            this::renewSession,
            injector,
            state,
            stat.getVersion(),
            sec.acl(),
            pluginMeters,
            inProcess ? ((LocalServerContext) context).localServer() : null,
            sec.zooKeeperAuth(),
            ZoolanderPluginConfig.clientRecordRetentionMs(context.properties()),
            ZoolanderPluginConfig.fenceOnForeignWrite(context.properties()));
    applier = app;
    pluginMeters.watchDataPath(app);
    pluginMeters.watchForeignWrites(app);
    pluginMeters.watchWatches(app);
    this.peers = peers;
    slowness = announcer;
    Optional<String> fencedBefore = retrying(deadline, () -> FenceRecord.read(zk, znodes));
    if (fencedBefore.isPresent()) {
      app.fencedBefore(fencedBefore.get());
    }
    if (retrying(deadline, () -> zk.exists(znodes.transferMarker(), false)) != null) {
      app.fenceAtStart(
          "a state transfer was interrupted while installing ("
              + znodes.transferMarker()
              + " is present):"
              + " the data root is neither the old one nor the new one until a state transfer completes");
    }
    PluginServer srv =
        PluginServer.start(
            cfg.host(),
            cfg.port(),
            cfg.duplicateId(),
            app::snapshot,
            app,
            peers,
            sec.link(),
            pluginMeters,
            limits);
    server = srv;
    PluginEndpoint published =
        new PluginEndpoint(
            cfg.duplicateId(),
            context.serverId(),
            cfg.advertisedHost(),
            cfg.advertisedPort() != 0 ? cfg.advertisedPort() : srv.localAddress().getPort());
    retrying(
        deadline,
        () -> {
          publishEndpoint(zk, znodes, published, sec.acl());
          return null;
        });
    endpoint = published;
    registerMBean(cfg.duplicateId(), context.serverId());
    LOG.info(
        "Duplicate {}: plugin active on server {} (ZooKeeper epoch {}) at {}; repeater epoch {}, applied seq"
            + " {}, base path {}; reads from {}",
        cfg.duplicateId(),
        context.serverId(),
        context.epoch(),
        published.address(),
        state.epoch(),
        state.appliedSeq(),
        znodes.basePath(),
        inProcess
            ? "the in-memory tree, writes into the request pipeline in-process"
            : "the plugin's session, writes through it");
  }

  @Override
  public void stop() {
    stopped = true;
    endpoint = null;
    RegisteredMBean registered = mbean;
    if (registered != null) {
      registered.close();
    }
    PluginMeters pluginMeters = meters;
    if (pluginMeters != null) {
      pluginMeters.close();
    }
    PluginServer srv = server;
    if (srv != null) {
      srv.close(STOP_STEP_TIMEOUT_MS);
    }
    Applier app = applier;
    if (app != null) {
      app.stop(STOP_STEP_TIMEOUT_MS);
    }
    AnomalyInjector injector = anomalies;
    if (injector != null) {
      injector.stop();
    }
    OwnSession own = session;
    if (own != null) {
      own.close(STOP_STEP_TIMEOUT_MS); // ends the session: ZooKeeper deletes the endpoint
    }
    ZoolanderPluginConfig cfg = config;
    if (cfg != null) {
      Snapshot last = snapshot();
      LOG.info(
          "Duplicate {}: plugin stopped at applied seq {} (repeater epoch {})",
          cfg.duplicateId(),
          last.appliedSeq(),
          last.epoch());
    }
  }

  /**
   * Registers {@link PluginMXBean} in the platform MBean server. Servers of one duplicate in one
   * JVM (tests) have distinct ids; if a name is taken anyway (two clusters in one JVM), the later
   * plugin goes without.
   */
  private void registerMBean(int duplicateId, long serverId) {
    PluginConsole console = new PluginConsole(this, serverId);
    try {
      mbean =
          RegisteredMBean.register(
              ManagementFactory.getPlatformMBeanServer(),
              ZoolanderJmx.plugin(duplicateId, serverId),
              console,
              PluginMXBean.class,
              Map.of());
    } catch (InstanceAlreadyExistsException e) {
      LOG.info(
          "Duplicate {}: no plugin MBean on server {}: {} is registered already",
          duplicateId,
          serverId,
          e.getMessage());
    }
  }

  @Override
  public int duplicateId() {
    ZoolanderPluginConfig cfg = config;
    return cfg == null ? -1 : cfg.duplicateId();
  }

  @Override
  public Snapshot snapshot() {
    Applier app = applier;
    if (app == null) {
      return new Snapshot(0, 0, stopped ? DuplicateState.STOPPED : DuplicateState.STARTING);
    }
    return app.snapshot();
  }

  @Override
  public Optional<PluginEndpoint> endpoint() {
    return Optional.ofNullable(endpoint);
  }

  @Override
  public long duplicateRequests() {
    Applier app = applier;
    return app == null ? 0 : app.duplicateRequests();
  }

  /**
   * Holds a plain ZooKeeper client's request as the anomaly injector says, so that plain clients of
   * this duplicate suffer the same anomalies as Zoolander's accesses. The plugin's own session is
   * never held: its reads and writes are Zoolander's accesses, which the injector slows in the
   * {@link Applier} already.
   */
  @Override
  public long clientRequestDelayMs(long sessionId, int xid, boolean write) {
    AnomalyInjector injector = anomalies;
    OwnSession own = session;
    if (injector == null || stopped || (own != null && own.isOwn(sessionId))) {
      return 0;
    }
    return injector.clientRequestDelayMs(sessionId, xid, write);
  }

  /**
   * Planned slowness: the server's snapshot starts or ends; the clients are told (see {@link
   * PlannedSlowness}).
   */
  @Override
  public void backgroundWork(String what, boolean started) {
    PlannedSlowness announcer = slowness;
    Peers connected = peers;
    if (announcer != null && connected != null && !stopped) {
      announcer.backgroundWork(what, started, connected.clients());
    }
  }

  @Override
  public AnomalySettings anomalyInjector() {
    AnomalyInjector injector = anomalies;
    return injector == null ? AnomalySettings.OFF : injector.settings();
  }

  // ---------------------------------------------------------------------------------------------

  private void onSessionExpired() {
    Applier app = applier;
    if (app != null && !stopped) {
      app.sessionExpired();
    }
  }

  /** On the applier thread: a new session, and the endpoint published again under it. */
  private void renewSession() throws Exception {
    ZoolanderPluginConfig cfg = config;
    ZooKeeper zk = session.renew(cfg.connectTimeoutMs());
    AnomalyInjector injector = anomalies;
    if (injector != null && !stopped) {
      injector.watch(zk);
    }
    PluginEndpoint published = endpoint;
    if (published != null) {
      publishEndpoint(zk, cfg.znodes(), published, security.acl());
      LOG.info(
          "Duplicate {}: endpoint {} published again under a new session",
          cfg.duplicateId(),
          published.address());
    }
  }

  /**
   * Creates the base path (and its parents), the data root, the state znode and the parent of the
   * client records, each unless present.
   */
  private static Void createZnodes(ZooKeeper zk, Znodes znodes, List<ACL> acl)
      throws KeeperException, InterruptedException {
    String base = znodes.basePath();
    for (int slash = base.indexOf('/', 1); slash > 0; slash = base.indexOf('/', slash + 1)) {
      createIfAbsent(zk, base.substring(0, slash), new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE);
    }
    createIfAbsent(zk, base, new byte[0], acl);
    createIfAbsent(zk, znodes.dataRoot(), new byte[0], acl);
    createIfAbsent(zk, znodes.state(), BookkeepingState.INITIAL.encode(), acl);
    createIfAbsent(zk, znodes.clients(), new byte[0], acl);
    return null;
  }

  private static void createIfAbsent(ZooKeeper zk, String path, byte[] data, List<ACL> acl)
      throws KeeperException, InterruptedException {
    try {
      zk.create(path, data, acl, CreateMode.PERSISTENT);
    } catch (KeeperException.NodeExistsException e) {
      // created earlier
    }
  }

  /**
   * Publishes {@code endpoint} in the ephemeral endpoint znode. Only the leader runs a plugin, so
   * an endpoint owned by another session is a dead leader's, whose session has not expired yet: it
   * is deleted first.
   */
  static void publishEndpoint(ZooKeeper zk, Znodes znodes, PluginEndpoint endpoint)
      throws KeeperException, InterruptedException {
    publishEndpoint(zk, znodes, endpoint, ZooDefs.Ids.OPEN_ACL_UNSAFE);
  }

  /**
   * As {@link #publishEndpoint(ZooKeeper, Znodes, PluginEndpoint)}, the znode created with {@code
   * acl}.
   */
  static void publishEndpoint(ZooKeeper zk, Znodes znodes, PluginEndpoint endpoint, List<ACL> acl)
      throws KeeperException, InterruptedException {
    String path = znodes.endpoint();
    byte[] data = endpoint.encode();
    for (int attempt = 1; ; attempt++) {
      Stat existing = zk.exists(path, false);
      if (existing != null) {
        if (existing.getEphemeralOwner() == zk.getSessionId()) {
          zk.setData(path, data, -1);
          return;
        }
        LOG.info(
            "Duplicate {}: deleting the stale endpoint znode {} of session 0x{}",
            endpoint.duplicateId(),
            path,
            Long.toHexString(existing.getEphemeralOwner()));
        try {
          zk.delete(path, existing.getVersion());
        } catch (KeeperException.NoNodeException | KeeperException.BadVersionException e) {
          // gone or changed meanwhile: look again
        }
      }
      try {
        zk.create(path, data, acl, CreateMode.EPHEMERAL);
        return;
      } catch (KeeperException.NodeExistsException e) {
        if (attempt >= PUBLISH_ATTEMPTS) {
          throw e;
        }
      }
    }
  }

  @FunctionalInterface
  private interface Step<T> {
    T run() throws KeeperException, InterruptedException;
  }

  /** Runs a start-up step, retrying transient ZooKeeper failures until {@code deadline}. */
  private static <T> T retrying(long deadline, Step<T> step)
      throws KeeperException, InterruptedException, TimeoutException {
    while (true) {
      try {
        return step.run();
      } catch (KeeperException.ConnectionLossException
          | KeeperException.OperationTimeoutException
          | KeeperException.ThrottledOpException e) {
        if (System.nanoTime() - deadline > 0) {
          TimeoutException timeout =
              new TimeoutException("own ZooKeeper server keeps failing: " + e);
          timeout.initCause(e);
          throw timeout;
        }
        Thread.sleep(START_RETRY_PAUSE_MS);
      }
    }
  }
}
