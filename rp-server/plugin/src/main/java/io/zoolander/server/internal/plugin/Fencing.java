package io.zoolander.server.internal.plugin;

import io.zoolander.wire.DuplicateState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fences this duplicate: it applies no more writes and serves no reads (STATUS still answers,
 * saying FENCED) until a state transfer is installed ({@link TransferInstall}). A repeater's
 * ERROR(FENCED), a failed transfer, or bookkeeping znodes changed under the plugin fence it. A
 * transfer in progress is abandoned, held messages are forgotten and waiting reads refused. The
 * fence is also recorded in the ensemble ({@link FenceRecord}), so that it outlives the plugin.
 * Owned by the applier thread (asserted).
 */
final class Fencing {

  private static final Logger LOG = LoggerFactory.getLogger(Fencing.class);

  private final ApplierThread owner;
  private final int duplicateId;
  private final ApplierState state;
  private final GapTracker gaps;
  private final ReadGate reads;
  private final Runnable tellRepeaters;
  private final FenceRecord record;

  /**
   * @param tellRepeaters sends this duplicate's STATUS to the repeaters connected, so that one
   *     streaming to it hears at once that it is fenced (and starts a state transfer)
   */
  Fencing(
      ApplierThread owner,
      int duplicateId,
      ApplierState state,
      GapTracker gaps,
      ReadGate reads,
      Runnable tellRepeaters,
      FenceRecord record) {
    this.owner = owner;
    this.duplicateId = duplicateId;
    this.state = state;
    this.gaps = gaps;
    this.reads = reads;
    this.tellRepeaters = tellRepeaters;
    this.record = record;
  }

  /** Fences the duplicate for {@code reason}; a transfer in progress is abandoned either way. */
  void fence(String reason) {
    fence(reason, true);
  }

  /**
   * Fences the duplicate at start, as an earlier plugin recorded ({@link FenceRecord}); the record
   * is kept as it is.
   */
  void fenceAsRecorded(String recordedReason) {
    fence(
        "it was fenced before this plugin started and no state transfer has repaired it since ("
            + recordedReason
            + ")",
        false);
  }

  private void fence(String reason, boolean recordIt) {
    assert owner.isCurrent() : ApplierThread.ONLY;
    // A transfer in progress is abandoned: the next one starts from its first chunk.
    if (!state.fence()) {
      return;
    }
    LOG.error(
        "DUPLICATE {} IS FENCED at seq {} (repeater epoch {}): {}. It applies no more writes and serves no reads"
            + " until a state transfer; STATUS still answers.",
        duplicateId,
        state.appliedSeq(),
        state.epoch(),
        reason);
    gaps.clear(state.appliedSeq());
    state.publish();
    reads.refuseAllFenced();
    if (recordIt) {
      record.write(reason);
    }
  }

  /**
   * Fences the duplicate for a reason the repeaters cannot know of (a write to the data root by
   * another session), and tells the repeaters connected at once (STATUS FENCED), so that one
   * streaming to it starts a state transfer instead of streaming into a fenced duplicate. The
   * fence's record is not written again: {@link ForeignWrites} wrote it as it saw the write.
   */
  void fenceAndTellRepeaters(String reason) {
    assert owner.isCurrent() : ApplierThread.ONLY;
    boolean wasFenced = state.mode() == DuplicateState.FENCED;
    fence(reason, false); // recorded already, as the write was seen (ForeignWrites)
    if (!wasFenced) {
      tellRepeaters.run();
    }
  }
}
