package io.zoolander.server.internal.plugin;

import io.zoolander.server.plugin.ZoolanderPluginView.Snapshot;
import io.zoolander.wire.BookkeepingState;
import io.zoolander.wire.DuplicateState;

/**
 * What the duplicate is, as the applier knows it: the recorded {@code (epoch, appliedSeq)} and the
 * state znode's version, whether it applies (ACTIVE) or not (FENCED), the state transfer being
 * received, and the seq a duplicate rejoining after a transfer must apply before it serves reads.
 * From these (and whether a gap is open) it publishes the {@link Snapshot} other threads read.
 *
 * <p>Owned by the applier thread: every method but {@link #snapshot()}, {@link #stopped()} and
 * {@link #stop()} asserts it runs there.
 */
final class ApplierState {

  private final ApplierThread owner;
  private final GapTracker gaps;
  private long epoch;
  private long appliedSeq;
  private int stateVersion;
  private DuplicateState mode = DuplicateState.ACTIVE;

  /** The state transfer being received, or null. */
  private StateTransfer.Install transfer;

  /** After a state transfer: reads are refused (REJOINING) until this seq is applied. */
  private long rejoinUntil = -1;

  private volatile Snapshot snapshot;
  private volatile boolean stopped;

  /** How many times a state transfer started replacing the tree: see {@link #treeReplacing()}. */
  private volatile int treeReplacements;

  /**
   * @param state the state read at start-up
   * @param stateVersion its znode's data version
   */
  ApplierState(ApplierThread owner, GapTracker gaps, BookkeepingState state, int stateVersion) {
    this.owner = owner;
    this.gaps = gaps;
    this.epoch = state.epoch();
    this.appliedSeq = state.appliedSeq();
    this.stateVersion = stateVersion;
    this.snapshot = new Snapshot(epoch, appliedSeq, DuplicateState.ACTIVE);
  }

  long epoch() {
    assert owner.isCurrent() : ApplierThread.ONLY;
    return epoch;
  }

  long appliedSeq() {
    assert owner.isCurrent() : ApplierThread.ONLY;
    return appliedSeq;
  }

  /**
   * @return the state znode's data version, which the next update must match
   */
  int stateVersion() {
    assert owner.isCurrent() : ApplierThread.ONLY;
    return stateVersion;
  }

  /**
   * @return ACTIVE or FENCED
   */
  DuplicateState mode() {
    assert owner.isCurrent() : ApplierThread.ONLY;
    return mode;
  }

  boolean active() {
    return mode() == DuplicateState.ACTIVE;
  }

  /**
   * Records the state znode as {@code next}, at data version {@code version}.
   *
   * @return whether that recorded a newer epoch
   */
  boolean record(BookkeepingState next, int version) {
    assert owner.isCurrent() : ApplierThread.ONLY;
    boolean newEpoch = next.epoch() > epoch;
    epoch = next.epoch();
    appliedSeq = next.appliedSeq();
    stateVersion = version;
    return newEpoch;
  }

  /**
   * Abandons a state transfer in progress and stops applying.
   *
   * @return false if the duplicate was fenced already
   */
  boolean fence() {
    assert owner.isCurrent() : ApplierThread.ONLY;
    transfer = null;
    if (mode == DuplicateState.FENCED) {
      return false;
    }
    mode = DuplicateState.FENCED;
    return true;
  }

  /**
   * @return the state transfer being received, or null
   */
  StateTransfer.Install transfer() {
    assert owner.isCurrent() : ApplierThread.ONLY;
    return transfer;
  }

  /** A state transfer starts ({@code transfer}) or is given up (null). */
  void transfer(StateTransfer.Install transfer) {
    assert owner.isCurrent() : ApplierThread.ONLY;
    this.transfer = transfer;
  }

  /**
   * A state transfer was installed: the duplicate is ACTIVE at {@code installed} (znode version
   * {@code version}), and rejoining until it has applied {@code rejoinUntil}.
   */
  void installed(BookkeepingState installed, int version, long rejoinUntil) {
    assert owner.isCurrent() : ApplierThread.ONLY;
    transfer = null;
    mode = DuplicateState.ACTIVE;
    epoch = installed.epoch();
    appliedSeq = installed.appliedSeq();
    stateVersion = version;
    this.rejoinUntil = rejoinUntil;
  }

  /**
   * After a state transfer, until the duplicate has applied what the repeater had sequenced when it
   * ended.
   */
  boolean rejoining() {
    assert owner.isCurrent() : ApplierThread.ONLY;
    return appliedSeq < rejoinUntil;
  }

  long rejoinUntil() {
    assert owner.isCurrent() : ApplierThread.ONLY;
    return rejoinUntil;
  }

  /**
   * Publishes the state for other threads (unless stopping): CATCHING_UP while a transfer is
   * received, a gap is open or the duplicate rejoins.
   */
  void publish() {
    assert owner.isCurrent() : ApplierThread.ONLY;
    if (stopped) {
      return;
    }
    DuplicateState reported =
        transfer != null
                || (mode == DuplicateState.ACTIVE && (gaps.open(appliedSeq) || rejoining()))
            ? DuplicateState.CATCHING_UP
            : mode;
    Snapshot last = snapshot;
    if (last.epoch() != epoch || last.appliedSeq() != appliedSeq || last.state() != reported) {
      snapshot = new Snapshot(epoch, appliedSeq, reported);
    }
  }

  /**
   * The tree is about to be replaced (a state transfer installs): publishes CATCHING_UP first, so
   * that no read on another thread takes the tree for the ACTIVE one while it changes ({@link
   * TreeReads}).
   */
  void treeReplacing() {
    assert owner.isCurrent() : ApplierThread.ONLY;
    Snapshot last = snapshot;
    snapshot = new Snapshot(last.epoch(), last.appliedSeq(), DuplicateState.CATCHING_UP);
    incrementTreeReplacements();
  }

  @SuppressWarnings("NonAtomicVolatileUpdate") // only the applier thread writes it
  private void incrementTreeReplacements() {
    treeReplacements++;
  }

  /**
   * @return how many times the tree started being replaced; a read on another thread that sees it
   *     unchanged around its read did not overlap a replacement. Any thread.
   */
  int treeReplacements() {
    return treeReplacements;
  }

  /**
   * @return the state to report, as of the last handled message; any thread
   */
  Snapshot snapshot() {
    return snapshot;
  }

  /** The applier is stopping: nothing is published any more. Any thread. */
  void stop() {
    stopped = true;
  }

  /**
   * @return whether the applier is stopping; any thread
   */
  boolean stopped() {
    return stopped;
  }

  /** The applier thread has ended (or given up waiting for it): report STOPPED. Any thread. */
  void reportStopped() {
    Snapshot last = snapshot;
    snapshot = new Snapshot(last.epoch(), last.appliedSeq(), DuplicateState.STOPPED);
  }
}
