package io.zoolander.server.internal.leader;

import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.apache.zookeeper.ZooDefs.OpCode;
import org.apache.zookeeper.server.DataTree.ProcessTxnResult;
import org.apache.zookeeper.server.Request;

/**
 * The observers of a leader's applied writes under a path prefix. {@link #applied} runs on
 * ZooKeeper's thread that applied the transaction (the commit processor's), for every transaction;
 * observers must be quick and must not block. Thread-safe.
 *
 * <p>The leader serves from {@code startup()} on, but its plugin starts asynchronously and observes
 * a moment later: a plain client's write in between would go unseen, and the duplicate would differ
 * from the others silently. So while nobody observes, the writes applied are kept (at most {@link
 * #KEPT_WHILE_UNOBSERVED}) and each new observer is told of those under its prefix first; if more
 * were applied than kept, it is told of one {@link AppliedWrite#missed} write under its prefix,
 * which it must treat as foreign.
 */
final class WriteObservers {

  /** How many writes applied while nobody observes are kept for the next observer. */
  static final int KEPT_WHILE_UNOBSERVED = 4_096;

  private record Observer(String prefix, Consumer<AppliedWrite> onWrite) {
    boolean covers(String path) {
      return path.equals(prefix) || path.startsWith(prefix + "/");
    }
  }

  private final CopyOnWriteArrayList<Observer> observers = new CopyOnWriteArrayList<>();

  // Guarded by this: the writes applied while nobody observed, and whether some were dropped.
  private final ArrayDeque<AppliedWrite> unobserved = new ArrayDeque<>();
  private boolean droppedUnobserved;

  AutoCloseable add(String prefix, Consumer<AppliedWrite> onWrite) {
    Observer o = new Observer(prefix, onWrite);
    List<AppliedWrite> before;
    boolean dropped;
    synchronized (this) {
      before = List.copyOf(unobserved);
      dropped = droppedUnobserved;
      unobserved.clear();
      droppedUnobserved = false;
      observers.add(o);
    }
    if (dropped) {
      onWrite.accept(AppliedWrite.missed(prefix));
    }
    for (AppliedWrite w : before) {
      if (o.covers(w.path())) {
        onWrite.accept(w);
      }
    }
    return () -> observers.remove(o);
  }

  /** A transaction the leader applied, and what became of it. */
  void applied(Request request, ProcessTxnResult rc) {
    if (request.getHdr() == null || rc == null) {
      return;
    }
    if (rc.multiResult != null) {
      for (ProcessTxnResult op : rc.multiResult) {
        report(rc.clientId, op);
      }
    } else {
      report(rc.clientId, rc);
    }
  }

  private void report(long sessionId, ProcessTxnResult op) {
    if (op.err != 0 || op.path == null || !isWrite(op.type)) {
      return;
    }
    if (observers.isEmpty()
        && keptUnobserved(new AppliedWrite(sessionId, Request.op2String(op.type), op.path))) {
      return;
    }
    for (Observer o : observers) {
      if (o.covers(op.path)) {
        o.onWrite().accept(new AppliedWrite(sessionId, Request.op2String(op.type), op.path));
      }
    }
  }

  /** Keeps a write for the next observer if there is still none; false if there is one now. */
  private synchronized boolean keptUnobserved(AppliedWrite write) {
    if (!observers.isEmpty()) {
      return false;
    }
    if (unobserved.size() == KEPT_WHILE_UNOBSERVED) {
      unobserved.removeFirst();
      droppedUnobserved = true;
    }
    unobserved.addLast(write);
    return true;
  }

  private static boolean isWrite(int type) {
    return switch (type) {
      case OpCode.create,
          OpCode.create2,
          OpCode.createContainer,
          OpCode.createTTL,
          OpCode.delete,
          OpCode.deleteContainer,
          OpCode.setData,
          OpCode.setACL ->
          true;
      default -> false;
    };
  }
}
