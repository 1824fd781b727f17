package io.zoolander.server.internal.plugin;

import io.zoolander.server.internal.zk.ZkOps;
import io.zoolander.wire.BookkeepingState;
import io.zoolander.wire.ClientRecord;
import io.zoolander.wire.Message;
import io.zoolander.wire.Op;
import io.zoolander.wire.OpResult;
import io.zoolander.wire.Znodes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.common.PathUtils;
import org.apache.zookeeper.data.ACL;

/**
 * Consecutive sequenced writes applied as ONE ZooKeeper multi (one proposal, one fsync). Internal
 * to the plugin; pure functions and an immutable plan, no I/O.
 *
 * <p>The multi is laid out as: {@code setData(<base>/state, (epoch, last seq), stateVersion)}, then
 * one update per distinct client of the batch (its record with an entry per write of the batch, in
 * order, see {@link ClientTable}), then every write's ops in seq order. The state znode jumps from
 * the first write's {@code seq - 1} to the last seq in one version-checked update, so a batch
 * applies exactly once, all or nothing, like a single write.
 *
 * <p>A multi is all or nothing, but each write's result must be as if it were applied alone: a
 * write whose op fails must not fail its neighbours. The applier therefore only batches writes it
 * expects to succeed ({@link ResultPredictor#predictEach}); if the multi fails anyway, {@link
 * #writeOf} names the write whose op failed, the writes before it are applied as a smaller batch
 * and the failing one alone (where its failure still advances the sequence), as in {@code
 * docs/repeater.md}.
 */
final class Batch {

  /**
   * Writes in one batch at most: bounds the multi's size in ops and the work a failing multi
   * wastes.
   */
  static final int MAX_BATCH_WRITES = 64;

  private final List<Message.Sequenced> writes;
  private final List<org.apache.zookeeper.Op> multi;
  private final List<Long> clientIds;
  private final Map<Long, ClientRecord> records;
  private final List<List<OpResult>> predicted;
  private final int recordBytes;
  private final int[] firstOp; // index in the multi of each write's first op

  private Batch(
      List<Message.Sequenced> writes,
      List<org.apache.zookeeper.Op> multi,
      List<Long> clientIds,
      Map<Long, ClientRecord> records,
      List<List<OpResult>> predicted,
      int recordBytes,
      int[] firstOp) {
    this.writes = writes;
    this.multi = multi;
    this.clientIds = clientIds;
    this.records = records;
    this.predicted = predicted;
    this.recordBytes = recordBytes;
    this.firstOp = firstOp;
  }

  /**
   * @param known the record of every client of {@code run}, as the applier knows it
   * @return how many leading writes of {@code run} may go into a batch: it stops before a write
   *     that repeats a request already applied (by the record, or earlier in the run) and before
   *     one whose paths ZooKeeper would refuse; those take the applier's one-at-a-time path
   */
  static int admissible(
      Znodes znodes, List<Message.Sequenced> run, Map<Long, ClientTable.Known> known) {
    Map<Long, Long> highest = new HashMap<>();
    for (int i = 0; i < run.size(); i++) {
      Message.Sequenced write = run.get(i);
      ClientTable.Known k = known.get(write.clientId());
      Long seen = highest.get(write.clientId());
      if (k == null
          || (k.record() != null && k.record().isDuplicate(write.requestId()))
          || (seen != null && write.requestId() <= seen)
          || !valid(znodes, write.ops())) {
        return i;
      }
      highest.put(write.clientId(), write.requestId());
    }
    return run.size();
  }

