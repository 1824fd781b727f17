package io.zoolander.server.internal.leader;

import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.apache.zookeeper.ZooDefs.OpCode;
import org.apache.zookeeper.server.DataTree.ProcessTxnResult;
import org.apache.zookeeper.server.Request;

/**
 * The observers of a leader's applied writes under a path prefix. {@link #applied} runs on
 * ZooKeeper's thread that applied the transaction (the commit processor's), for every transaction:
 * it returns at once when nobody observes, and observers must be quick and must not block.
 * Thread-safe.
 */
final class WriteObservers {

  private record Observer(String prefix, Consumer<AppliedWrite> onWrite) {
    boolean covers(String path) {
      return path.equals(prefix) || path.startsWith(prefix + "/");
    }
  }

  private final CopyOnWriteArrayList<Observer> observers = new CopyOnWriteArrayList<>();

  AutoCloseable add(String prefix, Consumer<AppliedWrite> onWrite) {
    Observer o = new Observer(prefix, onWrite);
    observers.add(o);
    return () -> observers.remove(o);
  }

  /** A transaction the leader applied, and what became of it. */
  void applied(Request request, ProcessTxnResult rc) {
    if (observers.isEmpty() || request.getHdr() == null || rc == null) {
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
    for (Observer o : observers) {
      if (o.covers(op.path)) {
        o.onWrite().accept(new AppliedWrite(sessionId, Request.op2String(op.type), op.path));
      }
    }
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
