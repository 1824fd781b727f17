package io.zoolander.server.internal.zk;

import io.zoolander.wire.BookkeepingState;
import io.zoolander.wire.Op;
import io.zoolander.wire.OpResult;
import io.zoolander.wire.Znodes;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.jute.BinaryOutputArchive;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.MultiOperationRecord;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;

/**
 * Translates a sequenced write into one ZooKeeper multi and its ZooKeeper results back into wire
 * results. Pure functions, no I/O.
 *
 * <p>The multi's first {@link #BOOKKEEPING_OPS} ops are the bookkeeping updates: {@code
 * setData(<base>/state, newState, stateVersion)}, then the update of the writing client's record
 * ({@code create} or version-checked {@code setData} of {@code <base>/clients/<clientId>}, see the
 * plugin's {@code ClientTable}); the write's ops follow with their paths resolved under the data
 * root, so results of the write's op {@code i} are at index {@code i + BOOKKEEPING_OPS}.
 *
 * <p>Deleting the data root itself ({@code delete("/")}) would leave every duplicate without a
 * place for the application's tree; it is refused deterministically: the op is sent as a check that
 * always fails ({@code check(<base>/state, -2)}, BADVERSION), so the multi fails exactly where
 * ZooKeeper's own ordering says, and its code is reported as {@link Code#BADARGUMENTS}.
 */
public final class ZkOps {

  /** A version no znode ever has: a check against it always fails with BADVERSION. */
  private static final int IMPOSSIBLE_VERSION = -2;

  /** Bytes of the request header (xid, type) ZooKeeper counts in a request's length. */
  private static final int REQUEST_HEADER_BYTES = 8;

  /**
   * Generous per-request and per-op overheads of the estimate (headers, the state update, an ACL,
   * versions).
   */
  private static final int REQUEST_OVERHEAD_BYTES = 1_024;

  private static final int OP_OVERHEAD_BYTES = 128;

  /** Below the limit by this much, the estimate alone decides. */
  private static final int EXACT_CHECK_MARGIN_BYTES = 64 * 1024;

  /**
   * The bookkeeping ops in front of a write's ops: the state update and the client record update.
   */
  public static final int BOOKKEEPING_OPS = 2;

  private ZkOps() {}

  /**
   * @param clientUpdate the update of the writing client's record ({@code ClientTable.update} in
   *     the plugin)
   * @return the ZooKeeper multi applying {@code ops}, recording {@code newState} at {@code
   *     stateVersion} and updating the client's record
   */
  public static List<org.apache.zookeeper.Op> multi(
      Znodes znodes,
      BookkeepingState newState,
      int stateVersion,
      org.apache.zookeeper.Op clientUpdate,
      List<Op> ops) {
    return multi(znodes, newState, stateVersion, clientUpdate, ops, ZooDefs.Ids.OPEN_ACL_UNSAFE);
  }

  /**
   * As {@link #multi(Znodes, BookkeepingState, int, org.apache.zookeeper.Op, List)}, creating
   * znodes with acl.
   */
  public static List<org.apache.zookeeper.Op> multi(
      Znodes znodes,
      BookkeepingState newState,
      int stateVersion,
      org.apache.zookeeper.Op clientUpdate,
      List<Op> ops,
      List<ACL> acl) {
    List<org.apache.zookeeper.Op> multi = new ArrayList<>(ops.size() + BOOKKEEPING_OPS);
    multi.add(stateUpdate(znodes, newState, stateVersion));
    multi.add(clientUpdate);
    for (Op op : ops) {
      multi.add(toZooKeeper(znodes, op, acl));
    }
    return multi;
  }

