package io.zoolander.server.internal.plugin;

import io.zoolander.server.internal.zk.ZkOps;
import io.zoolander.wire.BookkeepingState;
import io.zoolander.wire.ClientRecord;
import io.zoolander.wire.ErrorCode;
import io.zoolander.wire.Message;
import io.zoolander.wire.OpResult;
import io.zoolander.wire.Znodes;
import io.zoolander.wire.internal.WriteTrace;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.jute.BinaryInputArchive;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies one write, the next in seq, alone: the rules for {@code seq == appliedSeq + 1} in {@code
 * docs/architecture.md}. A retry of a request the client table says was applied already advances
 * only the state and gets the original outcome; any other write is one ZooKeeper multi of the state
 * update, the client record's update (holding the predicted results, {@link ResultPredictor}) and
 * the write's ops. A failing application op is applied as its failure (the bookkeeping alone); a
 * failing bookkeeping update goes to {@link Recovery}, and the write is evaluated again. Owned by
 * the applier thread (asserted).
 */
final class WriteApplier {

  private static final Logger LOG = LoggerFactory.getLogger(WriteApplier.class);

  /** What became of a write, see {@link #apply}. */
  enum Outcome {
    /** Applied (or, as a retry, sequenced again) and replied to. */
    APPLIED,
    /** The state was read again after a failure, or the duplicate fenced: evaluate it again. */
    EVALUATE_AGAIN
  }

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
  private final Recovery recovery;
  private final Fencing fencing;
  private final Outbound out;
  private final PluginMeters meters;
  private volatile long duplicateRequests; // written by the applier thread only

  WriteApplier(
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
      Recovery recovery,
      Fencing fencing,
      Outbound out,
      PluginMeters meters) {
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
    this.recovery = recovery;
    this.fencing = fencing;
    this.out = out;
    this.meters = meters;
  }

  /**
   * @return how many retried writes were recognised as applied already (and not applied again); any
   *     thread
   */
  long duplicateRequests() {
    return duplicateRequests;
  }

