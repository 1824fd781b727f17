package io.zoolander.server.internal.plugin;

import io.netty.channel.Channel;
import io.zoolander.server.internal.zk.ZkOps;
import io.zoolander.wire.BookkeepingState;
import io.zoolander.wire.ClientRecord;
import io.zoolander.wire.Message;
import io.zoolander.wire.Op;
import io.zoolander.wire.OpResult;
import io.zoolander.wire.Znodes;
import io.zoolander.wire.internal.WriteTrace;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.jute.BinaryInputArchive;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies consecutive writes received together as one ZooKeeper multi ({@link Batch}), with the
 * same outcome per write as {@link WriteApplier} would give each alone. Only writes it can predict
 * go together: a write expected to fail, a retry, or one too large is left to the one-at-a-time
 * path, and a batch too large for one request is halved. Owned by the applier thread (asserted).
 */
final class BatchApplier {

  private static final Logger LOG = LoggerFactory.getLogger(BatchApplier.class);

  private final ApplierThread owner;
  private final int duplicateId;
  private final Znodes znodes;
  private final List<ACL> acl;
  private final OwnSession session;
  private final Multis multis;
  private final SessionReads reads;
  private final ApplierState state;
  private final EpochGuard epochs;
  private final ClientTable clients;
  private final ResultPredictor predictor;
  private final RecentWrites recent;
  private final WriteStall stall;
  private final Recovery recovery;
  private final Outbound out;
  private final PluginMeters meters;
  private final int maxBatchBytes;

  BatchApplier(
      ApplierThread owner,
      int duplicateId,
      Znodes znodes,
      List<ACL> acl,
      OwnSession session,
      Multis multis,
      SessionReads reads,
      ApplierState state,
      EpochGuard epochs,
      ClientTable clients,
      ResultPredictor predictor,
      RecentWrites recent,
      WriteStall stall,
      Recovery recovery,
      Outbound out,
      PluginMeters meters,
      int maxBatchBytes) {
    this.owner = owner;
    this.duplicateId = duplicateId;
    this.znodes = znodes;
    this.acl = acl;
    this.session = session;
    this.multis = multis;
    this.reads = reads;
    this.state = state;
    this.epochs = epochs;
    this.clients = clients;
    this.predictor = predictor;
    this.recent = recent;
    this.stall = stall;
    this.recovery = recovery;
    this.out = out;
    this.meters = meters;
    this.maxBatchBytes = maxBatchBytes;
  }

  /**
   * @return the end (exclusive) of the writes from {@code start} that are next in seq, of one
   *     current epoch
   */
  int end(List<Message.Sequenced> messages, int start) {
    assert owner.isCurrent() : ApplierThread.ONLY;
    Message.Sequenced first = messages.get(start);
    if (first.seq() != state.appliedSeq() + 1 || first.epoch() < state.epoch()) {
      return start;
    }
    int end = start + 1;
    while (end < messages.size()
        && end - start < Batch.MAX_BATCH_WRITES
        && messages.get(end).seq() == messages.get(end - 1).seq() + 1
        && messages.get(end).epoch() == first.epoch()) {
      end++;
    }
    return end;
  }

  /**
   * Applies a leading part of {@code run} (at least two writes, the first at {@code appliedSeq +
   * 1}) as one multi.
   *
   * @return how many writes were applied and replied to; 0 if the first write must be handled
   *     alone; negative if the state was read again after a ZooKeeper failure and the writes must
   *     be evaluated again
   */
  int apply(Channel from, List<Message.Sequenced> run) throws InterruptedException {
    assert owner.isCurrent() : ApplierThread.ONLY;
    for (Message.Sequenced write : run) {
      stall.before(write.seq());
    }
    ZooKeeper zk = session.zk();
    Map<Long, ClientTable.Known> known = new HashMap<>();
    Map<String, Stat> stats;
    ResultPredictor.BatchPrediction prediction;
    try {
      for (Message.Sequenced write : run) {
        if (!known.containsKey(write.clientId())) {
          known.put(write.clientId(), clients.get(zk, write.clientId()));
        }
      }
      run = run.subList(0, Batch.admissible(znodes, run, known));
      if (run.size() < 2) {
        return 0;
      }
      List<Op> all = new ArrayList<>();
      for (Message.Sequenced write : run) {
        all.addAll(write.ops());
      }
      stats = reads.stats(predictor.statsNeeded(all));
      prediction = predictor.predictEach(Batch.opsOf(run), stats);
    } catch (KeeperException | IllegalArgumentException e) {
      return 0; // the one-at-a-time path meets it again and recovers (or fences)
    }
    Batch batch = null;
    int size =
        Math.min(run.size(), prediction.results().size()); // a write expected to fail goes alone
    while (size >= 2) {
      if (size < prediction.results().size() || size < run.size()) {
        run = run.subList(0, size);
        prediction =
            predictor.predictEach(Batch.opsOf(run), stats); // the tree after exactly these writes
      }
      BookkeepingState next = nextState(run);
      batch =
          Batch.plan(
              znodes, acl, clients, run, known, prediction.results(), next, state.stateVersion());
      if (batch.fits(Math.min(BinaryInputArchive.maxBuffer, maxBatchBytes))) {
        break;
      }
      batch = null;
      size /= 2; // too large for one request (jute.maxbuffer) or over maxBatchBytes: halve
    }
    if (batch == null) {
      return 0;
    }
    List<org.apache.zookeeper.OpResult> done;
    WriteApplier.EarlyReply early = new WriteApplier.EarlyReply();
    try {
      long startNanos = System.nanoTime();
      mark(WriteTrace.Stage.MULTI_SUBMITTED, run, startNanos);
      Batch planned = batch;
      done = multis.multi(batch.multi(), applied -> replyEarly(planned, applied, early));
      long multiNanos = System.nanoTime() - startNanos;
      if (!early.sent) {
        mark(WriteTrace.Stage.MULTI_DONE, run, startNanos + multiNanos);
      }
      for (int i = 0; i < batch.writes().size(); i++) {
        meters.applied(multiNanos); // per write: the multi that applied it, as when applied alone
      }
    } catch (KeeperException e) {
      int failing = batch.writeOf(e.getResults());
      if (failing < 0) {
        return recoverBatch(e, batch.writes());
      }
      // An application op failed: nothing changed. The writes before it go as a smaller batch, it
      // goes alone.
      predictor.learn(stats);
      LOG.debug(
          "Duplicate {}: batch {}..{}: write seq {} fails; splitting",
          duplicateId,
          run.get(0).seq(),
          run.get(run.size() - 1).seq(),
          run.get(failing).seq());
      return failing >= 2 ? apply(from, run.subList(0, failing)) : 0;
    } catch (IllegalArgumentException e) {
      // refused by the ZooKeeper client's own validation: the one-at-a-time path fails it alone
      return 0;
    }
    epochs.advance(nextState(run), ZkOps.stateVersion(done));
    for (int i = 0; i < batch.clientIds().size(); i++) {
      long clientId = batch.clientIds().get(i);
      clients.updated(clientId, batch.record(clientId), Batch.clientVersion(done, i));
    }
    List<List<OpResult>> results = batch.results(znodes, done);
    if (results.equals(batch.predicted())) {
      predictor.applied(prediction.after());
    } else {
      predictor.forget();
      LOG.error(
          "Duplicate {}: batch {}..{}: the predicted results {} differ from the actual {}; correcting the"
              + " client records",
          duplicateId,
          run.get(0).seq(),
          run.get(run.size() - 1).seq(),
          batch.predicted(),
          results);
      correctRecords(zk, batch, known, results);
    }
    recovery.succeeded();
    if (!early.sent) {
      out.sendReplies(run, results);
    }
    for (int i = 0; i < run.size(); i++) {
      recent.applied(run.get(i));
      out.replied(run.get(i), run.get(i).seq(), results.get(i));
    }
    return run.size();
  }

