package io.zoolander.server.internal.plugin;

import io.netty.channel.Channel;
import io.zoolander.wire.Message;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The rules for each SEQUENCED against the recorded {@code (state.epoch, appliedSeq)}, in the order
 * received: an older epoch is refused ({@link EpochGuard}); a seq applied already is a replay,
 * ACKed again to its sender; a seq beyond {@code appliedSeq + 1} is held ({@link GapTracker}) and
 * the missing range asked for; the next seq is applied, in a batch with the consecutive ones after
 * it ({@link BatchApplier}) or alone ({@link WriteApplier}), and evaluated again if the state had
 * to be read again. After a run that advanced {@code appliedSeq}: the held messages that became
 * next are applied, one cumulative ACK goes to every repeater connection, and waiting reads are
 * released. Owned by the applier thread (asserted).
 */
final class SequencedWrites {

  private static final Logger LOG = LoggerFactory.getLogger(SequencedWrites.class);

  private final ApplierThread owner;
  private final int duplicateId;
  private final ApplierState state;
  private final GapTracker gaps;
  private final EpochGuard epochs;
  private final BatchApplier batches;
  private final WriteApplier writes;
  private final WriteStall stall;
  private final RecentWrites recent;
  private final ReadGate reads;
  private final Outbound out;
  private final long retransmitTimeoutNanos;

  SequencedWrites(
      ApplierThread owner,
      int duplicateId,
      ApplierState state,
      GapTracker gaps,
      EpochGuard epochs,
      BatchApplier batches,
      WriteApplier writes,
      WriteStall stall,
      RecentWrites recent,
      ReadGate reads,
      Outbound out,
      long retransmitTimeoutMs) {
    this.owner = owner;
    this.duplicateId = duplicateId;
    this.state = state;
    this.gaps = gaps;
    this.epochs = epochs;
    this.batches = batches;
    this.writes = writes;
    this.stall = stall;
    this.recent = recent;
    this.reads = reads;
    this.out = out;
    this.retransmitTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(retransmitTimeoutMs);
  }

  /**
   * {@code messages} came on {@code from}, in this order: applied unless the duplicate is fenced or
   * receiving a state transfer (then ignored).
   */
  void received(Channel from, List<Message.Sequenced> messages) throws InterruptedException {
    assert owner.isCurrent() : ApplierThread.ONLY;
    if (!state.active() || state.transfer() != null) {
      LOG.debug(
          "Duplicate {} is {}: ignoring seq {}..{}",
          duplicateId,
          state.mode(),
          messages.get(0).seq(),
          messages.get(messages.size() - 1).seq());
      return;
    }
    long before = state.appliedSeq();
    applyRun(from, messages);
    drainHeld();
    if (state.appliedSeq() > before) {
      out.ackRepeaters();
      reads.release();
    }
    requestRetransmitIfNeeded();
  }

  /** Handles {@code messages} in order, the consecutive writes among them in batches. */
  private void applyRun(Channel from, List<Message.Sequenced> messages)
      throws InterruptedException {
    int i = 0;
    while (i < messages.size() && state.active()) {
      int end = batches.end(messages, i);
      int handled = end - i >= 2 ? batches.apply(from, messages.subList(i, end)) : 0;
      if (handled > 0) {
        i += handled;
      } else if (handled == 0) {
        handle(from, messages.get(i));
        i++;
      }
      // handled < 0: the state was read again; evaluate from i again
    }
  }

  private void handle(Channel from, Message.Sequenced message) throws InterruptedException {
    boolean stalled = false;
    boolean attempted = false;
    while (state.active()) {
      if (attempted && message.seq() == state.appliedSeq()) {
        // An attempt whose answer was lost did apply it (before a newer repeater's epoch was
        // recorded, if one was: that check comes after this one).
        recent.applied(message);
        Outbound.send(from, out.ack());
        return;
      }
      if (epochs.check(from, message) == EpochGuard.Verdict.STALE) {
        return;
      }
      if (message.seq() <= state.appliedSeq()) {
        Outbound.send(from, out.ack());
        return;
      }
      if (message.seq() > state.appliedSeq() + 1) {
        gaps.hold(from, message);
        state.publish(); // CATCHING_UP, before the RETRANSMIT goes out
        return;
      }
      if (!stalled) {
        stalled = true;
        stall.before(message.seq());
      }
      attempted = true;
      if (writes.apply(message) == WriteApplier.Outcome.APPLIED) {
        recent.applied(message);
        return;
      }
      // The state was read again: evaluate the message again.
    }
  }

  private void drainHeld() throws InterruptedException {
    while (state.active()) {
      GapTracker.Held next = gaps.takeNext(state.appliedSeq());
      if (next == null) {
        return;
      }
      handle(next.from(), next.message());
    }
  }

  /**
   * Asks for the missing range, unless it was asked for already and neither progress nor a timeout
   * happened; on the connection the gap's messages came on, or any repeater's.
   */
  void requestRetransmitIfNeeded() {
    assert owner.isCurrent() : ApplierThread.ONLY;
    long now = System.nanoTime();
    if (gaps.retransmit(state.active(), state.appliedSeq(), now, retransmitTimeoutNanos)
        != GapTracker.Ask.ASK) {
      return;
    }
    Channel target = gaps.askOn();
    if (target == null) {
      target = out.anyRepeater();
    }
    if (target == null) {
      return; // asked when a repeater is connected again (it resends from STATUS anyway)
    }
    long epoch = gaps.askEpoch(state.epoch());
    LOG.info(
        "Duplicate {}: gap after seq {}; asking for {}..{} (repeater epoch {})",
        duplicateId,
        state.appliedSeq(),
        gaps.askFrom(),
        gaps.askTo(),
        epoch);
    Outbound.send(target, new Message.Retransmit(duplicateId, epoch, gaps.askFrom(), gaps.askTo()));
    gaps.asked(now);
  }
}
