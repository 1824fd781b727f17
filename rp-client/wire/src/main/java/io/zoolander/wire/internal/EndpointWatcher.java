package io.zoolander.wire.internal;

import io.zoolander.wire.PluginEndpoint;
import io.zoolander.wire.Znodes;
import java.io.IOException;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows one duplicate's active plugin: watches the ephemeral {@link Znodes#endpoint()} znode in
 * the duplicate's own ensemble and tells a listener whenever the endpoint appears, changes (a new
 * leader) or disappears. Used by the repeater and by clients, so a leader change needs no
 * configuration change.
 *
 * <p>The listener runs on the ZooKeeper client's event thread and is called only on a change; it
 * must not block. The session is re-created after expiry. Internal: not part of the public API.
 */
public final class EndpointWatcher implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(EndpointWatcher.class);

  private final String connectString;
  private final Znodes znodes;
  private final int sessionTimeoutMs;
  private final Consumer<Optional<PluginEndpoint>> listener;
  private final Object lock = new Object();
  private ZooKeeper zooKeeper;
  private Optional<PluginEndpoint> current = Optional.empty();
  private boolean closed;

  public EndpointWatcher(
      String connectString,
      Znodes znodes,
      int sessionTimeoutMs,
      Consumer<Optional<PluginEndpoint>> listener) {
    this.connectString = Objects.requireNonNull(connectString, "connectString must not be null");
    this.znodes = Objects.requireNonNull(znodes, "znodes must not be null");
    this.listener = Objects.requireNonNull(listener, "listener must not be null");
    if (sessionTimeoutMs <= 0) {
      throw new IllegalArgumentException("sessionTimeoutMs must be > 0, was " + sessionTimeoutMs);
    }
    this.sessionTimeoutMs = sessionTimeoutMs;
  }

  /**
   * Connects and starts watching; the first endpoint (if any) is reported once the session is
   * established.
   */
  public void start() throws IOException {
    synchronized (lock) {
      if (closed) {
        throw new IllegalStateException("EndpointWatcher is closed");
      }
      zooKeeper = new ZooKeeper(connectString, sessionTimeoutMs, this::onSessionEvent);
    }
  }

  /** The endpoint last seen, empty while no plugin is published. */
  public Optional<PluginEndpoint> current() {
    synchronized (lock) {
      return current;
    }
  }

  private void onSessionEvent(WatchedEvent event) {
    if (event.getType() != Watcher.Event.EventType.None) {
      return;
    }
    switch (event.getState()) {
      case SyncConnected -> readEndpoint();
      case Expired -> reconnect();
      default -> {}
    }
  }

  private void reconnect() {
    synchronized (lock) {
      if (closed) {
        return;
      }
      LOG.info("session to {} expired; reconnecting", connectString);
      try {
        zooKeeper.close();
        zooKeeper = new ZooKeeper(connectString, sessionTimeoutMs, this::onSessionEvent);
      } catch (IOException | InterruptedException e) {
        LOG.warn("cannot reconnect to {}: {}", connectString, e.toString());
        if (e instanceof InterruptedException) {
          Thread.currentThread().interrupt();
        }
      }
    }
    update(Optional.empty());
  }

  private final Watcher endpointWatcher =
      event -> {
        if (event.getType() != Watcher.Event.EventType.None) {
          readEndpoint();
        }
      };

  /**
   * Reads the endpoint and sets a watch: an exists watch when absent, a data watch when present.
   */
  private void readEndpoint() {
    ZooKeeper zk;
    synchronized (lock) {
      if (closed) {
        return;
      }
      zk = zooKeeper;
    }
    zk.exists(
        znodes.endpoint(),
        endpointWatcher,
        (rc, path, ctx, stat) -> {
          if (rc == KeeperException.Code.NONODE.intValue()) {
            update(Optional.empty());
          } else if (rc == KeeperException.Code.OK.intValue()) {
            zk.getData(
                znodes.endpoint(),
                endpointWatcher,
                (rc2, path2, ctx2, data, stat2) -> {
                  if (rc2 == KeeperException.Code.OK.intValue()) {
                    try {
                      update(Optional.of(PluginEndpoint.decode(data)));
                    } catch (IllegalArgumentException e) {
                      LOG.warn(
                          "ignoring malformed endpoint in {}: {}", connectString, e.getMessage());
                      update(Optional.empty());
                    }
                  } else if (rc2 == KeeperException.Code.NONODE.intValue()) {
                    readEndpoint(); // deleted between exists and getData: set the exists watch
                    // again
                  }
                },
                null);
          }
        },
        null);
  }

  private void update(Optional<PluginEndpoint> endpoint) {
    synchronized (lock) {
      if (closed || current.equals(endpoint)) {
        return;
      }
      current = endpoint;
    }
    LOG.debug("endpoint in {} is now {}", connectString, endpoint);
    listener.accept(endpoint);
  }

  @Override
  public void close() throws InterruptedException {
    ZooKeeper zk;
    synchronized (lock) {
      closed = true;
      zk = zooKeeper;
    }
    if (zk != null) {
      zk.close();
    }
  }
}
