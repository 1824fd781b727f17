package io.zoolander.server.internal.repeater;

import io.zoolander.wire.BookkeepingState;
import io.zoolander.wire.Membership;
import io.zoolander.wire.NameRoutes;
import io.zoolander.wire.PluginEndpoint;
import io.zoolander.wire.Znodes;
import io.zoolander.wire.internal.RecordWatcher;
import io.zoolander.wire.internal.ZooKeeperSessions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A duplicate whose state and endpoint live in its ZooKeeper ensemble, under {@link Znodes}. */
public final class ZooKeeperDuplicateSource implements DuplicateSource {
  private static final Logger LOG = LoggerFactory.getLogger(ZooKeeperDuplicateSource.class);

  private final int duplicateId;
  private final String connectString;
  private final Znodes znodes;
  private final int sessionTimeoutMillis;

  /** The plugins' ZooKeeper digest identity {@code user:password}, null if none (znodes open). */
  private final byte[] zooKeeperAuth;

  /**
   * The ACL of a znode the claim creates: the plugins' (see PluginSecurity), open without an
   * identity.
   */
  private final List<ACL> acl;

  private RecordWatcher<PluginEndpoint> watcher;

  /** The session kept from reading the state to claiming the epoch; null otherwise. */
  private ZooKeeper kept;

  /**
   * Set by {@link #close}: no session is opened or kept any more. A duplicate retired online is
   * closed while the periodic epoch check may still hold it in its list: a session opened for it
   * then would be kept by no one and reconnect to the stopped ensemble for ever.
   */
  private boolean closed;

  public ZooKeeperDuplicateSource(
      int duplicateId, String connectString, Znodes znodes, int sessionTimeoutMillis) {
    this(
        duplicateId,
        connectString,
        znodes,
        sessionTimeoutMillis,
        null,
        ZooDefs.Ids.OPEN_ACL_UNSAFE);
  }