  /**
   * Whether the ZooKeeper server would accept {@code multi} as one request: a request longer than
   * {@code jute.maxbuffer} makes the server drop the connection, which the plugin would see as a
   * connection loss and retry forever. The exact size is only computed when a cheap estimate comes
   * near the limit.
   *
   * @param bookkeepingBytes the data length of the bookkeeping updates (the client record)
   * @param maxRequestBytes the server's {@code jute.maxbuffer}
   */
  public static boolean fitsInOneRequest(
      List<org.apache.zookeeper.Op> multi,
      List<Op> ops,
      int bookkeepingBytes,
      int maxRequestBytes) {
    return surelyFits(ops, bookkeepingBytes, maxRequestBytes)
        || requestBytes(multi) <= maxRequestBytes;
  }

  /**
   * Whether a cheap, generous estimate of the multi's size is so far below the limit that no exact
   * size is needed.
   */
  public static boolean surelyFits(List<Op> ops, int bookkeepingBytes, int maxRequestBytes) {
    long estimate = (long) REQUEST_OVERHEAD_BYTES + bookkeepingBytes;
    for (Op op : ops) {
      estimate += op.path().length() * 3L + OP_OVERHEAD_BYTES + dataLength(op);
    }
    return estimate < maxRequestBytes - EXACT_CHECK_MARGIN_BYTES;
  }

  /** The exact length ZooKeeper counts for {@code multi} as one request. */
  public static long requestBytes(List<org.apache.zookeeper.Op> multi) {
    CountingStream counter = new CountingStream();
    try {
      new MultiOperationRecord(multi).serialize(BinaryOutputArchive.getArchive(counter), "request");
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a counting stream does not fail
    }
    return REQUEST_HEADER_BYTES + counter.count;
  }

  private static long dataLength(Op op) {
    if (op instanceof Op.Create c) {
      return c.data().length;
    } else if (op instanceof Op.SetData s) {
      return s.data().length;
    }
    return 0;
  }

  private static final class CountingStream extends OutputStream {
    long count;

    @Override
    public void write(int b) {
      count++;
    }

    @Override
    public void write(byte[] b, int off, int len) {
      count += len;
    }
  }

  /**
   * @return {@code setData(<base>/state, newState, stateVersion)}
   */
  public static org.apache.zookeeper.Op stateUpdate(
      Znodes znodes, BookkeepingState newState, int stateVersion) {
    return org.apache.zookeeper.Op.setData(znodes.state(), newState.encode(), stateVersion);
  }

  /**
   * The znode path a create is sent with. A sequential create of {@code "/"} names a child of the
   * data root, as ZooKeeper's names a child of its root: {@code <base>/data/0000000007}, not the
   * data root's sibling {@code <base>/data0000000007}.
   */
  public static String createPath(Znodes znodes, Op.Create create) {
    return create.mode().isSequential() && create.path().equals("/")
        ? znodes.dataRoot() + "/"
        : znodes.toZnode(create.path());
  }

  public static org.apache.zookeeper.Op toZooKeeper(Znodes znodes, Op op) {
    return toZooKeeper(znodes, op, ZooDefs.Ids.OPEN_ACL_UNSAFE);
  }

  public static org.apache.zookeeper.Op toZooKeeper(Znodes znodes, Op op, List<ACL> acl) {
    String znode = znodes.toZnode(op.path());
    if (op instanceof Op.Create c) {
      return org.apache.zookeeper.Op.create(createPath(znodes, c), c.data(), acl, c.mode());
    } else if (op instanceof Op.SetData s) {
      return org.apache.zookeeper.Op.setData(znode, s.data(), s.version());
    } else if (op instanceof Op.Delete d) {
      return isDataRoot(d)
          ? org.apache.zookeeper.Op.check(znodes.state(), IMPOSSIBLE_VERSION)
          : org.apache.zookeeper.Op.delete(znode, d.version());
    } else if (op instanceof Op.Check c) {
      return org.apache.zookeeper.Op.check(znode, c.version());
    }
    throw new IllegalArgumentException("Unknown op " + op);
  }

