package org.apache.zookeeper.server;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.security.cert.Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.jute.Record;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.MultiOperationRecord;
import org.apache.zookeeper.MultiResponse;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.ZooDefs.OpCode;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.data.Stat;
import org.apache.zookeeper.proto.ReplyHeader;

/**
 * Zoolander's in-process connection to a ZooKeeper server's request pipeline: the plugin submits
 * its multis here instead of sending them over a loopback socket through a ZooKeeper client. A
 * request takes the path of any client request (throttling, {@code PrepRequestProcessor} with its
 * ACL checks against this connection's identities, the quorum proposal, the commit, {@code
 * FinalRequestProcessor}), and its completion runs when the server would have sent the reply: after
 * the quorum committed it and the server applied it.
 *
 * <p><b>Internal</b> to Zoolander's plugin, and the one Zoolander class in ZooKeeper's package:
 * {@link ServerCnxn} has package-private abstract methods and requests are built from a
 * package-private {@code RequestRecord}. It follows ZooKeeper 3.9.5's internals, which is why the
 * ZooKeeper version is pinned; the rest of the ZooKeeper-internal code is in {@code
 * io.zoolander.server.internal.leader}.
 *
 * <p>The connection borrows a live session (the plugin's own ZooKeeper client session): the
 * pipeline refuses a request whose session is unknown. Requests of one connection are applied in
 * the order they were submitted (ZooKeeper keeps a session's requests in order). Thread-safe.
 */
public final class ZoolanderLocalConnection extends ServerCnxn {

  /** What became of one multi. Runs on ZooKeeper's thread that applied it: keep it short. */
  @FunctionalInterface
  public interface Completion {
    /**
     * @param rc {@code OK}, the code of the first op that failed (as the ZooKeeper client reports
     *     it), or the code that failed the whole request (then {@code results} is null)
     * @param results one result per op, or null
     */
    void completed(Code rc, List<OpResult> results);
  }

  private final long sessionId;
  private final int sessionTimeoutMs;
  private final List<Id> identities;
  private final AtomicInteger xids = new AtomicInteger();
  private final Map<Integer, Completion> pending = new ConcurrentHashMap<>();
  private volatile boolean closed;

  /**
   * @param server the (leader's) ZooKeeper server, running
   * @param sessionId a live session the requests are made in
   * @param sessionTimeoutMs that session's timeout
   * @param identities the identities ACLs are checked against (as a client's {@code addAuthInfo}
   *     gives them)
   */
  public ZoolanderLocalConnection(
      ZooKeeperServer server, long sessionId, int sessionTimeoutMs, List<Id> identities) {
    super(Objects.requireNonNull(server, "server"));
    if (sessionTimeoutMs <= 0) {
      throw new IllegalArgumentException("sessionTimeoutMs must be > 0, was " + sessionTimeoutMs);
    }
    this.sessionId = sessionId;
    this.sessionTimeoutMs = sessionTimeoutMs;
    this.identities = List.copyOf(Objects.requireNonNull(identities, "identities"));
    this.identities.forEach(this::addAuthInfo);
  }

  /**
   * Submits {@code ops} as one multi; {@code done} runs once, when it is applied or failed.
   *
   * @throws IllegalStateException if the connection is closed
   */
  public void submitMulti(List<Op> ops, Completion done) {
    Objects.requireNonNull(ops, "ops");
    Objects.requireNonNull(done, "done");
    if (closed) {
      throw new IllegalStateException(
          "the local connection of session 0x" + Long.toHexString(sessionId) + " is closed");
    }
    int xid = xids.incrementAndGet();
    pending.put(xid, done);
    Request request =
        new Request(
            this,
            sessionId,
            xid,
            OpCode.multi,
            RequestRecord.fromRecord(new MultiOperationRecord(ops)),
            new ArrayList<>(getAuthInfo()));
    request.setOwner(ServerCnxn.me);
    zkServer.submitRequest(request);
    if (closed) {
      fail(xid, Code.CONNECTIONLOSS);
    }
  }

  /** Requests submitted and not completed yet. */
  public int pendingRequests() {
    return pending.size();
  }

  @Override
  public int sendResponse(
      ReplyHeader h, Record r, String tag, String cacheKey, Stat stat, int opCode) {
    Completion done = pending.remove(h.getXid());
    if (done == null) {
      return 0; // not a reply to one of ours (a ping or a close)
    }
    Code rc = Code.get(h.getErr());
    if (rc != Code.OK || !(r instanceof MultiResponse response)) {
      done.completed(rc == Code.OK ? Code.SYSTEMERROR : rc, null);
      return 0;
    }
    List<OpResult> results = response.getResultList();
    // As ZooKeeper's client reports a multi: the code of its first failed op.
    Code first = Code.OK;
    for (OpResult result : results) {
      if (result instanceof OpResult.ErrorResult error && error.getErr() != Code.OK.intValue()) {
        first = Code.get(error.getErr());
        break;
      }
    }
    done.completed(first, results);
    return 0;
  }

  @Override
  public void close(DisconnectReason reason) {
    closed = true;
    for (Integer xid : List.copyOf(pending.keySet())) {
      fail(xid, Code.CONNECTIONLOSS);
    }
  }

  private void fail(int xid, Code rc) {
    Completion done = pending.remove(xid);
    if (done != null) {
      done.completed(rc, null);
    }
  }

  @Override
  public void sendCloseSession() {
    close(DisconnectReason.CLIENT_CLOSED_SESSION);
  }

  @Override
  public void process(WatchedEvent event, List<ACL> znodeAcl) {
    // Sets no watches.
  }

  @Override
  public long getSessionId() {
    return sessionId;
  }

  @Override
  void setSessionId(long sessionId) {
    throw new UnsupportedOperationException("a local connection keeps the session it was made for");
  }

  @Override
  int getSessionTimeout() {
    return sessionTimeoutMs;
  }

  @Override
  void setSessionTimeout(int sessionTimeout) {
    throw new UnsupportedOperationException("a local connection keeps the session it was made for");
  }

  @Override
  void sendBuffer(ByteBuffer... buffers) {
    // Nothing goes over a socket.
  }

  @Override
  void enableRecv() {}

  @Override
  void disableRecv(boolean waitDisableRecv) {}

  @Override
  protected ServerStats serverStats() {
    return zkServer.serverStats();
  }

  @Override
  public InetSocketAddress getRemoteSocketAddress() {
    return null;
  }

  @Override
  public int getInterestOps() {
    return 0;
  }

  @Override
  public boolean isSecure() {
    return false;
  }

  @Override
  public Certificate[] getClientCertificateChain() {
    return null;
  }

  @Override
  public void setClientCertificateChain(Certificate[] chain) {
    throw new UnsupportedOperationException("a local connection has no certificate");
  }
}
