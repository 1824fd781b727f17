package io.zoolander.server.internal.plugin;

import io.netty.channel.Channel;
import io.zoolander.wire.BookkeepingState;
import io.zoolander.wire.ErrorCode;
import io.zoolander.wire.Message;
import io.zoolander.wire.Znodes;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What this duplicate hands a repeater of what it applied: the writes it applied recently ({@link
 * RecentWrites}), to a repeater taking over; and a snapshot for a state transfer to another
 * duplicate ({@link StateTransfer}), read between two applies, so it is exactly the state at the
 * current {@code appliedSeq}, and only from a duplicate that is ACTIVE, caught up and not
 * rejoining. Owned by the applier thread (asserted).
 */
final class TransferSource {

  private static final Logger LOG = LoggerFactory.getLogger(TransferSource.class);

  private final ApplierThread owner;
  private final int duplicateId;
  private final Znodes znodes;
  private final OwnSession session;
  private final ApplierState state;
  private final GapTracker gaps;
  private final RecentWrites recent;
  private final int sessionTimeoutMs;

  TransferSource(
      ApplierThread owner,
      int duplicateId,
      Znodes znodes,
      OwnSession session,
      ApplierState state,
      GapTracker gaps,
      RecentWrites recent,
      int sessionTimeoutMs) {
    this.owner = owner;
    this.duplicateId = duplicateId;
    this.znodes = znodes;
    this.session = session;
    this.state = state;
    this.gaps = gaps;
    this.recent = recent;
    this.sessionTimeoutMs = sessionTimeoutMs;
  }

  /**
   * A repeater taking over asks, on {@code to}, for the writes applied in {@code
   * request.fromSeq()..toSeq()}: those still held, as SEQUENCED in seq order, then a STATUS that
   * ends the answer.
   */
  void recentWrites(Channel to, Message.Retransmit request) {
    assert owner.isCurrent() : ApplierThread.ONLY;
    if (!to.isActive()) {
      return;
    }
    List<Message.Sequenced> held =
        recent.range(request.fromSeq(), Math.min(request.toSeq(), state.appliedSeq()));
    LOG.info(
        "Duplicate {}: a repeater taking over (repeater epoch {}) asks for applied writes {}..{}; sending {}",
        duplicateId,
        request.epoch(),
        request.fromSeq(),
        request.toSeq(),
        held.isEmpty()
            ? "none (none held)"
            : held.get(0).seq() + ".." + held.get(held.size() - 1).seq());
    for (Message.Sequenced write : held) {
      to.write(write, to.voidPromise());
    }
    to.writeAndFlush(
        new Message.Status(
            duplicateId, state.epoch(), state.appliedSeq(), state.snapshot().state()),
        to.voidPromise());
  }

  /**
   * The source side of a state transfer: a snapshot at the current applied seq, sent on {@code to}
   * in chunks; or ERROR(TRANSFER_FAILED or TRANSFER_TOO_LARGE).
   */
  void snapshot(Channel to, Message.TransferRequest request) throws InterruptedException {
    assert owner.isCurrent() : ApplierThread.ONLY;
    long appliedSeq = state.appliedSeq();
    if (!state.active() || gaps.open(appliedSeq) || state.transfer() != null || state.rejoining()) {
      Outbound.send(
          to,
          Message.Error.forRequest(
              ErrorCode.TRANSFER_FAILED,
              request.transferId(),
              "duplicate "
                  + duplicateId
                  + " is "
                  + state.snapshot().state()
                  + " at seq "
                  + appliedSeq
                  + ": not a source for a state"
                  + " transfer"));
      return;
    }
    long start = System.nanoTime();
    StateTransfer.Snapshot taken;
    try {
      taken =
          StateTransfer.read(
              session.zk(),
              znodes,
              new BookkeepingState(state.epoch(), appliedSeq),
              StateTransfer.MAX_BYTES,
              sessionTimeoutMs);
    } catch (StateTransfer.TooLargeException e) {
      LOG.warn(
          "Duplicate {}: state transfer {} for duplicate {} refused: {}",
          duplicateId,
          request.transferId(),
          request.targetDuplicateId(),
          e.getMessage());
      Outbound.send(
          to,
          Message.Error.forRequest(
              ErrorCode.TRANSFER_TOO_LARGE, request.transferId(), e.getMessage()));
      return;
    } catch (KeeperException e) {
      LOG.warn(
          "Duplicate {}: state transfer {}: cannot read the snapshot: {}",
          duplicateId,
          request.transferId(),
          e.toString());
      Outbound.send(
          to,
          Message.Error.forRequest(
              ErrorCode.TRANSFER_FAILED,
              request.transferId(),
              "duplicate " + duplicateId + " cannot read its snapshot: " + e.getMessage()));
      return;
    }
    List<Message.TransferChunk> chunks =
        StateTransfer.chunks(request.transferId(), duplicateId, taken);
    LOG.info(
        "Duplicate {}: state transfer {} for duplicate {}: snapshot at seq {} (repeater epoch {}), {} znodes, {} bytes,"
            + " read in {} ms; sending {} chunks",
        duplicateId,
        request.transferId(),
        request.targetDuplicateId(),
        appliedSeq,
        state.epoch(),
        taken.nodes().size(),
        taken.bytes(),
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start),
        chunks.size());
    if (!to.isActive()) {
      return;
    }
    for (Message.TransferChunk chunk : chunks) {
      to.write(chunk, to.voidPromise()); // bounded by StateTransfer.MAX_BYTES
    }
    to.flush();
  }
}
