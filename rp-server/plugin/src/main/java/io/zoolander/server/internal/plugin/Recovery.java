package io.zoolander.server.internal.plugin;

import io.zoolander.server.internal.zk.ZkOps;
import io.zoolander.wire.BookkeepingState;
import io.zoolander.wire.ClientRecord;
import io.zoolander.wire.Message;
import io.zoolander.wire.Znodes;
import java.util.List;
import java.util.Optional;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the applier does after a ZooKeeper failure: wait (with a backoff) or open a new session as
 * the failure needs, then read the state znode again, since a lost attempt may have applied. If it
 * did, the client gets the outcome its record holds ({@link #replyFromRecord}). Bookkeeping znodes
 * deleted or unreadable under the plugin fence the duplicate. Owned by the applier thread
 * (asserted): it sleeps there, and gives up only when the applier stops.
 */
final class Recovery {

  private static final Logger LOG = LoggerFactory.getLogger(Recovery.class);

  /** First and largest pause before retrying after a ZooKeeper failure. */
  static final long BACKOFF_MIN_MS = 20;

  static final long BACKOFF_MAX_MS = 1_000;

  private final ApplierThread owner;
  private final int duplicateId;
  private final Znodes znodes;
  private final OwnSession session;
  private final Applier.SessionRenewal renewal;
  private final ApplierState state;
  private final EpochGuard epochs;
  private final Fencing fencing;
  private final ClientTable clients;
  private final ResultPredictor predictor;
  private final Outbound out;
  private int failures;

  Recovery(
      ApplierThread owner,
      int duplicateId,
      Znodes znodes,
      OwnSession session,
      Applier.SessionRenewal renewal,
      ApplierState state,
      EpochGuard epochs,
      Fencing fencing,
      ClientTable clients,
      ResultPredictor predictor,
      Outbound out) {
    this.owner = owner;
    this.duplicateId = duplicateId;
    this.znodes = znodes;
    this.session = session;
    this.renewal = renewal;
    this.state = state;
    this.epochs = epochs;
    this.fencing = fencing;
    this.clients = clients;
    this.predictor = predictor;
    this.out = out;
  }

  /** A ZooKeeper call succeeded: the next failure starts the backoff from its shortest pause. */
  void succeeded() {
    assert owner.isCurrent() : ApplierThread.ONLY;
    failures = 0;
  }

  /**
   * After a ZooKeeper failure applying {@code message}: wait or re-open as needed, then read the
   * state again. If an attempt whose answer was lost did apply it, the client gets the outcome its
   * record holds.
   */
  void recover(KeeperException e, Message.Sequenced message) throws InterruptedException {
    assert owner.isCurrent() : ApplierThread.ONLY;
    long seq = message.seq();
    Code code = e.code();
    List<org.apache.zookeeper.OpResult> multiResults = e.getResults();
    if (multiResults != null
        && multiResults.size() > 1
        && ZkOps.stateUpdateCode(multiResults) == Code.OK
        && ZkOps.clientUpdateCode(multiResults) == Code.NONODE) {
      fencing.fence(
          "the client record "
              + znodes.client(message.clientId())
              + " or its parent "
              + znodes.clients()
              + " was deleted under the plugin");
      return;
    }
    clients.clear(); // a lost attempt may have changed a record, and the tree
    predictor.forget();
    switch (code) {
      case BADVERSION ->
          LOG.info(
              "Duplicate {}: seq {}: the state znode changed under the plugin (a new repeater"
                  + " claiming its epoch, or another writer); reading it again",
              duplicateId,
              seq);
      case NONODE, NODEEXISTS ->
          LOG.warn(
              "Duplicate {}: seq {}: a bookkeeping znode changed under the plugin ({}); reading it again",
              duplicateId,
              seq,
              code);
      case CONNECTIONLOSS, OPERATIONTIMEOUT, REQUESTTIMEOUT, THROTTLEDOP, SESSIONMOVED -> {
        LOG.warn(
            "Duplicate {}: seq {}: {} from the own ZooKeeper server; retrying",
            duplicateId,
            seq,
            code);
        backoff();
      }
      case SESSIONEXPIRED -> renewSession();
      default -> {
        LOG.error(
            "Duplicate {}: seq {}: unexpected ZooKeeper failure; retrying", duplicateId, seq, e);
        backoff();
      }
    }
    long before = state.appliedSeq();
    reloadState();
    if (state.appliedSeq() >= seq && before < seq) {
      replyFromRecord(message);
    }
  }

  /**
   * {@code message} was applied by an attempt whose answer was lost: reply what the client record
   * holds, if any.
   */
  void replyFromRecord(Message.Sequenced message) throws InterruptedException {
    assert owner.isCurrent() : ApplierThread.ONLY;
    Optional<ClientRecord.Entry> entry = Optional.empty();
    try {
      ClientTable.Known known = clients.get(session.zk(), message.clientId());
      entry = known.record() == null ? Optional.empty() : known.record().find(message.requestId());
    } catch (KeeperException | IllegalArgumentException e) {
      LOG.debug(
          "Duplicate {}: cannot read the record of client {}: {}",
          duplicateId,
          message.clientId(),
          e.toString());
    }
    if (entry.isPresent()) {
      LOG.info(
          "Duplicate {}: seq {} was applied by an attempt whose answer was lost; replying the outcome its"
              + " client record holds",
          duplicateId,
          message.seq());
      out.reply(message, entry.get().seq(), entry.get().results());
    } else {
      LOG.info(
          "Duplicate {}: seq {} was applied by an attempt whose answer was lost and its results are not"
              + " held; this duplicate sends no REPLY for it",
          duplicateId,
          message.seq());
      out.resultsLost(message.seq());
    }
  }

  private void reloadState() throws InterruptedException {
    while (!state.stopped()) {
      try {
        Stat stat = new Stat();
        BookkeepingState read =
            BookkeepingState.decode(session.zk().getData(znodes.state(), false, stat));
        if (read.appliedSeq() < state.appliedSeq() || read.epoch() < state.epoch()) {
          LOG.error(
              "Duplicate {}: the state znode went back from (repeater epoch {}, seq {}) to (repeater epoch {}, seq {})",
              duplicateId,
              state.epoch(),
              state.appliedSeq(),
              read.epoch(),
              read.appliedSeq());
        }
        epochs.advance(read, stat.getVersion());
        failures = 0;
        return;
      } catch (KeeperException.NoNodeException | IllegalArgumentException e) {
        fencing.fence(
            "the bookkeeping znode "
                + znodes.state()
                + " is gone or unreadable: "
                + e.getMessage());
        return;
      } catch (KeeperException.SessionExpiredException e) {
        renewSession();
      } catch (KeeperException e) {
        LOG.warn("Duplicate {}: cannot read the state znode: {}; retrying", duplicateId, e.code());
        backoff();
      }
    }
  }

  /** Opens a new session (and publishes the endpoint again), unless one is open already. */
  void renewSession() throws InterruptedException {
    assert owner.isCurrent() : ApplierThread.ONLY;
    while (!state.stopped()) {
      ZooKeeper zk = session.zk();
      if (zk != null && zk.getState().isAlive()) {
        return; // renewed already
      }
      try {
        renewal.renew();
        failures = 0;
        return;
      } catch (InterruptedException e) {
        throw e;
      } catch (Exception e) {
        LOG.warn(
            "Duplicate {}: cannot open a new ZooKeeper session: {}; retrying",
            duplicateId,
            e.toString());
        backoff();
      }
    }
  }

  private void backoff() throws InterruptedException {
    long pause = Math.min(BACKOFF_MAX_MS, BACKOFF_MIN_MS << Math.min(failures, 10));
    failures++;
    Thread.sleep(pause);
  }
}
