package io.zoolander.server.internal.plugin;

import io.zoolander.server.plugin.AnomalySettings;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The anomaly injector (a test and demo tool, off by default; see {@link AnomalySettings} for the
 * syntax): follows the {@code <base>/anomaly} znode of the own ensemble through a persistent watch
 * and decides how long an access is slowed. The {@link Applier} sleeps that long before applying a
 * write and delays a read's answer by that much; the leader's ZooKeeper server holds a plain
 * ZooKeeper client's request that long ({@link #clientRequestDelayMs}).
 *
 * <p>Thread-safe; nothing here blocks: the znode is read asynchronously, on ZooKeeper's event
 * thread.
 */
final class AnomalyInjector {

  private static final Logger LOG = LoggerFactory.getLogger(AnomalyInjector.class);

  private final int duplicateId;
  private final String path;
  private volatile AnomalySettings settings = AnomalySettings.OFF;
  private volatile ZooKeeper watched;

  AnomalyInjector(int duplicateId, String path) {
    this.duplicateId = duplicateId;
    this.path = path;
  }

  /**
   * @return the settings in force ({@link AnomalySettings#OFF} when the znode is absent or
   *     malformed)
   */
  AnomalySettings settings() {
    return settings;
  }

  /**
   * @return how long to stall the applier before applying the write sequenced as {@code seq}; 0
   *     mostly
   */
  long writeDelayMs(long seq) {
    AnomalySettings s = settings;
    if (!s.appliesToWrites()) {
      return 0;
    }
    ThreadLocalRandom random = ThreadLocalRandom.current();
    return Math.min(
        AnomalySettings.MAX_DELAY_MS,
        s.commonWriteDelayMs(seq) + s.independentDelayMs(random.nextDouble(), random.nextDouble()));
  }

  /**
   * @return how long to hold back the answer to read {@code requestId} of {@code clientId}; 0
   *     mostly
   */
  long readDelayMs(long clientId, long requestId) {
    AnomalySettings s = settings;
    if (!s.appliesToReads()) {
      return 0;
    }
    ThreadLocalRandom random = ThreadLocalRandom.current();
    return Math.min(
        AnomalySettings.MAX_DELAY_MS,
        s.commonReadDelayMs(clientId, requestId)
            + s.independentDelayMs(random.nextDouble(), random.nextDouble()));
  }

  /**
   * @return how long to hold request {@code xid} of the plain ZooKeeper session {@code sessionId};
   *     0 mostly. The same independent draw as a Zoolander access; the common-mode part keys on
   *     (session, xid)
   */
  long clientRequestDelayMs(long sessionId, int xid, boolean write) {
    AnomalySettings s = settings;
    if (!(write ? s.appliesToWrites() : s.appliesToReads())) {
      return 0;
    }
    ThreadLocalRandom random = ThreadLocalRandom.current();
    return Math.min(
        AnomalySettings.MAX_DELAY_MS,
        s.commonRequestDelayMs(sessionId, xid, write)
            + s.independentDelayMs(random.nextDouble(), random.nextDouble()));
  }

  /** Follows the znode through {@code zk} (again, after a session renewal). Never blocks. */
  void watch(ZooKeeper zk) {
    watched = zk;
    Watcher watcher =
        event -> {
          if (watched == zk
              && (event.getType() != Watcher.Event.EventType.None
                  || event.getState() == Watcher.Event.KeeperState.SyncConnected)) {
            fetch(zk); // created, changed or deleted; or reconnected, when a change may have been
            // missed
          }
        };
    addWatch(zk, watcher);
    fetch(zk);
  }

  /** Stops following the znode; the settings stay as they are. */
  void stop() {
    watched = null;
  }

  private void addWatch(ZooKeeper zk, Watcher watcher) {
    zk.addWatch(
        path,
        watcher,
        AddWatchMode.PERSISTENT,
        (rc, p, ctx) -> {
          if (rc != Code.OK.intValue() && watched == zk && zk.getState().isAlive()) {
            LOG.debug(
                "Duplicate {}: cannot watch {} yet ({}); trying again",
                duplicateId,
                path,
                Code.get(rc));
            addWatch(zk, watcher); // queued until the session reconnects
          }
        },
        null);
  }

  private void fetch(ZooKeeper zk) {
    zk.getData(
        path,
        false,
        (rc, p, ctx, data, stat) -> {
          if (watched != zk) {
            return;
          }
          Code code = Code.get(rc);
          if (code == Code.OK) {
            load(data);
          } else if (code == Code.NONODE) {
            set(AnomalySettings.OFF, "no " + path);
          } else {
            LOG.debug(
                "Duplicate {}: cannot read {} ({}); read again on reconnect",
                duplicateId,
                path,
                code);
          }
        },
        null);
  }

  /** Takes the settings from a record of the znode; a malformed one turns the injector off. */
  void load(byte[] data) {
    try {
      set(AnomalySettings.parse(data == null ? new byte[0] : data), path);
    } catch (IllegalArgumentException e) {
      LOG.warn(
          "Duplicate {}: ignoring the malformed anomaly record '{}' in {}: {}; the injector is off",
          duplicateId,
          new String(data, StandardCharsets.UTF_8),
          path,
          e.getMessage());
      set(AnomalySettings.OFF, "a malformed record");
    }
  }

  private synchronized void set(AnomalySettings next, String source) {
    if (next.equals(settings)) {
      return;
    }
    settings = next;
    if (next.enabled()) {
      LOG.warn(
          "Duplicate {}: ANOMALY INJECTOR ON (a test tool; it slows accesses on purpose): {}",
          duplicateId,
          next);
    } else {
      LOG.info("Duplicate {}: anomaly injector off ({})", duplicateId, source);
    }
  }
}