  /**
   * @param zooKeeperAuth the plugins' digest identity {@code user:password} (their {@code
   *     zoolander.zookeeper.*}): with ZooKeeper ACLs on, only it may claim an epoch in the state
   *     znode; null without ACLs
   * @param acl the ACL of a znode the claim creates: the plugins' own
   */
  public ZooKeeperDuplicateSource(
      int duplicateId,
      String connectString,
      Znodes znodes,
      int sessionTimeoutMillis,
      byte[] zooKeeperAuth,
      List<ACL> acl) {
    this.duplicateId = duplicateId;
    this.connectString = connectString;
    this.znodes = znodes;
    this.sessionTimeoutMillis = sessionTimeoutMillis;
    this.zooKeeperAuth = zooKeeperAuth == null ? null : zooKeeperAuth.clone();
    this.acl = java.util.Objects.requireNonNull(acl, "acl must not be null");
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
   * Opens a session (kept for the {@link #claim} that follows), {@code sync}s (so a follower
   * answers as up to date as the leader) and reads {@link Znodes#state()}; an absent znode is
   * {@link BookkeepingState#INITIAL}.
   */
  @Override
  public BookkeepingState readState(long timeoutMillis) throws Exception {
    return inSession(
        timeoutMillis,
        true,
        zk -> {
          try {
            return decode(zk.getData(znodes.state(), false, null));
          } catch (KeeperException.NoNodeException e) {
            return BookkeepingState.INITIAL;
          }
        });
  }

  /**
   * In the session {@link #readState} kept (or a new one), {@code sync}s, then reads the state and
   * sets it to {@code (epoch, appliedSeq)} conditionally on the version read, again until no one
   * changed it in between (a plugin applying a write, another repeater claiming); creates it (and
   * the base path) if absent. Reads the endpoint in the same session, and closes it.
   */
  @Override
  public Claim claim(long epoch, long timeoutMillis) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
    return inSession(
        timeoutMillis,
        false,
        zk -> {
          while (true) {
            if (System.nanoTime() - deadline > 0) {
              throw new TimeoutException(
                  "the state of duplicate "
                      + duplicateId
                      + " at "
                      + connectString
                      + " kept changing: epoch "
                      + epoch
                      + " not claimed within "
                      + timeoutMillis
                      + " ms");
            }
            Stat stat = new Stat();
            BookkeepingState claimed;
            try {
              BookkeepingState state = decode(zk.getData(znodes.state(), false, stat));
              if (state.epoch() >= epoch) {
                throw new EpochTakenException(duplicateId, epoch, state.epoch());
              }
              claimed = new BookkeepingState(epoch, state.appliedSeq());
              zk.setData(znodes.state(), claimed.encode(), stat.getVersion());
            } catch (KeeperException.NoAuthException e) {
              throw notAllowed(e);
            } catch (KeeperException.BadVersionException e) {
              continue; // changed since read: read again
            } catch (KeeperException.NoNodeException e) {
              claimed = new BookkeepingState(epoch, 0);
              try {
                ZnodeParents.create(zk, znodes.state(), znodes.basePath(), acl);
                zk.create(znodes.state(), claimed.encode(), acl, CreateMode.PERSISTENT);
              } catch (KeeperException.NoAuthException denied) {
                throw notAllowed(denied);
              } catch (KeeperException.NodeExistsException created) {
                continue; // the plugin created it meanwhile: claim that one
              }
            }
            Optional<PluginEndpoint> endpoint;
            try {
              endpoint =
                  Optional.of(PluginEndpoint.decode(zk.getData(znodes.endpoint(), false, null)));
            } catch (KeeperException.NoNodeException | IllegalArgumentException e) {
              endpoint =
                  Optional.empty(); // none published, or not an endpoint: recovery does without it
            }
            // The claimed state is final for older repeaters, so is the record read after it.
            Stat routesStat = new Stat();
            try {
              NameRoutes routes =
                  NameRoutes.decode(zk.getData(znodes.toZnode(NameRoutes.PATH), false, routesStat));
              return new Claim(
                  claimed, endpoint, new NameRoutes.Versioned(routes, routesStat.getVersion()));
            } catch (KeeperException.NoNodeException e) {
              return new Claim(claimed, endpoint);
            } catch (IllegalArgumentException e) {
              throw new IOException(
                  "duplicate "
                      + duplicateId
                      + ": "
                      + znodes.toZnode(NameRoutes.PATH)
                      + " is not a route record (written outside Zoolander?): "
                      + e.getMessage(),
                  e);
            }
          }
        });
  }

  /** Reads {@code <base>/leftOut/<duplicate id>} (each holding an epoch in decimal). */
  @Override
  public Map<Integer, Long> readLeftOut(long timeoutMillis) throws Exception {
    return inSession(
        timeoutMillis,
        true,
        zk -> {
          Map<Integer, Long> leftOut = new TreeMap<>();
          List<String> children;
          try {
            children = zk.getChildren(leftOutPath(), false);
          } catch (KeeperException.NoNodeException e) {
            return leftOut;
          }
          for (String child : children) {
            try {
              leftOut.put(
                  Integer.parseInt(child),
                  Long.parseLong(
                      new String(
                          zk.getData(leftOutPath() + "/" + child, false, null),
                          StandardCharsets.US_ASCII)));
            } catch (KeeperException.NoNodeException | NumberFormatException e) {
              LOG.warn("duplicate {}: ignoring {}/{}: {}", duplicateId, leftOutPath(), child, e);
            }
          }
          return leftOut;
        });
  }

  @Override
  public void recordLeftOut(Set<Integer> duplicateIds, long epoch, long timeoutMillis)
      throws Exception {
    byte[] data = Long.toString(epoch).getBytes(StandardCharsets.US_ASCII);
    inSession(
        timeoutMillis,
        false,
        zk -> {
          for (int id : duplicateIds) {
            String path = leftOutPath() + "/" + id;
            while (true) {
              try {
                Stat stat = new Stat();
                long held =
                    Long.parseLong(
                        new String(zk.getData(path, false, stat), StandardCharsets.US_ASCII));
                if (held < epoch) {
                  zk.setData(path, data, stat.getVersion());
                }
                break;
              } catch (KeeperException.NoNodeException e) {
                try {
                  ZnodeParents.create(zk, leftOutPath(), znodes.basePath(), acl);
                  try {
                    zk.create(leftOutPath(), new byte[0], acl, CreateMode.PERSISTENT);
                  } catch (KeeperException.NodeExistsException there) {
                    // created by an earlier claim
                  }
                  zk.create(path, data, acl, CreateMode.PERSISTENT);
                  break;
                } catch (KeeperException.NodeExistsException raced) {
                  // recorded meanwhile: read it again
                }
              } catch (KeeperException.BadVersionException e) {
                // changed meanwhile: read it again
              } catch (KeeperException.NoAuthException e) {
                throw notAllowed(e);
              }
            }
          }
          return null;
        });
  }

  @Override
  public void clearLeftOut(int leftOutId, long epoch, long timeoutMillis) throws Exception {
    String path = leftOutPath() + "/" + leftOutId;
    inSession(
        timeoutMillis,
        false,
        zk -> {
          while (true) {
            try {
              Stat stat = new Stat();
              long held =
                  Long.parseLong(
                      new String(zk.getData(path, false, stat), StandardCharsets.US_ASCII));
              if (held <= epoch) {
                zk.delete(path, stat.getVersion());
              }
              return null;
            } catch (KeeperException.NoNodeException e) {
              return null; // nothing recorded (or cleared meanwhile)
            } catch (KeeperException.BadVersionException e) {
              // a newer claim recorded it meanwhile: read it again
            } catch (KeeperException.NoAuthException e) {
              throw notAllowed(e);
            }
          }
        });
  }

  @Override
  public Optional<Membership> readMembership(long timeoutMillis) throws Exception {
    // Read at a takeover's start, just before the state: the session is kept for that read.
    return inSession(
        timeoutMillis,
        true,
        zk -> {
          try {
            return Optional.of(decodeMembership(zk.getData(znodes.members(), false, null)));
          } catch (KeeperException.NoNodeException e) {
            return Optional.empty();
          }
        });
  }

  @Override
  public long writeMembership(Membership membership, long timeoutMillis) throws Exception {
    byte[] data = membership.encode();
    return inSession(
        timeoutMillis,
        false,
        zk -> {
          while (true) {
            try {
              Stat stat = new Stat();
              Membership held = decodeMembership(zk.getData(znodes.members(), false, stat));
              if (held.version() >= membership.version()) {
                return held.version();
              }
              zk.setData(znodes.members(), data, stat.getVersion());
              return membership.version();
            } catch (KeeperException.NoNodeException e) {
              try {
                ZnodeParents.create(zk, znodes.members(), znodes.basePath(), acl);
                zk.create(znodes.members(), data, acl, CreateMode.PERSISTENT);
                return membership.version();
              } catch (KeeperException.NodeExistsException raced) {
                // written meanwhile: read it again
              }
            } catch (KeeperException.BadVersionException e) {
              // changed meanwhile: read it again
            } catch (KeeperException.NoAuthException e) {
              throw notAllowed(e);
            }
          }
        });
  }

  private String leftOutPath() {
    return znodes.leftOut();
  }

  private BookkeepingState decode(byte[] data) {
    return decodeAt(znodes.state(), data, BookkeepingState::decode);
  }

  private Membership decodeMembership(byte[] data) {
    return decodeAt(znodes.members(), data, Membership::decode);
  }

  /** Decodes the record at {@code path}; one that does not decode names the duplicate and path. */
  private <T> T decodeAt(String path, byte[] data, Function<byte[], T> decoder) {
    try {
      return decoder.apply(data);
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException(
          "duplicate "
              + duplicateId
              + ": "
              + path
              + " in "
              + connectString
              + " holds "
              + e.getMessage(),
          e);
    }
  }

  private IllegalStateException notAllowed(KeeperException.NoAuthException e) {
    return new IllegalStateException(
        "duplicate "
            + duplicateId
            + ": the repeater may not claim its epoch in "
            + znodes.state()
            + " at "
            + connectString
            + ": the plugins protect Zoolander's znodes with a ZooKeeper ACL;"
            + " give the repeater their ZooKeeper identity (zookeeper.user, zookeeper.passwordFile)",
        e);
  }

  @FunctionalInterface
  private interface SessionAction<T> {
    T run(ZooKeeper zk) throws Exception;
  }

  /**
   * Runs {@code action} after a {@code sync}, in the session kept by the previous call or a new
   * one, all within the timeout. A repeater's start reads the state and then claims the epoch: the
   * session is kept between the two (saving a session set-up from the takeover) and closed after
   * the claim.
   *
   * @param keep whether to keep the session open for the next call
   */
  private <T> T inSession(long timeoutMillis, boolean keep, SessionAction<T> action)
      throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
    ZooKeeper zk;
    synchronized (this) {
      if (closed) {
        throw new IllegalStateException(
            "the source of duplicate " + duplicateId + " at " + connectString + " is closed");
      }
      zk = kept;
      kept = null;
    }
    if (zk == null || !zk.getState().isConnected()) {
      closeQuietly(zk);
      zk = connect(deadline, timeoutMillis);
    }
    boolean keeping = false;
    try {
      CompletableFuture<Integer> synced = new CompletableFuture<>();
      zk.sync("/", (rc, path, ctx) -> synced.complete(rc), null);
      int rc = synced.get(remaining(deadline), TimeUnit.NANOSECONDS);
      if (rc != KeeperException.Code.OK.intValue()) {
        throw KeeperException.create(KeeperException.Code.get(rc), "/");
      }
      T result = action.run(zk);
      if (keep) {
        synchronized (this) {
          if (!closed) { // closed meanwhile: this session goes with the call
            kept = zk;
            keeping = true;
          }
        }
      }
      return result;
    } finally {
      if (!keeping) {
        // Closing a session takes a round trip: not on the takeover's critical path, nor on a
        // shared pool's worker.
        closeInBackground(zk);
      }
    }
  }

  private ZooKeeper connect(long deadline, long timeoutMillis) throws Exception {
    CountDownLatch connected = new CountDownLatch(1);
    ZooKeeper zk =
        ZooKeeperSessions.open(
            connectString,
            sessionTimeoutMillis,
            event -> {
              if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
              }
            });
    if (zooKeeperAuth != null) {
      zk.addAuthInfo("digest", zooKeeperAuth.clone());
    }
    boolean ok = false;
    try {
      if (!connected.await(remaining(deadline), TimeUnit.NANOSECONDS)) {
        throw new TimeoutException(
            "no ZooKeeper session with duplicate "
                + duplicateId
                + " at "
                + connectString
                + " within "
                + timeoutMillis
                + " ms");
      }
      ok = true;
      return zk;
    } finally {
      if (!ok) {
        closeQuietly(zk);
      }
    }
  }

  private void closeInBackground(ZooKeeper zk) {
    Thread t = new Thread(() -> closeQuietly(zk), "zoolander-source-close-" + duplicateId);
    t.setDaemon(true);
    t.start();
  }

  private static void closeQuietly(ZooKeeper zk) {
    if (zk == null) {
      return;
    }
    boolean interrupted = Thread.interrupted(); // close fully even when the caller was interrupted
    try {
      zk.close();
    } catch (InterruptedException e) {
      interrupted = true;
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  @Override
  public void watchEndpoint(Consumer<Optional<PluginEndpoint>> listener) throws Exception {
    synchronized (this) {
      if (watcher != null) {
        throw new IllegalStateException("already watching");
      }
      watcher =
          new RecordWatcher<>(
              connectString,
              znodes.endpoint(),
              sessionTimeoutMillis,
              PluginEndpoint::decode,
              listener);
    }
    watcher.start();
  }

  @Override
  public void close() {
    RecordWatcher<PluginEndpoint> w;
    ZooKeeper session;
    synchronized (this) {
      closed = true;
      w = watcher;
      session = kept;
      kept = null;
    }
    closeQuietly(session);
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
