package io.zoolander.server.internal.plugin;

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

/**
 * Translates a sequenced write into one ZooKeeper multi and its ZooKeeper results back into wire results. Pure
 * functions, no I/O.
 *
 * <p>The multi's first op is always the bookkeeping update, {@code setData(<base>/state, newState,
 * stateVersion)}; the write's ops follow with their paths resolved under the data root, so results of the write's op
 * {@code i} are at index {@code i + 1}.
 *
 * <p>Deleting the data root itself ({@code delete("/")}) would leave every duplicate without a place for the
 * application's tree; it is refused deterministically: the op is sent as a check that always fails ({@code
 * check(<base>/state, -2)}, BADVERSION), so the multi fails exactly where ZooKeeper's own ordering says, and its code
 * is reported as {@link Code#BADARGUMENTS}.
 */
final class ZkOps {

    /** A version no znode ever has: a check against it always fails with BADVERSION. */
    private static final int IMPOSSIBLE_VERSION = -2;

    /** Bytes of the request header (xid, type) ZooKeeper counts in a request's length. */
    private static final int REQUEST_HEADER_BYTES = 8;
    /** Generous per-request and per-op overheads of the estimate (headers, the state update, an ACL, versions). */
    private static final int REQUEST_OVERHEAD_BYTES = 1_024;
    private static final int OP_OVERHEAD_BYTES = 128;
    /** Below the limit by this much, the estimate alone decides. */
    private static final int EXACT_CHECK_MARGIN_BYTES = 64 * 1024;

    private ZkOps() {
    }

    /** @return the ZooKeeper multi applying {@code ops} and recording {@code newState} at {@code stateVersion} */
    static List<org.apache.zookeeper.Op> multi(Znodes znodes, BookkeepingState newState, int stateVersion,
            List<Op> ops) {
        List<org.apache.zookeeper.Op> multi = new ArrayList<>(ops.size() + 1);
        multi.add(stateUpdate(znodes, newState, stateVersion));
        for (Op op : ops) {
            multi.add(toZooKeeper(znodes, op));
        }
        return multi;
    }

    /**
     * Whether the ZooKeeper server would accept {@code multi} as one request: a request longer than {@code
     * jute.maxbuffer} makes the server drop the connection, which the plugin would see as a connection loss and retry
     * forever. The exact size is only computed when a cheap estimate comes near the limit.
     *
     * @param maxRequestBytes the server's {@code jute.maxbuffer}
     */
    static boolean fitsInOneRequest(List<org.apache.zookeeper.Op> multi, List<Op> ops, int maxRequestBytes) {
        long estimate = REQUEST_OVERHEAD_BYTES;
        for (Op op : ops) {
            estimate += op.path().length() * 3L + OP_OVERHEAD_BYTES + dataLength(op);
        }
        if (estimate < maxRequestBytes - EXACT_CHECK_MARGIN_BYTES) {
            return true;
        }
        CountingStream counter = new CountingStream();
        try {
            new MultiOperationRecord(multi).serialize(BinaryOutputArchive.getArchive(counter), "request");
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a counting stream does not fail
        }
        return REQUEST_HEADER_BYTES + counter.count <= maxRequestBytes;
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

    /** @return {@code setData(<base>/state, newState, stateVersion)} */
    static org.apache.zookeeper.Op stateUpdate(Znodes znodes, BookkeepingState newState, int stateVersion) {
        return org.apache.zookeeper.Op.setData(znodes.state(), newState.encode(), stateVersion);
    }

    static org.apache.zookeeper.Op toZooKeeper(Znodes znodes, Op op) {
        String znode = znodes.toZnode(op.path());
        if (op instanceof Op.Create c) {
            return org.apache.zookeeper.Op.create(znode, c.data(), ZooDefs.Ids.OPEN_ACL_UNSAFE, c.mode());
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
    static List<OpResult> succeeded(Znodes znodes, List<org.apache.zookeeper.OpResult> results) {
        List<OpResult> out = new ArrayList<>(results.size() - 1);
        for (int i = 1; i < results.size(); i++) {
            out.add(toWire(znodes, results.get(i)));
        }
        return out;
    }

    private static OpResult toWire(Znodes znodes, org.apache.zookeeper.OpResult r) {
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
     * @param results the results of a multi built by {@link #multi} that failed on one of the write's ops, in
     *     ZooKeeper's convention (earlier ops OK, rolled back; the failing op its code; later ops
     *     RUNTIMEINCONSISTENCY)
     * @param ops the write's ops
     * @return the wire results of the write's ops, all {@link OpResult.Failed}
     */
    static List<OpResult> failed(List<org.apache.zookeeper.OpResult> results, List<Op> ops) {
        List<OpResult> out = new ArrayList<>(ops.size());
        for (int i = 0; i < ops.size(); i++) {
            org.apache.zookeeper.OpResult r = results.get(i + 1);
            Code code = r instanceof org.apache.zookeeper.OpResult.ErrorResult e
                    ? Code.get(e.getErr())
                    : Code.OK; // a multi's results are all ErrorResults when it fails; be lenient anyway
            if (code == Code.BADVERSION && ops.get(i) instanceof Op.Delete d && isDataRoot(d)) {
                code = Code.BADARGUMENTS;
            }
            out.add(new OpResult.Failed(code));
        }
        return out;
    }

    /** @return the code of the multi's state update (index 0) in a failed multi's results */
    static Code stateUpdateCode(List<org.apache.zookeeper.OpResult> results) {
        return results.get(0) instanceof org.apache.zookeeper.OpResult.ErrorResult e ? Code.get(e.getErr()) : Code.OK;
    }

    private static boolean isDataRoot(Op.Delete delete) {
        return delete.path().equals("/");
    }
}
