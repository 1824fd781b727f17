package io.zoolander.testsupport;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;

/** Plain ZooKeeper clients for tests that look at or change an ensemble behind Zoolander's back. */
public final class ZooKeepers {
  /** The session timeout of {@link #connect(String)}. */
  public static final Duration SESSION_TIMEOUT = Duration.ofSeconds(10);

  /** How long {@link #connect(String)} waits for the session, before {@link Timing} scaling. */
  public static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(30);

  private ZooKeepers() {}

  /**
   * A client of {@code connectString} with a {@link #SESSION_TIMEOUT} session, once connected.
   *
   * @throws AssertionError if it is not connected within {@link #CONNECT_TIMEOUT} (scaled)
   */
  public static ZooKeeper connect(String connectString) throws IOException, InterruptedException {
    return connect(connectString, SESSION_TIMEOUT, CONNECT_TIMEOUT);
  }

  /**
   * A client of {@code connectString}, once its session is established ({@code SyncConnected});
   * closed again if it is not.
   *
   * @param sessionTimeout the session timeout the client asks for
   * @param timeout how long to wait for the session, before {@link Timing} scaling
   * @throws AssertionError if it is not connected in time
   */
  public static ZooKeeper connect(String connectString, Duration sessionTimeout, Duration timeout)
      throws IOException, InterruptedException {
    CountDownLatch connected = new CountDownLatch(1);
    ZooKeeper zk =
        new ZooKeeper(
            connectString,
            Math.toIntExact(sessionTimeout.toMillis()),
            event -> {
              if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
              }
            });
    Duration bound = Timing.scaled(timeout);
    boolean ok = false;
    try {
      ok = connected.await(bound.toNanos(), TimeUnit.NANOSECONDS);
    } finally {
      if (!ok) {
        zk.close();
      }
    }
    if (!ok) {
      throw new AssertionError(
          "no ZooKeeper session with " + connectString + " within " + bound.toMillis() + " ms");
    }
    return zk;
  }
}
