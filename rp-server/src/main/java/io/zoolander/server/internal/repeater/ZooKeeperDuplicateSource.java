package io.zoolander.server.internal.repeater;

import io.zoolander.client.internal.EndpointWatcher;
import io.zoolander.wire.BookkeepingState;
import io.zoolander.wire.PluginEndpoint;
import io.zoolander.wire.Znodes;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;

/** A duplicate whose state and endpoint live in its ZooKeeper ensemble, under {@link Znodes}. */
public final class ZooKeeperDuplicateSource implements DuplicateSource {
  private final int duplicateId;
  private final String connectString;
  private final Znodes znodes;
  private final int sessionTimeoutMillis;
  private EndpointWatcher watcher;

  public ZooKeeperDuplicateSource(int duplicateId, String connectString, Znodes znodes, int sessionTimeoutMillis) {
    this.duplicateId = duplicateId;
    this.connectString = connectString;
    this.znodes = znodes;
    this.sessionTimeoutMillis = sessionTimeoutMillis;
  }

  @Override
  public int duplicateId() {
    return duplicateId;
  }

  @Override
  public String connectString() {
    return connectString;
  }

  /**
   * Opens a session, {@code sync}s (so a follower answers as up to date as the leader) and reads {@link
   * Znodes#state()}; an absent znode is {@link BookkeepingState#INITIAL}.
   */
  @Override
  public BookkeepingState readState(long timeoutMillis) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
    CountDownLatch connected = new CountDownLatch(1);
    ZooKeeper zk = new ZooKeeper(connectString, sessionTimeoutMillis, event -> {
      if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
        connected.countDown();
      }
    });
    try {
      if (!connected.await(remaining(deadline), TimeUnit.NANOSECONDS)) {
        throw new TimeoutException("no ZooKeeper session with duplicate " + duplicateId + " at " + connectString
            + " within " + timeoutMillis + " ms");
      }
      CompletableFuture<Integer> synced = new CompletableFuture<>();
      zk.sync("/", (rc, path, ctx) -> synced.complete(rc), null);
      int rc = synced.get(remaining(deadline), TimeUnit.NANOSECONDS);
      if (rc != KeeperException.Code.OK.intValue()) {
        throw KeeperException.create(KeeperException.Code.get(rc), "/");
      }
      byte[] data;
      try {
        data = zk.getData(znodes.state(), false, null);
      } catch (KeeperException.NoNodeException e) {
        return BookkeepingState.INITIAL;
      }
      try {
        return BookkeepingState.decode(data);
      } catch (IllegalArgumentException e) {
        throw new IllegalStateException("duplicate " + duplicateId + ": " + znodes.state() + " in " + connectString
            + " holds " + e.getMessage(), e);
      }
    } finally {
      boolean interrupted = Thread.interrupted(); // close fully even when the read was interrupted
      try {
        zk.close();
      } finally {
        if (interrupted) {
          Thread.currentThread().interrupt();
        }
      }
    }
  }

  @Override
  public void watchEndpoint(Consumer<Optional<PluginEndpoint>> listener) throws Exception {
    synchronized (this) {
      if (watcher != null) {
        throw new IllegalStateException("already watching");
      }
      watcher = new EndpointWatcher(connectString, znodes, sessionTimeoutMillis, listener);
    }
    watcher.start();
  }

  @Override
  public void close() {
    EndpointWatcher w;
    synchronized (this) {
      w = watcher;
    }
    if (w != null) {
      try {
        w.close();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private static long remaining(long deadline) {
    return Math.max(0, deadline - System.nanoTime());
  }
}
