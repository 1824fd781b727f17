package io.zoolander.server.internal.plugin;

import io.zoolander.wire.BookkeepingState;
import io.zoolander.wire.Message;
import io.zoolander.wire.WireSettings;
import io.zoolander.wire.Znodes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;

/**
 * The two halves of a state transfer on the plugin side: {@link #read reading} a consistent
 * snapshot of this duplicate's data root and client records, and {@link Install installing} one
 * received from another duplicate. Both run on the applier thread, so a snapshot is taken between
 * two applied writes (see the package documentation).
 *
 * <p>ZooKeeper cannot create a znode at a given data version or child version, and both matter
 * beyond the digest: a conditional setData or delete compares the data version, and a sequential
 * create names its znode after the parent's child version. So the install reproduces them exactly:
 * a znode of data version {@code v} is created and then set {@code v} times (empty data, the last
 * time its data), and a parent whose child version {@code c} exceeds its {@code k} children gets
 * {@code (c - k) / 2} creates and deletes of a padding child: ZooKeeper 3.9 reports the child
 * version as creates plus deletes of children ({@code DataNode.copyStat}: twice the creates minus
 * the children), so a padding pair adds two. The cost is one ZooKeeper op per version step, batched
 * in multis.
 */
final class StateTransfer {

  /**
   * Snapshot bytes (paths and data) a transfer may hold; over it the transfer is refused
   * (TRANSFER_TOO_LARGE).
   */
  static final long MAX_BYTES = 64L * 1024 * 1024;

  /**
   * A chunk is closed once it holds this many bytes of paths and data (a larger znode travels
   * alone).
   */
  static final int CHUNK_BYTES = 256 * 1024;

  /** Most ops in one multi of an install. */
  static final int MULTI_MAX_OPS = 1_000;

  /**
   * A multi of an install is closed once its data reaches this many bytes (below jute.maxbuffer's 1
   * MiB).
   */
  static final int MULTI_MAX_BYTES = 512 * 1024;

  /**
   * The name of the child created and deleted to raise a parent's child version, unless the parent
   * has a child of that name in the snapshot: then the first of {@code PAD_CHILD-1}, {@code
   * PAD_CHILD-2}... it has not ({@link #padName}). While the install runs the tree is exactly the
   * snapshot (nothing else is applied), so the padding can never meet an application's node.
   */
  static final String PAD_CHILD = "zoolander-transfer-pad";

  /** A child name of the parent that none of {@code children} (its children's names) has. */
  static String padName(Set<String> children) {
    String name = PAD_CHILD;
    for (int i = 1; children.contains(name); i++) {
      name = PAD_CHILD + "-" + i;
    }
    return name;
  }

  private static final byte[] EMPTY = new byte[0];

  private StateTransfer() {}

  /** The snapshot exceeds the limit. */
  static final class TooLargeException extends Exception {
    TooLargeException(String message) {
      super(message);
    }
  }

  /** A snapshot: every znode, parents first, and the state it is the tree after. */
  record Snapshot(BookkeepingState state, List<Message.TransferChunk.Node> nodes, long bytes) {}

  /**
   * Reads the data root (every znode, parents first) and the client records through {@code zk}. The
   * caller issues no write meanwhile, and ZooKeeper answers one session's requests in order, so
   * this is the tree at {@code state}. Each level of the tree is read with all its requests in
   * flight together.
   *
   * @throws TooLargeException if the paths and data exceed {@code maxBytes}
   */
  static Snapshot read(
      ZooKeeper zk, Znodes znodes, BookkeepingState state, long maxBytes, long timeoutMs)
      throws KeeperException, InterruptedException, TooLargeException {
    List<Message.TransferChunk.Node> nodes = new ArrayList<>();
    long[] bytes = {0};
    List<String> level = List.of(znodes.dataRoot());
    while (!level.isEmpty()) {
      List<String> next = new ArrayList<>();
      for (Read r : readAll(zk, level, true, timeoutMs)) {
        add(nodes, bytes, r, maxBytes);
        for (String child : r.children) {
          next.add(r.path + "/" + child);
        }
      }
      level = next;
    }
    List<String> records = new ArrayList<>();
    for (String child : sorted(zk.getChildren(znodes.clients(), false))) {
      records.add(znodes.clients() + "/" + child);
    }
    for (Read r : readAll(zk, records, false, timeoutMs)) {
      add(nodes, bytes, r, maxBytes);
    }
    return new Snapshot(state, nodes, bytes[0]);
  }

