package io.zoolander.wire.internal;

import java.io.IOException;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows one znode's record in one ensemble: reads it, sets a watch (an exists watch when absent,
 * a data watch when present), and tells a listener each record that decodes; the session is made
 * again after it expires. Used by clients to follow the active repeater's record ({@code
 * ActiveRepeater}). The listener runs on the ZooKeeper client's event thread and must not block.
 * Internal: not part of the public API.
 *
 * @param <T> the decoded record
 */
public final class RecordWatcher<T> implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RecordWatcher.class);

  private final String connectString;
  private final String path;
  private final int sessionTimeoutMs;
  private final Function<byte[], T> decoder;
  private final Consumer<T> listener;
  private final Object lock = new Object();
  private final Watcher onChange =
      event -> {
        if (event.getType() != Watcher.Event.EventType.None) {
          read();
        }
      };
  private ZooKeeper zooKeeper;
  private boolean closed;

  /**
   * @param decoder turns the znode's data into a record; an IllegalArgumentException skips it
   */
  public RecordWatcher(
      String connectString,
      String path,
      int sessionTimeoutMs,
      Function<byte[], T> decoder,
      Consumer<T> listener) {
    this.connectString = Objects.requireNonNull(connectString, "connectString must not be null");
    this.path = Objects.requireNonNull(path, "path must not be null");
    this.decoder = Objects.requireNonNull(decoder, "decoder must not be null");
    this.listener = Objects.requireNonNull(listener, "listener must not be null");
    if (sessionTimeoutMs <= 0) {
      throw new IllegalArgumentException("sessionTimeoutMs must be > 0, was " + sessionTimeoutMs);
    }
    this.sessionTimeoutMs = sessionTimeoutMs;
  }

  /** Connects and starts watching; the first record (if any) is reported once connected. */
  public void start() throws IOException {
    synchronized (lock) {
      if (closed) {
        throw new IllegalStateException("RecordWatcher is closed");
      }
      zooKeeper = new ZooKeeper(connectString, sessionTimeoutMs, this::onSessionEvent);
    }
  }

  private void onSessionEvent(WatchedEvent event) {
    if (event.getType() != Watcher.Event.EventType.None) {
      return;
    }
    switch (event.getState()) {
      case SyncConnected -> read();
      case Expired -> reconnect();
      default -> {}
    }
  }

  private void reconnect() {
    synchronized (lock) {
      if (closed) {
        return;
      }
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
  }

  private void read() {
    ZooKeeper zk;
    synchronized (lock) {
      if (closed) {
        return;
      }
      zk = zooKeeper;
    }
    try {
      byte[] data;
      try {
        data = zk.getData(path, onChange, null);
      } catch (KeeperException.NoNodeException e) {
        if (zk.exists(path, onChange) == null) {
          return; // the exists watch reports its creation
        }
        data = zk.getData(path, onChange, null);
      }
      Optional<T> record;
      try {
        record = Optional.of(decoder.apply(data));
      } catch (IllegalArgumentException e) {
        LOG.warn("{} in {}: {}", path, connectString, e.getMessage());
        record = Optional.empty();
      }
      record.ifPresent(listener);
    } catch (KeeperException e) {
      LOG.debug("reading {} in {}: {}", path, connectString, e.toString()); // the session retries
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
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
