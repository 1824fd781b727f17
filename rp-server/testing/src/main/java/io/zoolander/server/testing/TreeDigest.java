package io.zoolander.server.testing;

import io.zoolander.wire.BookkeepingState;
import io.zoolander.wire.Znodes;
import io.zoolander.wire.internal.ZooKeeperSessions;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;

/**
 * A digest of a duplicate's application tree: every path under the data root with its data
 * (SHA-256), data version and child version, plus the duplicate's bookkeeping state. Two duplicates
 * that applied the same writes have equal digests; {@link #differences} says where two do not. A
 * testing helper (Curator's TestingCluster plays this role): take a digest only while writes are
 * stopped.
 */
public final class TreeDigest {

  /**
   * One znode.
   *
   * @param dataSha256 hex SHA-256 of the node's data
   * @param version data version
   * @param cversion child version (decides the names sequential creates get)
   */
  public record Entry(String dataSha256, int version, int cversion) {}

  /** Requests outstanding at most while a level is read. */
  private static final int MAX_IN_FLIGHT = 512;

  /** How long one level's reads may take. */
  private static final long LEVEL_TIMEOUT_SECONDS = 60;

  private final Map<String, Entry> entries;
  private final BookkeepingState state;
  private final String sha256;

  private TreeDigest(Map<String, Entry> entries, BookkeepingState state) {
    this.entries = Collections.unmodifiableMap(entries);
    this.state = state;
    MessageDigest digest = sha256();
    entries.forEach(
        (path, e) ->
            digest.update(
                (path + '\0' + e.dataSha256() + '\0' + e.version() + '\0' + e.cversion() + '\n')
                    .getBytes(StandardCharsets.UTF_8)));
    this.sha256 = HexFormat.of().formatHex(digest.digest());
  }

  /** Digests the duplicate whose ensemble is at {@code connectString}. */
  public static TreeDigest of(String connectString, Znodes znodes) throws Exception {
    CountDownLatch connected = new CountDownLatch(1);
    try (ZooKeeper zk =
        ZooKeeperSessions.open(
            connectString,
            30_000,
            e -> {
              if (e.getState() == Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
              }
            })) {
      if (!connected.await(30, TimeUnit.SECONDS)) {
        throw new IllegalStateException("cannot connect to " + connectString);
      }
      return of(zk, znodes);
    }
  }

  /**
   * Digests through an existing session (sync()ed first so a follower has caught up). The state is
   * read before the tree: a duplicate still applying while the tree is walked then reports the
   * older state, never a tree older than its state (waiting for a seq and then comparing trees
   * would otherwise see a half-walked tree as a divergence). Not from the session's event thread:
   * the walk's answers arrive on it.
   */
  public static TreeDigest of(ZooKeeper zk, Znodes znodes) throws Exception {
    CountDownLatch synced = new CountDownLatch(1);
    zk.sync(znodes.dataRoot(), (rc, path, ctx) -> synced.countDown(), null);
    synced.await(30, TimeUnit.SECONDS);
    BookkeepingState state;
    try {
      state = BookkeepingState.decode(zk.getData(znodes.state(), false, null));
    } catch (KeeperException.NoNodeException e) {
      state = BookkeepingState.INITIAL;
    }
    Map<String, Entry> entries = new TreeMap<>();
    walk(zk, znodes, entries);
    return new TreeDigest(entries, state);
  }

  /**
   * Reads the tree one level at a time, every znode of a level at once (its data and its children,
   * at most {@link #MAX_IN_FLIGHT} requests outstanding): a walk of one synchronous round trip per
   * read took seconds for a tree of a few thousand znodes.
   */
  private static void walk(ZooKeeper zk, Znodes znodes, Map<String, Entry> entries)
      throws InterruptedException, KeeperException {
    List<String> level = List.of(znodes.dataRoot());
    while (!level.isEmpty()) {
      level = readLevel(zk, znodes, level, entries);
    }
  }

