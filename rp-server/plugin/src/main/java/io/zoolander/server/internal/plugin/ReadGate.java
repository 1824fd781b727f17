package io.zoolander.server.internal.plugin;

import io.netty.channel.Channel;
import io.zoolander.wire.DuplicateState;
import io.zoolander.wire.ErrorCode;
import io.zoolander.wire.Message;
import java.util.Comparator;
import java.util.PriorityQueue;
import java.util.concurrent.TimeUnit;

/**
 * Read gating: a READ is served only once the duplicate has applied its {@code minSeq}, and only by
 * a duplicate that is neither fenced nor rejoining after a state transfer. A read that is early
 * waits (bounded in number, up to {@code readWaitMs}) until applying catches up ({@link #release}),
 * or is refused with OVERLOADED when it cannot be served in time ({@link #expire}). A read that
 * passes is issued on the applier's session ({@link SessionReads}) between two applies. Owned by
 * the applier thread (asserted).
 */
final class ReadGate {

  /**
   * {@code retryAfterMillis} of the OVERLOADED error refusing a read this duplicate has not caught
   * up with.
   */
  static final long NOT_CAUGHT_UP_RETRY_AFTER_MS = 50;

  /** What becomes of a READ, see {@link #verdict}. */
  enum Verdict {
    /** The duplicate is fenced: ERROR(FENCED). */
    FENCED,
    /** A state transfer is received, or the duplicate rejoins after one: ERROR(REJOINING). */
    REJOINING,
    /** Applied far enough: issued now. */
    SERVE,
    /** Not applied far enough yet: waits. */
    WAIT,
    /** Not applied far enough, and not allowed to wait: ERROR(OVERLOADED). */
    NOT_CAUGHT_UP
  }

  private record WaitingRead(Channel channel, Message.Read read, long deadlineNanos) {}

  private final ApplierThread owner;
  private final int duplicateId;
  private final ApplierState state;
  private final SessionReads reads;
  private final long readWaitMs;
  private final int maxWaiting;
  private final PriorityQueue<WaitingRead> waiting =
      new PriorityQueue<>(Comparator.comparingLong((WaitingRead w) -> w.read().minSeq()));

  /**
   * @param readWaitMs how long a read waits for its {@code minSeq} to be applied; 0: not at all
   * @param maxWaiting most reads waiting
   */
  ReadGate(
      ApplierThread owner,
      int duplicateId,
      ApplierState state,
      SessionReads reads,
      long readWaitMs,
      int maxWaiting) {
    this.owner = owner;
    this.duplicateId = duplicateId;
    this.state = state;
    this.reads = reads;
    this.readWaitMs = readWaitMs;
    this.maxWaiting = maxWaiting;
  }

  /**
   * @return what becomes of a read of {@code minSeq} now
   */
  Verdict verdict(long minSeq) {
    assert owner.isCurrent() : ApplierThread.ONLY;
    if (state.mode() == DuplicateState.FENCED && state.transfer() == null) {
      return Verdict.FENCED;
    } else if (state.transfer() != null || state.rejoining()) {
      return Verdict.REJOINING;
    } else if (minSeq <= state.appliedSeq()) {
      return Verdict.SERVE;
    } else if (readWaitMs == 0 || waiting.size() >= maxWaiting) {
      return Verdict.NOT_CAUGHT_UP;
    }
    return Verdict.WAIT;
  }

  /** A client sent {@code read} on {@code from}: serve, park or refuse it. */
  void read(Channel from, Message.Read read) {
    switch (verdict(read.minSeq())) {
      case FENCED -> Outbound.send(from, fencedError(read.requestId()));
      case REJOINING -> Outbound.send(from, rejoiningError(read.requestId()));
      case SERVE -> reads.issue(from, read, state.appliedSeq());
      case NOT_CAUGHT_UP -> refuseNotCaughtUp(from, read);
      case WAIT ->
          waiting.add(
              new WaitingRead(
                  from, read, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(readWaitMs)));
    }
  }

  /** Applying progressed: issues the waiting reads whose {@code minSeq} is applied now. */
  void release() {
    assert owner.isCurrent() : ApplierThread.ONLY;
    while (!waiting.isEmpty() && waiting.peek().read().minSeq() <= state.appliedSeq()) {
      WaitingRead w = waiting.poll();
      if (w.channel().isActive()) {
        reads.issue(w.channel(), w.read(), state.appliedSeq());
      }
    }
  }

  /** Refuses the waiting reads whose time is up, or whose connection is gone. */
  void expire() {
    assert owner.isCurrent() : ApplierThread.ONLY;
    if (waiting.isEmpty()) {
      return;
    }
    long now = System.nanoTime();
    waiting.removeIf(
        w -> {
          if (now - w.deadlineNanos() >= 0 || !w.channel().isActive()) {
            refuseNotCaughtUp(w.channel(), w.read());
            return true;
          }
          return false;
        });
  }

  /** The duplicate was fenced: every waiting read is refused with ERROR(FENCED). */
  void refuseAllFenced() {
    assert owner.isCurrent() : ApplierThread.ONLY;
    while (!waiting.isEmpty()) {
      WaitingRead w = waiting.poll();
      Outbound.send(w.channel(), fencedError(w.read().requestId()));
    }
  }

  /** A state transfer starts: every waiting read is refused with ERROR(REJOINING). */
  void refuseAllRejoining() {
    assert owner.isCurrent() : ApplierThread.ONLY;
    while (!waiting.isEmpty()) {
      WaitingRead w = waiting.poll();
      Outbound.send(w.channel(), rejoiningError(w.read().requestId()));
    }
  }

  private void refuseNotCaughtUp(Channel channel, Message.Read read) {
    Outbound.send(
        channel,
        new Message.Error(
            ErrorCode.OVERLOADED,
            read.requestId(),
            NOT_CAUGHT_UP_RETRY_AFTER_MS,
            "duplicate "
                + duplicateId
                + " has applied seq "
                + state.appliedSeq()
                + ", not yet minSeq "
                + read.minSeq()));
  }

  private Message.Error fencedError(long requestId) {
    return Message.Error.forRequest(
        ErrorCode.FENCED, requestId, "duplicate " + duplicateId + " is fenced");
  }

  private Message.Error rejoiningError(long requestId) {
    return Message.Error.forRequest(
        ErrorCode.REJOINING,
        requestId,
        "duplicate "
            + duplicateId
            + " is rejoining"
            + " after a state transfer (at seq "
            + state.appliedSeq()
            + "): it serves no reads until caught up");
  }
}