  private static boolean valid(Znodes znodes, List<Op> ops) {
    try {
      for (Op op : ops) {
        if (op instanceof Op.Create c) {
          PathUtils.validatePath(ZkOps.createPath(znodes, c), c.mode().isSequential());
        } else if (op instanceof Op.Delete d && d.path().equals("/")) {
          return false; // refused deterministically by the one-at-a-time path (BADARGUMENTS)
        } else {
          PathUtils.validatePath(znodes.toZnode(op.path()));
        }
      }
      return true;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  /**
   * @return the ops of each write of {@code run}
   */
  static List<List<Op>> opsOf(List<Message.Sequenced> run) {
    List<List<Op>> ops = new ArrayList<>(run.size());
    for (Message.Sequenced write : run) {
      ops.add(write.ops());
    }
    return ops;
  }

  /**
   * @param run consecutive writes, the first at {@code appliedSeq + 1}, all {@link #admissible}
   * @param known the record of every client of {@code run}
   * @param predicted each write's predicted results, in order
   * @param next the state after the batch: the last write's seq
   * @param stateVersion the state znode's current data version
   */
  static Batch plan(
      Znodes znodes,
      List<ACL> acl,
      ClientTable clients,
      List<Message.Sequenced> run,
      Map<Long, ClientTable.Known> known,
      List<List<OpResult>> predicted,
      BookkeepingState next,
      int stateVersion) {
    if (predicted.size() != run.size()) {
      throw new IllegalArgumentException(
          "predicted: one result list per write, " + run.size() + ", not " + predicted.size());
    }
    // Each client's record once for the batch, not once per write: the same window either way.
    Map<Long, List<ClientRecord.Entry>> outcomes = new LinkedHashMap<>();
    for (int i = 0; i < run.size(); i++) {
      Message.Sequenced write = run.get(i);
      outcomes
          .computeIfAbsent(write.clientId(), c -> new ArrayList<>())
          .add(new ClientRecord.Entry(write.requestId(), write.seq(), predicted.get(i)));
    }
    Map<Long, ClientRecord> records = new LinkedHashMap<>();
    outcomes.forEach(
        (clientId, entries) -> {
          ClientRecord base = known.get(clientId).record();
          records.put(
              clientId, base == null ? ClientRecord.first(entries) : base.appendAll(entries));
        });
    List<Long> clientIds = List.copyOf(records.keySet());
    List<org.apache.zookeeper.Op> multi = new ArrayList<>();
    multi.add(ZkOps.stateUpdate(znodes, next, stateVersion));
    int recordBytes = 0;
    for (long clientId : clientIds) {
      byte[] encoded = records.get(clientId).encode();
      recordBytes += encoded.length;
      multi.add(clients.update(clientId, known.get(clientId), encoded));
    }
    int[] firstOp = new int[run.size()];
    for (int i = 0; i < run.size(); i++) {
      firstOp[i] = multi.size();
      for (Op op : run.get(i).ops()) {
        multi.add(ZkOps.toZooKeeper(znodes, op, acl));
      }
    }
    return new Batch(
        List.copyOf(run),
        List.copyOf(multi),
        clientIds,
        records,
        List.copyOf(predicted),
        recordBytes,
        firstOp);
  }

  List<Message.Sequenced> writes() {
    return writes;
  }

  List<org.apache.zookeeper.Op> multi() {
    return multi;
  }

  List<Long> clientIds() {
    return clientIds;
  }

  /**
   * @return the record of {@code clientId} after the batch, holding the predicted results
   */
  ClientRecord record(long clientId) {
    return records.get(clientId);
  }

  List<List<OpResult>> predicted() {
    return predicted;
  }

  /** Whether the ZooKeeper server accepts the multi as one request ({@code jute.maxbuffer}). */
  boolean fits(int maxRequestBytes) {
    List<Op> ops = new ArrayList<>();
    for (Message.Sequenced write : writes) {
      ops.addAll(write.ops());
    }
    return ZkOps.fitsInOneRequest(multi, ops, recordBytes, maxRequestBytes);
  }

  /**
   * @param failed the results of the failed multi (ZooKeeper's convention: ops before the failing
   *     one OK, the failing one its code, later ones RUNTIMEINCONSISTENCY)
   * @return the index of the write whose op failed; -1 if a bookkeeping update failed (or the
   *     results say nothing)
   */
  int writeOf(List<org.apache.zookeeper.OpResult> failed) {
    if (failed == null || failed.size() != multi.size()) {
      return -1;
    }
    int index = -1;
    for (int i = 0; i < failed.size(); i++) {
      if (failed.get(i) instanceof org.apache.zookeeper.OpResult.ErrorResult e
          && e.getErr() != 0
          && e.getErr() != Code.RUNTIMEINCONSISTENCY.intValue()) {
        index = i;
        break;
      }
    }
    if (index < firstOp[0]) {
      return -1;
    }
    int write = 0;
    while (write + 1 < firstOp.length && firstOp[write + 1] <= index) {
      write++;
    }
    return write;
  }

  /**
   * @return each write's wire results, from the results of the successful multi
   */
  List<List<OpResult>> results(Znodes znodes, List<org.apache.zookeeper.OpResult> done) {
    List<List<OpResult>> out = new ArrayList<>(writes.size());
    for (int i = 0; i < writes.size(); i++) {
      List<OpResult> one = new ArrayList<>(writes.get(i).ops().size());
      for (int j = 0; j < writes.get(i).ops().size(); j++) {
        one.add(ZkOps.toWire(znodes, done.get(firstOp[i] + j)));
      }
      out.add(one);
    }
    return out;
  }

  /**
   * @return the new data version of the record of {@code clientIds().get(index)}, from the
   *     successful multi
   */
  static int clientVersion(List<org.apache.zookeeper.OpResult> done, int index) {
    return done.get(1 + index) instanceof org.apache.zookeeper.OpResult.SetDataResult s
        ? s.getStat().getVersion()
        : 0;
  }
}