  /**
   * Reads the data and the children of every znode of {@code level} into {@code entries}.
   *
   * @return the znodes of the next level
   */
  private static List<String> readLevel(
      ZooKeeper zk, Znodes znodes, List<String> level, Map<String, Entry> entries)
      throws InterruptedException, KeeperException {
    Answers answers = new Answers(2 * level.size());
    Entry[] read = new Entry[level.size()];
    List<List<String>> children = new ArrayList<>(Collections.nCopies(level.size(), null));
    for (int i = 0; i < level.size(); i++) {
      int at = i;
      String znode = level.get(i);
      answers.window.acquire(2);
      zk.getData(
          znode,
          false,
          (rc, path, ctx, data, stat) -> {
            if (rc == KeeperException.Code.OK.intValue()) {
              read[at] =
                  new Entry(
                      HexFormat.of().formatHex(sha256().digest(data == null ? new byte[0] : data)),
                      stat.getVersion(),
                      stat.getCversion());
            }
            answers.answered(rc, path);
          },
          null);
      zk.getChildren(
          znode,
          false,
          (rc, path, ctx, names) -> {
            if (rc == KeeperException.Code.OK.intValue()) {
              children.set(at, names);
            }
            answers.answered(rc, path);
          },
          null);
    }
    answers.await(level.get(0));
    List<String> next = new ArrayList<>();
    for (int i = 0; i < level.size(); i++) {
      if (read[i] == null || children.get(i) == null) {
        continue; // deleted while walking: writes were not stopped, the digests will differ
      }
      String znode = level.get(i);
      entries.put(znodes.toApplicationPath(znode), read[i]);
      for (String child : children.get(i)) {
        next.add(znode + "/" + child);
      }
    }
    return next;
  }

  /**
   * The answers to one level's reads, which arrive on the session's event thread: the window of
   * requests outstanding, and the first failure other than a znode deleted meanwhile.
   */
  private static final class Answers {
    final Semaphore window = new Semaphore(MAX_IN_FLIGHT);
    private final CountDownLatch left;
    private final AtomicReference<KeeperException> failed = new AtomicReference<>();

    Answers(int requests) {
      left = new CountDownLatch(requests);
    }

    /** After the answer's result is stored. */
    void answered(int rc, String path) {
      if (rc != KeeperException.Code.OK.intValue()
          && rc != KeeperException.Code.NONODE.intValue()) {
        failed.compareAndSet(null, KeeperException.create(KeeperException.Code.get(rc), path));
      }
      window.release();
      left.countDown();
    }

    /** Waits for every answer; throws the first failure. */
    void await(String first) throws InterruptedException, KeeperException {
      if (!left.await(LEVEL_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        throw KeeperException.create(KeeperException.Code.OPERATIONTIMEOUT, first);
      }
      if (failed.get() != null) {
        throw failed.get();
      }
    }
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required of every JVM", e);
    }
  }

  /** Application paths and their entries, sorted by path. */
  public Map<String, Entry> entries() {
    return entries;
  }

  /** The duplicate's bookkeeping state (appliedSeq, epoch) when the digest was taken. */
  public BookkeepingState state() {
    return state;
  }

  /** Hex SHA-256 over every path, data hash and version, in path order. */
  public String sha256Hex() {
    return sha256;
  }

  /**
   * Up to {@code max} human-readable differences with {@code other} (empty when the trees are
   * identical).
   */
  public List<String> differences(TreeDigest other, int max) {
    Objects.requireNonNull(other, "other must not be null");
    List<String> out = new ArrayList<>();
    TreeMap<String, Entry> all = new TreeMap<>(entries);
    other.entries.forEach(all::putIfAbsent);
    for (String path : all.keySet()) {
      if (out.size() >= max) {
        break;
      }
      Entry mine = entries.get(path);
      Entry theirs = other.entries.get(path);
      if (!Objects.equals(mine, theirs)) {
        out.add(path + ": " + mine + " vs " + theirs);
      }
    }
    return out;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof TreeDigest d && d.sha256.equals(sha256);
  }

  @Override
  public int hashCode() {
    return sha256.hashCode();
  }

  @Override
  public String toString() {
    return "TreeDigest["
        + entries.size()
        + " znodes, "
        + sha256.substring(0, 12)
        + ", "
        + state
        + "]";
  }
}
