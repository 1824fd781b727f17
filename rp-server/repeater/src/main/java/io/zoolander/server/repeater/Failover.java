package io.zoolander.server.repeater;

import io.zoolander.server.internal.repeater.CandidateOrder;
import io.zoolander.server.internal.repeater.ElectionZnodes;
import io.zoolander.server.internal.repeater.HeartbeatMonitor;
import io.zoolander.server.internal.repeater.HeartbeatServer;
import io.zoolander.server.security.PluginSecurity;
import io.zoolander.wire.ActiveRepeater;
import io.zoolander.wire.Znodes;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Automatic repeater failover: runs a repeater as a standby that takes over by itself when the
 * active repeater dies (see docs/repeater.md, "Automatic failover").
 *
 * <ul>
 *   <li><b>Election</b> (who tries): every repeater holds an ephemeral sequential candidate znode
 *       in every duplicate; the lowest candidate, not counting the repeater presumed dead, tries
 *       first, each further one a heartbeat timeout later ({@link CandidateOrder}).
 *   <li><b>Failure detection</b> (when): each standby keeps a heartbeat connection to the active
 *       repeater, whose record ({@link ActiveRepeater}) it reads from the duplicates. A killed
 *       process's connection closes at once; a dead host is noticed after the heartbeat timeout.
 *       ZooKeeper's own detection (the active one's candidate znode vanishing) would take a session
 *       timeout, at least 4 s with ZooKeeper's defaults.
 *   <li><b>Fencing</b> (safety): taking over is {@link Repeater#start()}, whose epoch claim at a
 *       majority of the duplicates deposes every older repeater. Two standbys that both try get
 *       different epochs; the newer deposes the older. The election never decides safety.
 * </ul>
 *
 * <p>Once active, the repeater publishes its record (client and heartbeat addresses, epoch) in
 * every duplicate, where clients that know the duplicates find it, and beats until it is deposed or
 * closed.
 *
 * <pre>{@code
 * try (Failover failover = Failover.of(Repeater.builder().duplicate(1, "zk1:2181")...,
 *     FailoverSettings.defaults())) {
 *   Repeater repeater = failover.awaitActive(); // a standby until then
 *   ...
 * }
 * }</pre>
 */
public final class Failover implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Failover.class);

  private final Repeater.Builder repeater;
  private final FailoverSettings settings;
  private final String advertisedHost;
  private final HeartbeatServer heartbeat;
  private final HeartbeatMonitor monitor;
  private final ElectionZnodes znodes;
  private final String self;
  private volatile boolean closed;
  private volatile long takeoverMillis = -1;

  private Failover(
      Repeater.Builder repeater,
      FailoverSettings settings,
      String advertisedHost,
      HeartbeatServer heartbeat) {
    this.repeater = repeater;
    this.settings = settings;
    this.advertisedHost = advertisedHost;
    this.heartbeat = heartbeat;
    this.self = advertisedHost + ":" + heartbeat.port();
    this.monitor = new HeartbeatMonitor(settings.heartbeatTimeoutMillis());
    byte[] auth = repeater.zooKeeperAuthValue();
    List<ACL> acl =
        auth == null
            ? ZooDefs.Ids.OPEN_ACL_UNSAFE
            : PluginSecurity.aclFor(new String(auth, StandardCharsets.UTF_8));
    this.znodes =
        new ElectionZnodes(
            repeater.duplicateConnectStrings(),
            new Znodes(repeater.basePathValue()),
            repeater.sessionTimeoutMillisValue(),
            auth,
            acl,
            Math.max(settings.heartbeatTimeoutMillis(), 1_000));
  }

  /**
   * Prepares a standby: binds its heartbeat port (so that it can be advertised). Nothing is claimed
   * and no znode written until {@link #awaitActive()}.
   *
   * @param repeater configured as the repeater should run once active; built anew at each attempt
   * @throws IllegalArgumentException if the repeater is advertised at a wildcard address (set
   *     {@link FailoverSettings#advertisedHost()}) or has no duplicate
   * @throws IOException if the heartbeat port cannot be bound
   */
  public static Failover of(Repeater.Builder repeater, FailoverSettings settings)
      throws IOException {
    Objects.requireNonNull(repeater, "repeater must not be null");
    Objects.requireNonNull(settings, "settings must not be null");
    if (repeater.duplicateConnectStrings().isEmpty()) {
      throw new IllegalArgumentException("repeater: a repeater needs at least one duplicate");
    }
    String host =
        settings.advertisedHost() != null ? settings.advertisedHost() : repeater.clientHostValue();
    if (isWildcard(host)) {
      throw new IllegalArgumentException(
          "advertisedHost: the client listener binds the wildcard address "
              + host
              + ", which clients and standbys cannot connect to; set the address they reach this"
              + " repeater at");
    }
    return new Failover(
        repeater,
        settings,
        host,
        new HeartbeatServer(repeater.clientHostValue(), settings.heartbeatPort()));
  }

  private static boolean isWildcard(String host) {
    try {
      return InetAddress.getByName(host).isAnyLocalAddress();
    } catch (UnknownHostException e) {
      return false; // a name this host cannot resolve may still be right for the others
    }
  }

  /** This repeater's heartbeat address, {@code host:port}: its identity in the election. */
  public String heartbeatAddress() {
    return self;
  }

  /**
   * Waits as a standby until this repeater is elected and has taken over, then returns it, started,
   * its record published and its heartbeat beating. A failed takeover (another repeater claimed
   * first, too few duplicates answered) is retried after a heartbeat timeout.
   *
   * @throws InterruptedException if interrupted or {@linkplain #close() closed} meanwhile
   */
  public Repeater awaitActive() throws InterruptedException {
    long lostAt = System.nanoTime();
    String presumedDead = null;
    long knownEpoch = 0;
    boolean justLost = false;
    while (!closed) {
      if (!justLost) {
        // Not between a loss and the decision: these wait for a duplicate that is down.
        znodes.register(self);
        Optional<ActiveRepeater> active = znodes.active();
        String activeHeartbeat = active.map(Failover::heartbeatOf).orElse(null);
        knownEpoch = Math.max(knownEpoch, active.map(ActiveRepeater::epoch).orElse(0L));
        if (activeHeartbeat != null
            && !activeHeartbeat.equals(presumedDead)
            && !activeHeartbeat.equals(self)) {
          ActiveRepeater watched = active.get();
          LOG.info(
              "failover: standby {}; active repeater epoch {} at {}:{}",
              self,
              watched.epoch(),
              watched.clientHost(),
              watched.clientPort());
          String why = monitor.awaitLoss(watched.heartbeatHost(), watched.heartbeatPort());
          lostAt = System.nanoTime();
          presumedDead = activeHeartbeat;
          justLost = true;
          LOG.warn("failover: active repeater epoch {} presumed dead: {}", watched.epoch(), why);
          continue;
        }
      }
      justLost = false;
      long pause =
          new CandidateOrder(znodes.candidates())
              .pauseMillis(self, presumedDead, settings.heartbeatTimeoutMillis());
      if (pause > 0) {
        // Candidates ahead of this one go first; follow whichever takes over meanwhile.
        TimeUnit.MILLISECONDS.sleep(pause);
        if (znodes.active().map(ActiveRepeater::epoch).orElse(0L) > knownEpoch) {
          continue;
        }
      }
      Optional<Repeater> started = tryTakeover(lostAt);
      if (started.isPresent()) {
        return started.get();
      }
      TimeUnit.MILLISECONDS.sleep(settings.heartbeatTimeoutMillis());
    }
    throw new InterruptedException("failover closed");
  }

  private Optional<Repeater> tryTakeover(long lostAt) throws InterruptedException {
    Repeater candidate = repeater.build();
    try {
      candidate.start();
    } catch (IOException | TimeoutException | IllegalStateException e) {
      candidate.close();
      LOG.warn("failover: could not take over: {}", e.getMessage());
      return Optional.empty();
    }
    takeoverMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - lostAt);
    InetSocketAddress client = candidate.boundAddress();
    heartbeat.start(settings.heartbeatIntervalMillis(), () -> closed || candidate.isDeposed());
    LOG.info(
        "failover: active as epoch {}, {} ms after the previous one was presumed dead (or this"
            + " standby started)",
        candidate.epoch(),
        takeoverMillis);
    ActiveRepeater record =
        new ActiveRepeater(
            candidate.epoch(), advertisedHost, client.getPort(), advertisedHost, heartbeat.port());
    // In the background: a duplicate that is down would hold the return for a call timeout, and
    // clients that know the repeater's address need not wait for the record.
    Thread publisher =
        new Thread(
            () ->
                LOG.info(
                    "failover: epoch {} published in {} of {} duplicates",
                    record.epoch(),
                    znodes.publish(record),
                    repeater.duplicateConnectStrings().size()),
            "zoolander-failover-publish");
    publisher.setDaemon(true);
    publisher.start();
    return Optional.of(candidate);
  }

  /**
   * How long the last takeover took, from the previous repeater presumed dead (or this standby's
   * start, when there was none) to this one serving; -1 before.
   */
  public long takeoverMillis() {
    return takeoverMillis;
  }

  private static String heartbeatOf(ActiveRepeater r) {
    return r.heartbeatHost() + ":" + r.heartbeatPort();
  }

  /**
   * Stops: an {@link #awaitActive()} in progress ends; once active, the heartbeat stops (standbys
   * take over) and the candidate znodes go with their sessions. Does not close the repeater
   * returned.
   */
  @Override
  public void close() {
    closed = true;
    monitor.close();
    heartbeat.close();
    znodes.close();
  }
}