  /**
   * On ZooKeeper's thread that applied the batch: every write's REPLY at once when the results are
   * the predicted ones, as {@link WriteApplier} does for a write alone.
   */
  private void replyEarly(
      Batch batch, List<org.apache.zookeeper.OpResult> applied, WriteApplier.EarlyReply early) {
    List<List<OpResult>> results = batch.results(znodes, applied);
    if (!results.equals(batch.predicted())) {
      return;
    }
    mark(WriteTrace.Stage.MULTI_DONE, batch.writes(), System.nanoTime());
    out.sendReplies(batch.writes(), results);
    early.sent = true;
  }

  private static void mark(WriteTrace.Stage stage, List<Message.Sequenced> run, long nanos) {
    if (WriteTrace.on()) {
      for (Message.Sequenced write : run) {
        WriteTrace.mark(stage, write.clientId(), write.requestId(), nanos);
      }
    }
  }

  /** The state after {@code run}: its last seq, in the newer of its epoch and the recorded one. */
  private BookkeepingState nextState(List<Message.Sequenced> run) {
    return new BookkeepingState(
        Math.max(run.get(0).epoch(), state.epoch()), run.get(run.size() - 1).seq());
  }

  /**
   * After a ZooKeeper failure applying a batch: as {@link Recovery#recover}, and every write of it
   * that a lost attempt did apply gets the outcome its client record holds and is held in {@link
   * RecentWrites} like any applied write (else the next write would find the run broken and clear
   * it, and a repeater taking over could not recover these writes from this duplicate).
   *
   * @return -1: the writes must be evaluated again
   */
  private int recoverBatch(KeeperException e, List<Message.Sequenced> run)
      throws InterruptedException {
    long before = state.appliedSeq();
    recovery.recover(e, run.get(0));
    for (int i = 0; i < run.size(); i++) {
      Message.Sequenced write = run.get(i);
      if (write.seq() <= state.appliedSeq() && write.seq() > before) {
        recent.applied(write);
        if (i > 0) {
          recovery.replyFromRecord(write); // recover() replied the first
        }
      }
    }
    return -1;
  }

  /**
   * The results held for a batch's writes differ from their actual results (a misprediction):
   * replace them in every client record concerned, one more deterministic write each.
   */
  private void correctRecords(
      ZooKeeper zk, Batch batch, Map<Long, ClientTable.Known> known, List<List<OpResult>> results)
      throws InterruptedException {
    Map<Long, ClientRecord> corrected = new LinkedHashMap<>();
    for (int i = 0; i < batch.writes().size(); i++) {
      Message.Sequenced write = batch.writes().get(i);
      ClientRecord base =
          corrected.containsKey(write.clientId())
              ? corrected.get(write.clientId())
              : known.get(write.clientId()).record();
      corrected.put(
          write.clientId(),
          ClientTable.after(base, write.requestId(), write.seq(), results.get(i)));
    }
    for (Map.Entry<Long, ClientRecord> e : corrected.entrySet()) {
      if (e.getValue().equals(batch.record(e.getKey()))) {
        continue;
      }
      try {
        ClientTable.Known current = clients.get(zk, e.getKey());
        Stat stat = zk.setData(znodes.client(e.getKey()), e.getValue().encode(), current.version());
        clients.updated(e.getKey(), e.getValue(), stat.getVersion());
      } catch (KeeperException ex) {
        LOG.warn(
            "Duplicate {}: cannot correct the record of client {}: {}",
            duplicateId,
            e.getKey(),
            ex.code());
        clients.clear();
      }
    }
  }
}
