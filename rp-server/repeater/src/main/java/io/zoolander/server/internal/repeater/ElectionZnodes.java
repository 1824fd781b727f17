package io.zoolander.server.internal.repeater;

import io.zoolander.server.internal.repeater.CandidateOrder.Candidate;
import io.zoolander.wire.ActiveRepeater;
import io.zoolander.wire.Znodes;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The failover election's znodes, in every duplicate's ensemble (one ZooKeeper session each, made
 * again after it expires): the candidates' ephemeral sequential znodes under {@link
 * Znodes#repeaterCandidates()} and the active repeater's record {@link Znodes#activeRepeater()}.
 * Every duplicate holds them, so the election survives the loss of any one; each call is bounded
 * and skips a duplicate that does not answer in time.
 */
public final class ElectionZnodes implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ElectionZnodes.class);
  private static final String CANDIDATE_PREFIX = "candidate-";

  private final Map<Integer, String> duplicates;
  private final Znodes znodes;
  private final int sessionTimeoutMillis;
  private final byte[] auth;
  private final List<ACL> acl;
  private final long callTimeoutMillis;
  private final ExecutorService callers =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "zoolander-failover-zookeeper");
            t.setDaemon(true);
            return t;
          });

  /** Guarded by this: the session with each duplicate, and this candidate's znode there. */
  private final Map<Integer, ZooKeeper> sessions = new HashMap<>();

  private final Map<Integer, String> registered = new HashMap<>();

  /**
   * @param duplicates each duplicate's connect string, by id
   * @param auth the plugins' ZooKeeper digest identity {@code user:password}, null if none
   * @param acl the ACL of the znodes created
   * @param callTimeoutMillis bound on each call to one duplicate
   */
  public ElectionZnodes(
      Map<Integer, String> duplicates,
      Znodes znodes,
      int sessionTimeoutMillis,
      byte[] auth,
      List<ACL> acl,
      long callTimeoutMillis) {
    this.duplicates = new TreeMap<>(duplicates);
    this.znodes = znodes;
    this.sessionTimeoutMillis = sessionTimeoutMillis;
    this.auth = auth == null ? null : auth.clone();
    // Not List.copyOf: ZooKeeper asks the ACL list whether it contains null, which an immutable
    // list answers with a NullPointerException.
    this.acl = new ArrayList<>(acl);
    this.callTimeoutMillis = callTimeoutMillis;
  }

  /**
   * Makes sure this candidate has its znode, holding its heartbeat address, in every duplicate that
   * answers (again after a session expired).
   */
  public void register(String heartbeat) {
    for (int id : duplicates.keySet()) {
      call(
          id,
          zk -> {
            synchronized (this) {
              if (registered.containsKey(id)) {
                return null;
              }
            }
            createBase(zk, znodes.repeaterCandidates());
            String name =
                zk.create(
                    znodes.repeaterCandidates() + "/" + CANDIDATE_PREFIX,
                    heartbeat.getBytes(StandardCharsets.UTF_8),
                    acl,
                    CreateMode.EPHEMERAL_SEQUENTIAL);
            synchronized (this) {
              registered.put(id, name);
            }
            return null;
          });
    }
  }

  /** The candidates as the first duplicate (by id) that answers lists them; empty if none does. */
  public List<Candidate> candidates() {
    for (int id : duplicates.keySet()) {
      Optional<List<Candidate>> listed =
          call(
              id,
              zk -> {
                List<Candidate> candidates = new ArrayList<>();
                for (String child : zk.getChildren(znodes.repeaterCandidates(), false)) {
                  try {
                    byte[] data =
                        zk.getData(znodes.repeaterCandidates() + "/" + child, false, null);
                    candidates.add(new Candidate(child, new String(data, StandardCharsets.UTF_8)));
                  } catch (KeeperException.NoNodeException gone) {
                    // its session ended meanwhile
                  }
                }
                return candidates;
              });
      if (listed.isPresent()) {
        return listed.get();
      }
    }
    return List.of();
  }

  /** The record of the highest epoch found among the duplicates that answer. */
  public Optional<ActiveRepeater> active() {
    List<Future<Optional<ActiveRepeater>>> reads = new ArrayList<>();
    for (int id : duplicates.keySet()) {
      reads.add(callers.submit(() -> call(id, this::readActive).flatMap(r -> r)));
    }
    ActiveRepeater newest = null;
    for (Future<Optional<ActiveRepeater>> read : reads) {
      try {
        Optional<ActiveRepeater> found = read.get();
        if (found.isPresent() && (newest == null || found.get().epoch() > newest.epoch())) {
          newest = found.get();
        }
      } catch (java.util.concurrent.ExecutionException e) {
        LOG.debug("failover: reading the active repeater: {}", e.toString());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    return Optional.ofNullable(newest);
  }

  /**
   * Publishes {@code active} in every duplicate that answers, where no higher epoch is recorded.
   *
   * @return how many duplicates hold it
   */
  public int publish(ActiveRepeater active) {
    List<Future<Optional<Boolean>>> writes = new ArrayList<>();
    for (int id : duplicates.keySet()) {
      writes.add(callers.submit(() -> call(id, zk -> publish(zk, active))));
    }
    int published = 0;
    for (Future<Optional<Boolean>> write : writes) {
      try {
        if (write.get().orElse(false)) {
          published++;
        }
      } catch (java.util.concurrent.ExecutionException e) {
        LOG.debug("failover: publishing the active repeater: {}", e.toString());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    return published;
  }

  private Optional<ActiveRepeater> readActive(ZooKeeper zk)
      throws KeeperException, InterruptedException {
    try {
      return Optional.of(ActiveRepeater.decode(zk.getData(znodes.activeRepeater(), false, null)));
    } catch (KeeperException.NoNodeException e) {
      return Optional.empty();
    } catch (IllegalArgumentException e) {
      LOG.warn("failover: ignoring {}: {}", znodes.activeRepeater(), e.getMessage());
      return Optional.empty();
    }
  }

  private boolean publish(ZooKeeper zk, ActiveRepeater active)
      throws KeeperException, InterruptedException {
    while (true) {
      Stat stat = new Stat();
      try {
        ActiveRepeater held;
        try {
          held = ActiveRepeater.decode(zk.getData(znodes.activeRepeater(), false, stat));
        } catch (IllegalArgumentException e) {
          held = null; // not a record: overwrite it
        }
        if (held != null && held.epoch() > active.epoch()) {
          return false; // a newer repeater has published: this one is being deposed
        }
        zk.setData(znodes.activeRepeater(), active.encode(), stat.getVersion());
        return true;
      } catch (KeeperException.NoNodeException e) {
        createBase(zk, znodes.activeRepeater());
        try {
          zk.create(znodes.activeRepeater(), active.encode(), acl, CreateMode.PERSISTENT);
          return true;
        } catch (KeeperException.NodeExistsException raced) {
          // created meanwhile: read it again
        }
      } catch (KeeperException.BadVersionException e) {
        // changed meanwhile: read it again
      }
    }
  }

  /**
   * Creates the parents of {@code path} (a direct child of the base path), and {@code path} itself
   * when it is the candidates' parent.
   */
  private void createBase(ZooKeeper zk, String path) throws KeeperException, InterruptedException {
    ZnodeParents.create(zk, path, znodes.basePath(), acl);
    if (path.equals(znodes.repeaterCandidates())) {
      try {
        zk.create(path, new byte[0], acl, CreateMode.PERSISTENT);
      } catch (KeeperException.NodeExistsException e) {
        // there already
      }
    }
  }

  @FunctionalInterface
  private interface Call<T> {
    T run(ZooKeeper zk) throws Exception;
  }

  /** Runs {@code call} in the duplicate's session within the call timeout; empty if it fails. */
  private <T> Optional<T> call(int id, Call<T> call) {
    Future<T> running =
        callers.submit(
            () -> {
              ZooKeeper zk = session(id);
              return call.run(zk);
            });
    try {
      return Optional.ofNullable(running.get(callTimeoutMillis, TimeUnit.MILLISECONDS));
    } catch (InterruptedException e) {
      running.cancel(true);
      Thread.currentThread().interrupt();
      return Optional.empty();
    } catch (Exception e) {
      running.cancel(true);
      LOG.debug("failover: duplicate {} did not answer: {}", id, e.toString());
      return Optional.empty();
    }
  }

  /** The session with a duplicate, made (again) if it has none or it expired. */
  private ZooKeeper session(int id) throws java.io.IOException {
    synchronized (this) {
      ZooKeeper zk = sessions.get(id);
      if (zk != null && zk.getState().isAlive()) {
        return zk;
      }
      registered.remove(id); // an ephemeral znode dies with its session
      zk = new ZooKeeper(duplicates.get(id), sessionTimeoutMillis, event -> {});
      if (auth != null) {
        zk.addAuthInfo("digest", auth.clone());
      }
      sessions.put(id, zk);
      return zk;
    }
  }

  @Override
  public void close() {
    callers.shutdownNow();
    List<ZooKeeper> closing;
    synchronized (this) {
      closing = new ArrayList<>(sessions.values());
      sessions.clear();
    }
    for (ZooKeeper zk : closing) {
      try {
        zk.close();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
