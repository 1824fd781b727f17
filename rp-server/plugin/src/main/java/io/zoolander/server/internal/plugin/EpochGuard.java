package io.zoolander.server.internal.plugin;

import io.netty.channel.Channel;
import io.zoolander.wire.BookkeepingState;
import io.zoolander.wire.ErrorCode;
import io.zoolander.wire.Message;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Repeater epochs: a SEQUENCED of an epoch older than the recorded one is refused ({@link #check}),
 * with one warning per stale epoch, since a deposed repeater's stream is long; and every new state
 * goes through {@link #advance}, which notices a newer epoch being recorded (a new repeater's first
 * write, or its claim seen when the state is read again) and refuses the held messages that can
 * then never apply. Owned by the applier thread (asserted).
 */
final class EpochGuard {

  private static final Logger LOG = LoggerFactory.getLogger(EpochGuard.class);

  /** What {@link #check} decided. */
  enum Verdict {
    /** The message's epoch is the recorded one or newer: evaluate it. */
    CURRENT,
    /** The message's epoch is older: it was refused with ERROR(STALE_EPOCH). */
    STALE
  }

  private final ApplierThread owner;
  private final int duplicateId;
  private final ApplierState state;
  private final GapTracker gaps;

  /**
   * The stale epoch last warned about, so that a deposed repeater's stream is one warning, not one
   * per write.
   */
  private long warnedStaleEpoch = -1;

  EpochGuard(ApplierThread owner, int duplicateId, ApplierState state, GapTracker gaps) {
    this.owner = owner;
    this.duplicateId = duplicateId;
    this.state = state;
    this.gaps = gaps;
  }

  /**
   * Refuses {@code message}, received on {@code from}, if its epoch is older than the recorded one.
   */
  Verdict check(Channel from, Message.Sequenced message) {
    assert owner.isCurrent() : ApplierThread.ONLY;
    long epoch = state.epoch();
    if (message.epoch() >= epoch) {
      return Verdict.CURRENT;
    }
    if (message.epoch()
        != warnedStaleEpoch) { // once per epoch: a deposed repeater's stream is long
      warnedStaleEpoch = message.epoch();
      LOG.warn(
          "Duplicate {}: refusing seq {} of stale repeater epoch {} (recorded repeater epoch {}); further writes of"
              + " that epoch are refused with no more warnings",
          duplicateId,
          message.seq(),
          message.epoch(),
          epoch);
    } else {
      LOG.debug(
          "Duplicate {}: refusing seq {} of stale repeater epoch {} (recorded repeater epoch {})",
          duplicateId,
          message.seq(),
          message.epoch(),
          epoch);
    }
    Outbound.send(from, staleEpoch(message));
    return Verdict.STALE;
  }

  /**
   * Records {@code next} as the state (znode version {@code version}) and publishes it, before the
   * REPLY and ACK go out, so a STATUS asked for after them is never older. If that records a newer
   * epoch, held messages of an older one are refused now.
   */
  void advance(BookkeepingState next, int version) {
    assert owner.isCurrent() : ApplierThread.ONLY;
    if (state.record(next, version)) {
      LOG.info(
          "Duplicate {} recorded repeater epoch {} at seq {}",
          duplicateId,
          state.epoch(),
          state.appliedSeq());
      for (GapTracker.Held h : gaps.dropOlderThan(state.epoch(), state.appliedSeq())) {
        Outbound.send(h.from(), staleEpoch(h.message()));
      }
    }
    state.publish();
  }

  private Message.Error staleEpoch(Message.Sequenced message) {
    return Message.Error.forRequest(
        ErrorCode.STALE_EPOCH,
        message.seq(),
        "epoch "
            + message.epoch()
            + " is older than duplicate "
            + duplicateId
            + "'s epoch "
            + state.epoch());
  }
}