  /**
   * @param results the results of a successful multi built by {@link #multi}
   * @return the wire results of the write's ops, paths relative to the data root
   */
  public static List<OpResult> succeeded(
      Znodes znodes, List<org.apache.zookeeper.OpResult> results) {
    List<OpResult> out = new ArrayList<>(results.size() - BOOKKEEPING_OPS);
    for (int i = BOOKKEEPING_OPS; i < results.size(); i++) {
      out.add(toWire(znodes, results.get(i)));
    }
    return out;
  }

  public static OpResult toWire(Znodes znodes, org.apache.zookeeper.OpResult r) {
    if (r instanceof org.apache.zookeeper.OpResult.CreateResult c) {
      return new OpResult.Created(znodes.toApplicationPath(c.getPath()));
    } else if (r instanceof org.apache.zookeeper.OpResult.SetDataResult s) {
      return new OpResult.DataSet(s.getStat().getVersion());
    } else if (r instanceof org.apache.zookeeper.OpResult.DeleteResult) {
      return new OpResult.Deleted();
    } else if (r instanceof org.apache.zookeeper.OpResult.CheckResult) {
      return new OpResult.Checked();
    } else if (r instanceof org.apache.zookeeper.OpResult.ErrorResult e) {
      return new OpResult.Failed(Code.get(e.getErr()));
    }
    throw new IllegalStateException("Unexpected ZooKeeper result " + r);
  }

  /**
   * @param results the results of a multi built by {@link #multi} that failed on one of the write's
   *     ops, in ZooKeeper's convention (earlier ops OK, rolled back; the failing op its code; later
   *     ops RUNTIMEINCONSISTENCY)
   * @param ops the write's ops
   * @return the wire results of the write's ops, all {@link OpResult.Failed}
   */
  public static List<OpResult> failed(List<org.apache.zookeeper.OpResult> results, List<Op> ops) {
    List<OpResult> out = new ArrayList<>(ops.size());
    for (int i = 0; i < ops.size(); i++) {
      org.apache.zookeeper.OpResult r = results.get(i + BOOKKEEPING_OPS);
      Code code =
          r instanceof org.apache.zookeeper.OpResult.ErrorResult e
              ? Code.get(e.getErr())
              : Code.OK; // a multi's results are all ErrorResults when it fails; be lenient anyway
      if (code == Code.BADVERSION && ops.get(i) instanceof Op.Delete d && isDataRoot(d)) {
        code = Code.BADARGUMENTS;
      }
      out.add(new OpResult.Failed(code));
    }
    return out;
  }

  /**
   * @return the code of the multi's state update (index 0) in a failed multi's results
   */
  public static Code stateUpdateCode(List<org.apache.zookeeper.OpResult> results) {
    return code(results, 0);
  }

  /**
   * @return the code of the multi's client record update (index 1) in a failed multi's results
   */
  public static Code clientUpdateCode(List<org.apache.zookeeper.OpResult> results) {
    return code(results, 1);
  }

  private static Code code(List<org.apache.zookeeper.OpResult> results, int index) {
    return results.size() > index
            && results.get(index) instanceof org.apache.zookeeper.OpResult.ErrorResult e
        ? Code.get(e.getErr())
        : Code.OK;
  }

  /**
   * @return the state znode's new data version, from a successful multi's results
   */
  public static int stateVersion(List<org.apache.zookeeper.OpResult> results) {
    return ((org.apache.zookeeper.OpResult.SetDataResult) results.get(0)).getStat().getVersion();
  }

  /**
   * @return the client record's new data version, from a successful multi's results (0 when it was
   *     created)
   */
  public static int clientVersion(List<org.apache.zookeeper.OpResult> results) {
    return results.get(1) instanceof org.apache.zookeeper.OpResult.SetDataResult s
        ? s.getStat().getVersion()
        : 0;
  }

  private static boolean isDataRoot(Op.Delete delete) {
    return delete.path().equals("/");
  }
}