  private static void add(
      List<Message.TransferChunk.Node> nodes, long[] bytes, Read r, long maxBytes)
      throws TooLargeException {
    bytes[0] += r.path.length() + r.data.length;
    if (bytes[0] > maxBytes) {
      throw new TooLargeException(
          "the snapshot exceeds the state transfer's limit of "
              + maxBytes
              + " bytes of paths"
              + " and data ("
              + nodes.size()
              + " znodes read)");
    }
    nodes.add(
        new Message.TransferChunk.Node(r.path, r.data, r.stat.getVersion(), r.stat.getCversion()));
  }

  // The data is ZooKeeper's array, handed on without copying; a Read is only iterated, never
  // compared
  // or hashed, so the array's identity-based equals does not matter.
  @SuppressWarnings("ArrayRecordComponent")
  private record Read(String path, byte[] data, Stat stat, List<String> children) {}

  /**
   * Reads {@code paths} (data and stat, and children if asked), all in flight together, in the
   * order given.
   */
  private static List<Read> readAll(
      ZooKeeper zk, List<String> paths, boolean children, long timeoutMs)
      throws KeeperException, InterruptedException {
    int n = paths.size();
    byte[][] data = new byte[n][];
    Stat[] stats = new Stat[n];
    @SuppressWarnings("unchecked")
    List<String>[] kids = new List[n];
    CountDownLatch done = new CountDownLatch(children ? 2 * n : n);
    AtomicReference<Code> failure = new AtomicReference<>();
    for (int i = 0; i < n; i++) {
      int index = i;
      zk.getData(
          paths.get(i),
          false,
          (rc, p, ctx, d, stat) -> {
            if (rc == Code.OK.intValue()) {
              data[index] = d == null ? EMPTY : d;
              stats[index] = stat;
            } else {
              failure.compareAndSet(null, Code.get(rc));
            }
            done.countDown();
          },
          null);
      if (children) {
        zk.getChildren(
            paths.get(i),
            false,
            (rc, p, ctx, c) -> {
              if (rc == Code.OK.intValue()) {
                kids[index] = sorted(c);
              } else {
                failure.compareAndSet(null, Code.get(rc));
              }
              done.countDown();
            },
            null);
      }
    }
    if (!done.await(timeoutMs, TimeUnit.MILLISECONDS)) {
      throw KeeperException.create(Code.OPERATIONTIMEOUT);
    }
    if (failure.get() != null) {
      // Nothing else writes these znodes (the ACLs), so a missing one is a failure, not a race.
      throw KeeperException.create(failure.get());
    }
    List<Read> reads = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      reads.add(new Read(paths.get(i), data[i], stats[i], children ? kids[i] : List.of()));
    }
    return reads;
  }

  private static List<String> sorted(List<String> names) {
    List<String> copy = new ArrayList<>(names);
    copy.sort(null);
    return copy;
  }

  /** Splits a snapshot into chunks of about {@link #CHUNK_BYTES}; the last one says so. */
  static List<Message.TransferChunk> chunks(
      long transferId, int sourceDuplicateId, Snapshot snapshot) {
    List<List<Message.TransferChunk.Node>> groups = new ArrayList<>();
    List<Message.TransferChunk.Node> current = new ArrayList<>();
    long bytes = 0;
    for (Message.TransferChunk.Node node : snapshot.nodes()) {
      long size = (long) node.path().length() + node.data().length;
      if (!current.isEmpty()
          && (bytes + size > CHUNK_BYTES
              || current.size() >= WireSettings.MAX_TRANSFER_NODES_PER_CHUNK)) {
        groups.add(current);
        current = new ArrayList<>();
        bytes = 0;
      }
      current.add(node);
      bytes += size;
    }
    groups.add(current);
    List<Message.TransferChunk> chunks = new ArrayList<>(groups.size());
    BookkeepingState state = snapshot.state();
    for (int i = 0; i < groups.size(); i++) {
      chunks.add(
          new Message.TransferChunk(
              transferId,
              sourceDuplicateId,
              state.epoch(),
              state.appliedSeq(),
              state.appliedSeq(),
              i,
              groups.size(),
              groups.get(i)));
    }
    return chunks;
  }

  /**
   * The receiving side of one transfer: collects its chunks (in order, within the size limit, each
   * path under the data root or the client records), then installs them.
   */
  static final class Install {
    private final Znodes znodes;
    private final long maxBytes;
    private final long transferId;
    private final List<Message.TransferChunk.Node> nodes = new ArrayList<>();
    private Message.TransferChunk header;
    private int nextIndex;
    private long bytes;
    private boolean complete;

    Install(Znodes znodes, long maxBytes, long transferId) {
      this.znodes = znodes;
      this.maxBytes = maxBytes;
      this.transferId = transferId;
    }

    long transferId() {
      return transferId;
    }

    /** The header of the last chunk: the state the snapshot is the tree after. */
    Message.TransferChunk header() {
      return header;
    }

    int znodes() {
      return nodes.size();
    }

    long bytes() {
      return bytes;
    }

    /**
     * Adds a chunk.
     *
     * @return true once the last chunk has been added
     * @throws IllegalArgumentException if the chunk is out of order, of another transfer, names a
     *     path outside the data root and client records, or the first node is not the data root
     * @throws TooLargeException if the chunks exceed the limit
     */
    boolean add(Message.TransferChunk chunk) throws TooLargeException {
      if (complete || chunk.transferId() != transferId || chunk.index() != nextIndex) {
        throw new IllegalArgumentException(
            "chunk "
                + chunk.index()
                + " of transfer "
                + chunk.transferId()
                + " out of order: expected chunk "
                + nextIndex
                + " of transfer "
                + transferId);
      }
      if (header != null
          && (header.appliedSeq() != chunk.appliedSeq()
              || header.epoch() != chunk.epoch()
              || header.chunkCount() != chunk.chunkCount())) {
        throw new IllegalArgumentException("chunk " + chunk.index() + " is of another snapshot");
      }
      for (Message.TransferChunk.Node node : chunk.nodes()) {
        String path = node.path();
        boolean data = path.equals(znodes.dataRoot()) || path.startsWith(znodes.dataRoot() + "/");
        boolean record =
            path.startsWith(znodes.clients() + "/")
                && path.indexOf('/', znodes.clients().length() + 1) < 0;
        if (nodes.isEmpty() && !path.equals(znodes.dataRoot())) {
          throw new IllegalArgumentException(
              "the snapshot must start with the data root " + znodes.dataRoot() + ", not " + path);
        }
        if (!data && !record) {
          throw new IllegalArgumentException(
              "the snapshot holds "
                  + path
                  + ", outside the data root "
                  + znodes.dataRoot()
                  + " and the client records "
                  + znodes.clients());
        }
        bytes += path.length() + node.data().length;
        if (bytes > maxBytes) {
          throw new TooLargeException(
              "the snapshot exceeds the state transfer's limit of "
                  + maxBytes
                  + " bytes of"
                  + " paths and data");
        }
        nodes.add(node);
      }
      header = chunk;
      nextIndex++;
      complete = chunk.last();
      return complete;
    }

    /**
     * Replaces this duplicate's data root and client records with the snapshot and records {@code
     * next} in the state znode. The marker znode is created first and deleted in the same multi as
     * the state update, so a plugin that finds it at start knows an install was interrupted (its
     * tree is neither the old one nor the new one).
     *
     * @param stateVersion the state znode's data version
     * @return the state znode's new data version
     */
    int install(
        ZooKeeper zk, List<ACL> acl, BookkeepingState next, int stateVersion, long timeoutMs)
        throws KeeperException, InterruptedException {
      if (!complete) {
        throw new IllegalStateException("the snapshot is incomplete");
      }
      // Checked before anything changes: each parent's children, and the padding its child version
      // needs.
      Map<String, Set<String>> children = new HashMap<>();
      for (Message.TransferChunk.Node node : nodes) {
        String path = node.path();
        if (!path.equals(znodes.dataRoot()) && !path.startsWith(znodes.clients() + "/")) {
          int slash = path.lastIndexOf('/');
          children
              .computeIfAbsent(path.substring(0, slash), p -> new HashSet<>())
              .add(path.substring(slash + 1));
        }
      }
      Map<String, Integer> pads = new HashMap<>();
      for (Message.TransferChunk.Node node : nodes) {
        if (node.path().startsWith(znodes.clients() + "/")) {
          continue;
        }
        int childCount = children.getOrDefault(node.path(), Set.of()).size();
        int excess = node.cversion() - childCount;
        if (excess < 0 || excess % 2 != 0) {
          throw new IllegalArgumentException(
              node.path()
                  + " has child version "
                  + node.cversion()
                  + " with "
                  + childCount
                  + " children: not creates plus deletes of children");
        }
        pads.put(node.path(), excess / 2);
      }
      try {
        zk.create(
            znodes.transferMarker(),
            Long.toString(transferId).getBytes(java.nio.charset.StandardCharsets.UTF_8),
            acl,
            CreateMode.PERSISTENT);
      } catch (KeeperException.NodeExistsException e) {
        // an earlier install was interrupted: this one replaces what it left
      }
      // The marker now says the data root is not to be trusted; the fence's record may go.
      FenceRecord.clear(zk, znodes);
      Batches batches = new Batches(zk);
      // Remove: the old tree, children before parents, and the old client records.
      List<String> old = new ArrayList<>();
      List<String> level = List.of(znodes.dataRoot());
      while (!level.isEmpty()) {
        List<String> next2 = new ArrayList<>();
        for (Read r : readAll(zk, level, true, timeoutMs)) {
          old.add(r.path);
          for (String child : r.children) {
            next2.add(r.path + "/" + child);
          }
        }
        level = next2;
      }
      for (int i = old.size() - 1; i >= 0; i--) {
        batches.add(Op.delete(old.get(i), -1), 0);
      }
      for (String child : zk.getChildren(znodes.clients(), false)) {
        batches.add(Op.delete(znodes.clients() + "/" + child, -1), 0);
      }
      // Create, parents first, each at its data version.
      for (Message.TransferChunk.Node node : nodes) {
        String path = node.path();
        int version = node.version();
        batches.add(
            Op.create(path, version == 0 ? node.data() : EMPTY, acl, CreateMode.PERSISTENT),
            version == 0 ? node.data().length : 0);
        for (int v = 1; v < version; v++) {
          batches.add(Op.setData(path, EMPTY, -1), 0);
        }
        if (version > 0) {
          batches.add(Op.setData(path, node.data(), -1), node.data().length);
        }
      }
      // Raise child versions: each create and each delete of a child counts one.
      for (Map.Entry<String, Integer> padding : pads.entrySet()) {
        String parent = padding.getKey();
        String pad = parent + "/" + padName(children.getOrDefault(parent, Set.of()));
        for (int i = 0; i < padding.getValue(); i++) {
          batches.add(Op.create(pad, EMPTY, acl, CreateMode.PERSISTENT), 0);
          batches.add(Op.delete(pad, -1), 0);
        }
      }
      batches.flush();
      List<org.apache.zookeeper.OpResult> done =
          zk.multi(
              List.of(
                  Op.setData(znodes.state(), next.encode(), stateVersion),
                  Op.delete(znodes.transferMarker(), -1)));
      return ((org.apache.zookeeper.OpResult.SetDataResult) done.get(0)).getStat().getVersion();
    }
  }

  /**
   * Ops gathered into multis of at most {@link #MULTI_MAX_OPS} ops and about {@link
   * #MULTI_MAX_BYTES}.
   */
  private static final class Batches {
    private final ZooKeeper zk;
    private final List<Op> ops = new ArrayList<>();
    private long bytes;

    Batches(ZooKeeper zk) {
      this.zk = zk;
    }

    void add(Op op, int dataBytes) throws KeeperException, InterruptedException {
      if (!ops.isEmpty() && (ops.size() >= MULTI_MAX_OPS || bytes + dataBytes > MULTI_MAX_BYTES)) {
        flush();
      }
      ops.add(op);
      bytes += dataBytes + op.getPath().length();
    }

    void flush() throws KeeperException, InterruptedException {
      if (!ops.isEmpty()) {
        zk.multi(new ArrayList<>(ops));
        ops.clear();
        bytes = 0;
      }
    }
  }
}
