package io.zoolander.wire.internal;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
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
 * a data watch when present), and tells a listener whenever the record appears, changes or
 * disappears. A record that does not decode counts as absent (logged); so does the time between a
 * session's expiry and the next session's first read, when nothing is known. Used by the repeater
 * and by clients to follow each duplicate's active plugin ({@code PluginEndpoint}, so a leader
 * change needs no configuration change) and by clients to follow the active repeater's record
 * ({@code ActiveRepeater}).
 *
 * <p>The listener runs on the ZooKeeper client's event thread, only on a change, and must not
 * block. Every ZooKeeper call is asynchronous. Internal: not part of the public API.
 *
 * @param <T> the decoded record
 */
public final class RecordWatcher<T> implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RecordWatcher.class);

  private final String connectString;
  private final String path;
  private final int sessionTimeoutMs;
  private final Function<byte[], T> decoder;
  private final Consumer<Optional<T>> listener;
  private final Object lock = new Object();
  private final Watcher onChange =
      event -> {
        if (event.getType() != Watcher.Event.EventType.None) {
          read();
        }
      };
  // Guarded by lock.
  private ZooKeeper zooKeeper;
  private boolean closed;
  private Optional<T> current = Optional.empty();

  /**
   * @param decoder turns the znode's data into a record; an IllegalArgumentException makes it count
   *     as absent
   * @param listener told of each change: the new record, or empty when it is gone
   */
  public RecordWatcher(
      String connectString,
      String path,
      int sessionTimeoutMs,
      Function<byte[], T> decoder,
      Consumer<Optional<T>> listener) {
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
      zooKeeper = ZooKeeperSessions.open(connectString, sessionTimeoutMs, this::onSessionEvent);
    }
  }

  /** The record last seen; empty while there is none (or none is known). */
  public Optional<T> current() {
    synchronized (lock) {
      return current;
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
      LOG.info("session to {} expired; reconnecting", connectString);
      try {
        zooKeeper.close();
        zooKeeper = ZooKeeperSessions.open(connectString, sessionTimeoutMs, this::onSessionEvent);
      } catch (IOException | InterruptedException e) {
        LOG.warn("cannot reconnect to {}: {}", connectString, e.toString());
        if (e instanceof InterruptedException) {
          Thread.currentThread().interrupt();
        }
      }
    }
    update(Optional.empty()); // unknown until the new session reads it
  }

  private void read() {
    ZooKeeper zk;
    synchronized (lock) {
      if (closed) {
        return;
      }
      zk = zooKeeper;
    }
    zk.exists(
        path,
        onChange,
        (rc, p, ctx, stat) -> {
          if (rc == KeeperException.Code.NONODE.intValue()) {
            update(Optional.empty()); // the exists watch reports its creation
          } else if (rc == KeeperException.Code.OK.intValue()) {
            zk.getData(
                path,
                onChange,
                (rc2, p2, ctx2, data, stat2) -> {
                  if (rc2 == KeeperException.Code.OK.intValue()) {
                    update(decode(data));
                  } else if (rc2 == KeeperException.Code.NONODE.intValue()) {
                    read(); // deleted between exists and getData: set the exists watch again
                  }
                },
                null);
          }
          // Any other code: the session is being lost; its SyncConnected or Expired reads again.
        },
        null);
  }

  private Optional<T> decode(byte[] data) {
    try {
      return Optional.of(decoder.apply(data));
    } catch (IllegalArgumentException e) {
      LOG.warn("ignoring malformed {} in {}: {}", path, connectString, e.getMessage());
      return Optional.empty();
    }
  }

  private void update(Optional<T> record) {
    synchronized (lock) {
      if (closed || current.equals(record)) {
        return;
      }
      current = record;
    }
    LOG.debug("{} in {} is now {}", path, connectString, record);
    listener.accept(record);
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

  /**
   * Closes {@code watchers} at once, each on a thread of its own, and returns when all are closed.
   * Closing a ZooKeeper session takes at least 100 ms (ZooKeeper's NIO client sleeps that long as
   * it closes its socket), so closing a client's few watchers one after another took tenths of a
   * second.
   */
  public static void closeAll(Collection<? extends RecordWatcher<?>> watchers)
      throws InterruptedException {
    List<Thread> closing = new ArrayList<>(watchers.size());
    for (RecordWatcher<?> watcher : watchers) {
      Thread t =
          new Thread(
              () -> {
                try {
                  watcher.close();
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              },
              "zoolander-record-watcher-close");
      t.setDaemon(true);
      t.start();
      closing.add(t);
    }
    for (Thread t : closing) {
      t.join();
    }
  }
}
