package io.zoolander.server.internal.plugin;

import io.zoolander.server.internal.leader.TreeReader;
import io.zoolander.wire.ClientRecord;
import io.zoolander.wire.OpResult;
import io.zoolander.wire.ReadKind;
import io.zoolander.wire.Znodes;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.LongAdder;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;

/**
 * The applier's view of the per-client records ({@link ClientRecord} in {@code
 * <base>/clients/<clientId>}): a cache of the records it has read or written, with their znode
 * versions, and the ops that update them. Confined to the applier thread.
 *
 * <p>ZooKeeper holds the truth: a record is read (from the leader's in-memory tree when the plugin
 * runs there) on a client's first write after start (or after {@link #clear}) and updated only in a
 * multi that also advances the state znode, with a version check (or a create, for a client's first
 * write), so a stale cache makes that multi fail instead of losing an update. The applier clears
 * the cache whenever it re-reads the state after a ZooKeeper failure, since a lost multi may have
 * changed a record.
 */
final class ClientTable {

  /** The version of a record that does not exist yet: its update is a create. */
  static final int ABSENT = -1;

  /** Records cached at most; the least recently used is read again from ZooKeeper when needed. */
  static final int CACHE_SIZE = 10_000;

  /**
   * A client's record and its znode's data version.
   *
   * @param record the record, null if the client has no applied write ({@code version == ABSENT})
   */
  record Known(ClientRecord record, int version) {}

  private static final Known ABSENT_RECORD = new Known(null, ABSENT);

  private final Znodes znodes;
  private final List<ACL> acl;
  private final TreeReader tree;
  private final LongAdder readFromTree = new LongAdder();
  private final Map<Long, Known> cache =
      new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, Known> eldest) {
          return size() > CACHE_SIZE;
        }
      };

  ClientTable(Znodes znodes) {
    this(znodes, ZooDefs.Ids.OPEN_ACL_UNSAFE, null);
  }

  /**
   * @param acl the ACL a new client record is created with
   * @param tree the leader's in-memory tree, which records are read from (the applier has waited
   *     for every multi it submitted, so the tree holds them), through the session only when it
   *     cannot be read consistently; null: always through the session
   */
  ClientTable(Znodes znodes, List<ACL> acl, TreeReader tree) {
    this.znodes = znodes;
    this.acl = acl;
    this.tree = tree;
  }

  /**
   * @return the record of {@code clientId}, read from ZooKeeper unless cached
   * @throws IllegalArgumentException if the znode holds no valid client record
   */
  Known get(ZooKeeper zk, long clientId) throws KeeperException, InterruptedException {
    Known known = cache.get(clientId);
    if (known == null) {
      known = read(zk, clientId);
      cache.put(clientId, known);
    }
    return known;
  }

  /**
   * @return the record of {@code clientId} as ZooKeeper holds it now, bypassing the cache
   */
  Known read(ZooKeeper zk, long clientId) throws KeeperException, InterruptedException {
    String path = znodes.client(clientId);
    if (tree != null) {
      Optional<TreeReader.Result> read = tree.read(path, ReadKind.GET_DATA);
      if (read.isPresent()) {
        readFromTree.increment();
        TreeReader.Result r = read.get();
        return r.exists() ? new Known(ClientRecord.decode(r.data()), r.version()) : ABSENT_RECORD;
      }
    }
    Stat stat = new Stat();
    try {
      byte[] data = zk.getData(path, false, stat);
      return new Known(ClientRecord.decode(data), stat.getVersion());
    } catch (KeeperException.NoNodeException e) {
      return ABSENT_RECORD;
    }
  }

  /** Records read from the in-memory tree, without the session. Any thread. */
  long readFromTree() {
    return readFromTree.sum();
  }

  /**
   * @return the op replacing the record {@code known} of {@code clientId} by {@code record}
   */
  org.apache.zookeeper.Op update(long clientId, Known known, byte[] record) {
    String path = znodes.client(clientId);
    return known.version() == ABSENT
        ? org.apache.zookeeper.Op.create(path, record, acl, CreateMode.PERSISTENT)
        : org.apache.zookeeper.Op.setData(path, record, known.version());
  }

  /** A multi holding {@link #update} succeeded: {@code record} is now at {@code version}. */
  void updated(long clientId, ClientRecord record, int version) {
    cache.put(clientId, new Known(record, version));
  }

  /** Forgets the cached record of {@code clientId} (it is being deleted). */
  void forget(long clientId) {
    cache.remove(clientId);
  }

  /** Forgets every cached record. */
  void clear() {
    cache.clear();
  }

  /**
   * @param base the client's record before, null if none
   * @param results the request's results, or null if they are not known: then the request counts as
   *     applied but its outcome is not held (nor, so that the window has no hole, any older
   *     outcome)
   * @return the record after applying request {@code requestId} of the client as {@code seq}
   */
  static ClientRecord after(ClientRecord base, long requestId, long seq, List<OpResult> results) {
    if (results == null) {
      return base == null ? new ClientRecord(requestId, List.of()) : base.appendUnheld(requestId);
    }
    ClientRecord.Entry entry = new ClientRecord.Entry(requestId, seq, results);
    return base == null ? ClientRecord.first(entry) : base.append(entry);
  }
}
