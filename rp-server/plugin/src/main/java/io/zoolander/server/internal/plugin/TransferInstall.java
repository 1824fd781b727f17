package io.zoolander.server.internal.plugin;

import io.netty.channel.Channel;
import io.zoolander.wire.BookkeepingState;
import io.zoolander.wire.ErrorCode;
import io.zoolander.wire.Message;
import io.zoolander.wire.Znodes;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The receiving side of a state transfer, how a fenced duplicate rejoins: collects the chunks a
 * repeater relays, then replaces the data root, the client records and the state znode ({@link
 * StateTransfer.Install}) and follows the stream from the snapshot's seq. From the first chunk
 * until it has applied what the repeater had sequenced when the transfer ended, the duplicate
 * applies nothing else and serves no reads (REJOINING); a transfer that fails leaves it fenced.
 * Owned by the applier thread (asserted).
 */
final class TransferInstall {

  private static final Logger LOG = LoggerFactory.getLogger(TransferInstall.class);

  private final ApplierThread owner;
  private final int duplicateId;
  private final Znodes znodes;
  private final List<ACL> acl;
  private final OwnSession session;
  private final ApplierState state;
  private final GapTracker gaps;
  private final ReadGate reads;
  private final Fencing fencing;
  private final ClientTable clients;
  private final ResultPredictor predictor;
  private final RecentWrites recent;
  private final Recovery recovery;
  private final Watches watches;
  private final int sessionTimeoutMs;

  TransferInstall(
      ApplierThread owner,
      int duplicateId,
      Znodes znodes,
      List<ACL> acl,
      OwnSession session,
      ApplierState state,
      GapTracker gaps,
      ReadGate reads,
      Fencing fencing,
      ClientTable clients,
      ResultPredictor predictor,
      RecentWrites recent,
      Recovery recovery,
      Watches watches,
      int sessionTimeoutMs) {
    this.owner = owner;
    this.duplicateId = duplicateId;
    this.znodes = znodes;
    this.acl = acl;
    this.session = session;
    this.state = state;
    this.gaps = gaps;
    this.reads = reads;
    this.fencing = fencing;
    this.clients = clients;
    this.predictor = predictor;
    this.recent = recent;
    this.recovery = recovery;
    this.watches = watches;
    this.sessionTimeoutMs = sessionTimeoutMs;
  }

  /**
   * A chunk of a transfer to this duplicate, on {@code from}. The first one (index 0) starts a
   * transfer, abandoning any other; the last one installs it and answers STATUS.
   */
  void chunk(Channel from, Message.TransferChunk chunk) throws InterruptedException {
    assert owner.isCurrent() : ApplierThread.ONLY;
    if (chunk.index() == 0) {
      StateTransfer.Install abandoned = state.transfer();
      if (abandoned != null) {
        LOG.warn(
            "Duplicate {}: state transfer {} abandoned for transfer {}",
            duplicateId,
            abandoned.transferId(),
            chunk.transferId());
      }
      state.transfer(
          new StateTransfer.Install(znodes, StateTransfer.MAX_BYTES, chunk.transferId()));
      gaps.clear(state.appliedSeq());
      reads.refuseAllRejoining();
      LOG.info(
          "Duplicate {}: receiving state transfer {} from duplicate {} (snapshot at seq {}); serving no reads"
              + " until it is installed and caught up",
          duplicateId,
          chunk.transferId(),
          chunk.sourceDuplicateId(),
          chunk.appliedSeq());
    } else if (state.transfer() == null || state.transfer().transferId() != chunk.transferId()) {
      Outbound.send(
          from,
          Message.Error.forRequest(
              ErrorCode.TRANSFER_FAILED,
              chunk.transferId(),
              "duplicate "
                  + duplicateId
                  + " has no state transfer "
                  + chunk.transferId()
                  + " in progress"));
      return;
    }
    StateTransfer.Install current = state.transfer();
    try {
      if (!current.add(chunk)) {
        return;
      }
    } catch (StateTransfer.TooLargeException e) {
      state.transfer(null);
      failed(from, chunk.transferId(), ErrorCode.TRANSFER_TOO_LARGE, e.getMessage());
      return;
    } catch (IllegalArgumentException e) {
      state.transfer(null);
      failed(from, chunk.transferId(), ErrorCode.TRANSFER_FAILED, e.getMessage());
      return;
    }
    install(from, current);
  }

  /** Every chunk of {@code current} arrived: replaces the data and the state. */
  private void install(Channel from, StateTransfer.Install current) throws InterruptedException {
    long start = System.nanoTime();
    Message.TransferChunk header = current.header();
    try {
      ZooKeeper zk = session.zk();
      Stat stat = new Stat();
      BookkeepingState recorded = BookkeepingState.decode(zk.getData(znodes.state(), false, stat));
      BookkeepingState next =
          new BookkeepingState(Math.max(recorded.epoch(), header.epoch()), header.appliedSeq());
      state.treeReplacing();
      int version = current.install(zk, acl, next, stat.getVersion(), sessionTimeoutMs);
      state.installed(next, version, header.catchUpToSeq());
      clients.clear();
      predictor.forget();
      recent.clear();
      watches.resyncAll(state.appliedSeq()); // the changes up to the snapshot are not known here
      gaps.clear(state.appliedSeq());
      recovery.succeeded();
      state.publish();
      LOG.info(
          "Duplicate {}: state transfer {} installed: {} znodes, {} bytes from duplicate {} in {} ms; now at"
              + " seq {} (repeater epoch {}), serving reads again once seq {} is applied",
          duplicateId,
          current.transferId(),
          current.znodes(),
          current.bytes(),
          header.sourceDuplicateId(),
          TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start),
          state.appliedSeq(),
          state.epoch(),
          state.rejoinUntil());
      Outbound.send(
          from,
          new Message.Status(
              duplicateId, state.epoch(), state.appliedSeq(), state.snapshot().state()));
    } catch (KeeperException | IllegalArgumentException e) {
      state.transfer(null);
      failed(
          from,
          current.transferId(),
          ErrorCode.TRANSFER_FAILED,
          "installing the snapshot failed: " + e);
    }
  }

  private void failed(Channel to, long transferId, ErrorCode code, String reason) {
    LOG.error("Duplicate {}: state transfer {} failed: {}", duplicateId, transferId, reason);
    fencing.fence("state transfer " + transferId + " failed: " + reason);
    Outbound.send(
        to, Message.Error.forRequest(code, transferId, "duplicate " + duplicateId + ": " + reason));
  }
}