  /**
   * Applies {@code message}, whose seq is {@code appliedSeq + 1}: as a duplicate of a request the
   * client record says was applied already, or as a new write.
   */
  Outcome apply(Message.Sequenced message) throws InterruptedException {
    assert owner.isCurrent() : ApplierThread.ONLY;
    BookkeepingState next =
        new BookkeepingState(Math.max(message.epoch(), state.epoch()), message.seq());
    ZooKeeper zk = session.zk();
    ClientTable.Known known;
    try {
      known = clients.get(zk, message.clientId());
    } catch (KeeperException e) {
      recovery.recover(e, message);
      return Outcome.EVALUATE_AGAIN;
    } catch (IllegalArgumentException e) {
      fencing.fence(
          "the client record "
              + znodes.client(message.clientId())
              + " is unreadable: "
              + e.getMessage());
      return Outcome.EVALUATE_AGAIN;
    }
    if (known.record() != null && known.record().isDuplicate(message.requestId())) {
      return applyDuplicate(zk, message, next, known.record());
    }
    Map<String, Stat> stats = Map.of();
    ResultPredictor.Prediction prediction;
    try {
      stats = reads.stats(predictor.statsNeeded(message.ops()));
      prediction = predictor.predict(message.ops(), stats);
    } catch (KeeperException e) {
      recovery.recover(e, message);
      return Outcome.EVALUATE_AGAIN;
    } catch (IllegalArgumentException e) {
      prediction =
          new ResultPredictor.Prediction(null, Map.of()); // not a valid ZooKeeper path: fails below
    }
    List<OpResult> predicted = prediction.results();
    List<OpResult> results;
    EarlyReply early = new EarlyReply();
    try {
      ClientRecord record =
          ClientTable.after(known.record(), message.requestId(), message.seq(), predicted);
      List<org.apache.zookeeper.Op> multi = multiFitting(message, next, known, record);
      if (multi == null) {
        // Without the outcome held, then: a retry gets DUPLICATE_REQUEST.
        record = ClientTable.after(known.record(), message.requestId(), message.seq(), null);
        multi = multiFitting(message, next, known, record);
      }
      if (multi == null) {
        throw new IllegalArgumentException(
            "the write exceeds jute.maxbuffer="
                + BinaryInputArchive.maxBuffer
                + " bytes as one ZooKeeper request");
      }
      long startNanos = System.nanoTime();
      WriteTrace.mark(
          WriteTrace.Stage.MULTI_SUBMITTED, message.clientId(), message.requestId(), startNanos);
      List<org.apache.zookeeper.OpResult> done =
          multis.multi(multi, applied -> replyEarly(message, predicted, applied, early));
      long doneNanos = System.nanoTime();
      if (!early.sent) {
        WriteTrace.mark(
            WriteTrace.Stage.MULTI_DONE, message.clientId(), message.requestId(), doneNanos);
      }
      meters.applied(doneNanos - startNanos);
      results = ZkOps.succeeded(znodes, done);
      epochs.advance(next, ZkOps.stateVersion(done));
      clients.updated(message.clientId(), record, ZkOps.clientVersion(done));
      if (results.equals(predicted)) {
        predictor.applied(prediction);
      } else {
        predictor.forget();
      }
      if (predicted != null && !predicted.equals(results)) {
        LOG.error(
            "Duplicate {}: seq {}: the predicted results {} differ from the actual {}; correcting the"
                + " record of client {}",
            duplicateId,
            message.seq(),
            predicted,
            results,
            message.clientId());
      }
      if (!results.equals(predicted) && record.find(message.requestId()).isPresent()) {
        correctRecord(zk, message, known.record(), results);
      }
    } catch (KeeperException e) {
      List<org.apache.zookeeper.OpResult> multiResults = e.getResults();
      if (multiResults == null
          || multiResults.size() != message.ops().size() + ZkOps.BOOKKEEPING_OPS
          || ZkOps.stateUpdateCode(multiResults) != Code.OK
          || ZkOps.clientUpdateCode(multiResults) != Code.OK) {
        recovery.recover(e, message);
        return Outcome.EVALUATE_AGAIN;
      }
      // An application op failed: deterministic, every duplicate fails it the same way. Advance
      // alone.
      predictor.learn(stats);
      results = ZkOps.failed(multiResults, message.ops());
      if (!advanceAlone(next, message, known, results)) {
        return Outcome.EVALUATE_AGAIN;
      }
    } catch (IllegalArgumentException e) {
      // Too large for one request, or refused by the ZooKeeper client's own validation:
      // deterministic too (given the same jute.maxbuffer on every duplicate).
      LOG.warn(
          "Duplicate {}: seq {} cannot be applied and fails with BADARGUMENTS: {}",
          duplicateId,
          message.seq(),
          e.getMessage());
      results = new ArrayList<>();
      for (int i = 0; i < message.ops().size(); i++) {
        results.add(new OpResult.Failed(Code.BADARGUMENTS));
      }
      if (!advanceAlone(next, message, known, results)) {
        return Outcome.EVALUATE_AGAIN;
      }
    }
    recovery.succeeded();
    if (early.sent) {
      out.replied(message, message.seq(), results);
    } else {
      out.reply(message, message.seq(), results);
    }
    return Outcome.APPLIED;
  }

  /** Whether {@link #replyEarly} sent the REPLY; read after the multi returned. */
  static final class EarlyReply {
    boolean sent;
  }

  /**
   * On ZooKeeper's thread that applied the multi: REPLY at once when the results are the ones the
   * client record holds (the usual case), so the client does not wait for the applier thread to
   * wake. A misprediction is left to the applier, which corrects the record before it replies.
   */
  private void replyEarly(
      Message.Sequenced message,
      List<OpResult> predicted,
      List<org.apache.zookeeper.OpResult> applied,
      EarlyReply early) {
    List<OpResult> results = ZkOps.succeeded(znodes, applied);
    if (results.equals(predicted)) {
      WriteTrace.mark(WriteTrace.Stage.MULTI_DONE, message.clientId(), message.requestId());
      out.sendReply(message, message.seq(), results);
      early.sent = true;
    }
  }

  /**
   * @return the multi applying {@code message} with {@code record}, or null if it is too large for
   *     one request
   */
  private List<org.apache.zookeeper.Op> multiFitting(
      Message.Sequenced message,
      BookkeepingState next,
      ClientTable.Known known,
      ClientRecord record) {
    byte[] encoded = record.encode();
    List<org.apache.zookeeper.Op> multi =
        ZkOps.multi(
            znodes,
            next,
            state.stateVersion(),
            clients.update(message.clientId(), known, encoded),
            message.ops(),
            acl);
    return ZkOps.fitsInOneRequest(
            multi, message.ops(), encoded.length, BinaryInputArchive.maxBuffer)
        ? multi
        : null;
  }

