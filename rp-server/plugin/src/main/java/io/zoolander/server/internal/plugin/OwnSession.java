package io.zoolander.server.internal.plugin;

import java.io.IOException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The plugin's ZooKeeper session with its own server (never another server of the ensemble: the
 * plugin runs on the leader and must see its own writes at once). Expiry is reported to a callback;
 * {@link #renew} replaces the handle.
 */
final class OwnSession implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(OwnSession.class);

  private final String connectString;
  private final int sessionTimeoutMs;
  private final Runnable onExpired;
  private final byte[] digestAuth;
  private volatile ZooKeeper zk;
  private volatile long sessionId; // of zk once connected; 0 before
  private volatile long previousSessionId; // the one renew replaced; its last requests may linger
  private volatile boolean closed;

  /**
   * @param connectString the own server, {@code host:port}
   * @param sessionTimeoutMs the session timeout asked for
   * @param onExpired called (on ZooKeeper's event thread, must not block) when the current session
   *     expires
   */
  OwnSession(String connectString, int sessionTimeoutMs, Runnable onExpired) {
    this(connectString, sessionTimeoutMs, onExpired, null);
  }

  /**
   * @param digestAuth {@code user:password} of the plugin's ZooKeeper identity (digest scheme),
   *     added to every session before it connects; null for none
   */
  OwnSession(String connectString, int sessionTimeoutMs, Runnable onExpired, byte[] digestAuth) {
    this.digestAuth = digestAuth == null ? null : digestAuth.clone();
    this.connectString = connectString;
    this.sessionTimeoutMs = sessionTimeoutMs;
    this.onExpired = onExpired;
  }

  /**
   * Opens a new session, closing the previous one if any, and waits until it is connected.
   *
   * @throws TimeoutException if the server does not accept the session within {@code timeoutMs}
   * @throws InterruptedException if interrupted while waiting
   */
  ZooKeeper renew(long timeoutMs) throws IOException, InterruptedException, TimeoutException {
    CountDownLatch connected = new CountDownLatch(1);
    AtomicReference<ZooKeeper> self = new AtomicReference<>();
    Watcher watcher =
        event -> {
          if (event.getType() != Watcher.Event.EventType.None) {
            return;
          }
          switch (event.getState()) {
            case SyncConnected -> connected.countDown();
            case Expired -> {
              ZooKeeper expired = self.get();
              if (!closed && expired != null && expired == zk) {
                LOG.warn(
                    "ZooKeeper session 0x{} with own server {} expired",
                    Long.toHexString(expired.getSessionId()),
                    connectString);
                onExpired.run();
              }
            }
            default -> {}
          }
        };
    ZooKeeper previous;
    ZooKeeper created;
    synchronized (this) {
      if (closed) {
        throw new IllegalStateException("session closed");
      }
      previous = zk;
      created = new ZooKeeper(connectString, sessionTimeoutMs, watcher);
      if (digestAuth != null) {
        // Queued before the session is established, and sent again by the client on every
        // reconnect.
        created.addAuthInfo("digest", digestAuth);
      }
      self.set(created);
      zk = created;
    }
    if (previous != null) {
      previous.close(100);
    }
    try {
      if (!connected.await(timeoutMs, TimeUnit.MILLISECONDS)) {
        throw new TimeoutException(
            "own ZooKeeper server "
                + connectString
                + " accepted no session within "
                + timeoutMs
                + " ms");
      }
    } catch (InterruptedException | TimeoutException e) {
      created.close(100);
      throw e;
    }
    previousSessionId = sessionId;
    sessionId = created.getSessionId();
    LOG.info(
        "ZooKeeper session 0x{} with own server {} (timeout {} ms)",
        Long.toHexString(sessionId),
        connectString,
        created.getSessionTimeout());
    return created;
  }

  /**
   * @return whether {@code id} is this plugin's current session with its server; never blocks
   */
  boolean isOwn(long id) {
    return id == sessionId && id != 0;
  }

  /**
   * @return whether {@code id} is this plugin's current session or the one it replaced (whose last
   *     requests may still be applied after a renewal); never blocks
   */
  boolean isOwnOrPrevious(long id) {
    return id != 0 && (id == sessionId || id == previousSessionId);
  }

  /**
   * @return the current handle; null before the first {@link #renew}
   */
  ZooKeeper zk() {
    return zk;
  }

  /**
   * Closes the session, which deletes its ephemeral znodes (the endpoint), waiting at most {@code
   * timeoutMs} for the server to confirm.
   */
  @Override
  public void close() {
    close(1_000);
  }

  void close(int timeoutMs) {
    ZooKeeper current;
    synchronized (this) {
      closed = true;
      current = zk;
    }
    if (current != null) {
      try {
        current.close(timeoutMs);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
