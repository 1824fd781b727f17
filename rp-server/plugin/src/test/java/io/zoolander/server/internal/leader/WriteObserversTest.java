package io.zoolander.server.internal.leader;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.apache.zookeeper.ZooDefs.OpCode;
import org.apache.zookeeper.server.DataTree.ProcessTxnResult;
import org.apache.zookeeper.server.Request;
import org.apache.zookeeper.txn.TxnHeader;
import org.junit.jupiter.api.Test;

class WriteObserversTest {
  private final WriteObservers observers = new WriteObservers();
  private final List<AppliedWrite> seen = new ArrayList<>();

  private void apply(long session, int type, String path) {
    Request request = new Request(session, 1, type, new TxnHeader(session, 1, 1, 1, type), null, 1);
    ProcessTxnResult rc = new ProcessTxnResult();
    rc.clientId = session;
    rc.type = type;
    rc.path = path;
    observers.applied(request, rc);
  }

  @Test
  void reportsWritesUnderThePrefixOnly() throws Exception {
    try (AutoCloseable registration = observers.add("/z/data", seen::add)) {
      apply(7, OpCode.setData, "/z/data/a");
      apply(7, OpCode.create, "/z/other");
      apply(7, OpCode.create, "/z/database");
    }
    apply(7, OpCode.delete, "/z/data/a");
    assertThat(seen).containsExactly(new AppliedWrite(7, "setData", "/z/data/a"));
  }

  /** The gap the chaos test found: a plain client's write before the plugin observed. */
  @Test
  void writesAppliedBeforeAnyObserverAreReportedToTheFirst() throws Exception {
    apply(9, OpCode.create, "/z/data/behind-its-back");
    apply(9, OpCode.create, "/z/endpoint");
    try (AutoCloseable registration = observers.add("/z/data", seen::add)) {
      assertThat(seen).containsExactly(new AppliedWrite(9, "create", "/z/data/behind-its-back"));
      apply(9, OpCode.setData, "/z/data/x");
    }
    assertThat(seen).hasSize(2);

    // Reported once: a later observer hears only of what was applied while nobody observed.
    List<AppliedWrite> later = new ArrayList<>();
    try (AutoCloseable registration = observers.add("/z/data", later::add)) {
      assertThat(later).isEmpty();
    }
  }

  @Test
  void moreUnobservedWritesThanKeptAreReportedAsMissed() throws Exception {
    for (int i = 0; i <= WriteObservers.KEPT_WHILE_UNOBSERVED; i++) {
      apply(9, OpCode.create, "/elsewhere/" + i);
    }
    try (AutoCloseable registration = observers.add("/z/data", seen::add)) {
      assertThat(seen).containsExactly(AppliedWrite.missed("/z/data"));
      assertThat(seen.get(0).sessionId()).isEqualTo(AppliedWrite.NO_SESSION);
    }
  }
}