  /**
   * A request the client record says was applied already (a retry under a new seq): only the state
   * advances, and the client gets the original seq and results, or ERROR(DUPLICATE_REQUEST) if the
   * record no longer holds them. A request id the record shows was never applied (a client that
   * broke the ordering assumption) is not applied either: ERROR(INVALID_OP).
   */
  // duplicateRequests++ is not atomic, but only the applier thread writes it (asserted in apply);
  // it is volatile for the readers of the metric.
  @SuppressWarnings("NonAtomicVolatileUpdate")
  private Outcome applyDuplicate(
      ZooKeeper zk, Message.Sequenced message, BookkeepingState next, ClientRecord record)
      throws InterruptedException {
    try {
      Stat stat = zk.setData(znodes.state(), next.encode(), state.stateVersion());
      epochs.advance(next, stat.getVersion());
    } catch (KeeperException e) {
      recovery.recover(e, message);
      return Outcome.EVALUATE_AGAIN;
    }
    recovery.succeeded();
    if (record.neverApplied(message.requestId())) {
      LOG.warn(
          "Duplicate {}: seq {}: request {} of client {} was never applied but request {} was: the client"
              + " sent its request ids out of order; refused",
          duplicateId,
          message.seq(),
          message.requestId(),
          message.clientId(),
          record.highestRequestId());
      out.toClient(
          message.clientId(),
          Message.Error.forRequest(
              ErrorCode.INVALID_OP,
              message.requestId(),
              "request "
                  + message.requestId()
                  + " of client "
                  + message.clientId()
                  + " arrived after request "
                  + record.highestRequestId()
                  + " was applied: request ids must increase in the order the"
                  + " writes are first sent; not applied (send it again under a new request id)"));
      return Outcome.APPLIED;
    }
    duplicateRequests++;
    Optional<ClientRecord.Entry> original = record.find(message.requestId());
    LOG.debug(
        "Duplicate {}: seq {} is request {} of client {} again, applied earlier at {}",
        duplicateId,
        message.seq(),
        message.requestId(),
        message.clientId(),
        original.map(o -> "seq " + o.seq()).orElse("a seq no longer held"));
    if (original.isPresent()) {
      out.reply(message, original.get().seq(), original.get().results());
    } else {
      out.toClient(
          message.clientId(),
          Message.Error.forRequest(
              ErrorCode.DUPLICATE_REQUEST,
              message.requestId(),
              "request "
                  + message.requestId()
                  + " of client "
                  + message.clientId()
                  + " was applied earlier at an unknown seq; its results are no longer held (the last "
                  + ClientRecord.WINDOW
                  + " requests are)"));
    }
    return Outcome.APPLIED;
  }

  /**
   * Records the failure {@code results} of {@code message} in the client record and advances the
   * state, without applying anything else; false if the state must be read again.
   */
  private boolean advanceAlone(
      BookkeepingState next,
      Message.Sequenced message,
      ClientTable.Known known,
      List<OpResult> results)
      throws InterruptedException {
    ClientRecord record =
        ClientTable.after(known.record(), message.requestId(), message.seq(), results);
    try {
      List<org.apache.zookeeper.OpResult> done =
          multis.multi(
              List.of(
                  ZkOps.stateUpdate(znodes, next, state.stateVersion()),
                  clients.update(message.clientId(), known, record.encode())));
      epochs.advance(next, ZkOps.stateVersion(done));
      clients.updated(message.clientId(), record, ZkOps.clientVersion(done));
      return true;
    } catch (KeeperException e) {
      recovery.recover(e, message);
      return false;
    }
  }

  /**
   * The results held for the write just applied differ from its actual results (a misprediction):
   * replace them. This is an extra write outside the write's multi, but it is deterministic: every
   * duplicate holding the same data makes the same correction.
   */
  private void correctRecord(
      ZooKeeper zk, Message.Sequenced message, ClientRecord base, List<OpResult> results)
      throws InterruptedException {
    ClientRecord corrected = ClientTable.after(base, message.requestId(), message.seq(), results);
    try {
      ClientTable.Known current = clients.get(zk, message.clientId());
      Stat stat =
          zk.setData(znodes.client(message.clientId()), corrected.encode(), current.version());
      clients.updated(message.clientId(), corrected, stat.getVersion());
    } catch (KeeperException e) {
      LOG.warn(
          "Duplicate {}: cannot correct the record of client {}: {}",
          duplicateId,
          message.clientId(),
          e.code());
      clients.clear();
    }
  }
}
