package io.zoolander.server.internal.repeater;

import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.ScheduledFuture;
import io.zoolander.server.internal.repeater.admission.AdmissionController;
import io.zoolander.server.internal.zk.RequestSize;
import io.zoolander.server.repeater.RepeaterSettings;
import io.zoolander.wire.ErrorCode;
import io.zoolander.wire.Message;
import io.zoolander.wire.NameRoutes;
import io.zoolander.wire.internal.WriteChecks;
import io.zoolander.wire.internal.WriteTrace;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sequencing and log trim: stamps each WRITE handed over by a client with the next {@code (epoch,
 * seq)}, keeps its SEQUENCED frame in the {@link RetransmissionLog}, offers the handoff's {@link
 * FrameRun} to every link and schedules the flush (held for a batching interval by the {@link
 * BatchingController}); trims the log at the lowest seq acked by the non-fenced duplicates; and
 * stops for good when the repeater closes or is deposed.
 *
 * <p>Back-pressure: when the log is full, the oldest entry is evicted if some non-fenced duplicate
 * has acked it (a connected duplicate that has not yet been sent it is fenced at once, a
 * disconnected one when it reconnects needing it); if none has, the WRITE is refused with
 * OVERLOADED instead, since evicting would fence them all (see {@link
 * RetransmissionLog#mayAppend}). Pausing clients is {@link ClientFlow}'s. A WRITE naming a name the
 * partition's route record freezes or has moved away is refused before it gets a seq ({@link
 * RouteGuard}).
 *
 * <p>Owned by the sequencer loop: the log, the run and the flush state are touched there only
 * (asserted), after {@link #begin} has filled the log on the starting thread. The epoch, the next
 * seq and the stop flags are volatile, read by any thread.
 */
final class Sequencer {
  private static final Logger LOG = LoggerFactory.getLogger(Sequencer.class);

  /** What became of one WRITE, see {@link #append}. */
  enum Outcome {
    /** Sequenced: in the log, and in the run. */
    SEQUENCED,
    /** Refused: the repeater is closing. */
    SHUTTING_DOWN,
    /** Refused: the repeater was deposed by a newer one. */
    STALE_EPOCH,
    /** Refused: above the rate admission control admits. */
    NOT_ADMITTED,
    /** Refused: the log is full of writes no live duplicate has acknowledged. */
    LOG_FULL,
    /** Refused: the SEQUENCED frame would exceed the frame limit (normally refused before). */
    TOO_LARGE
  }

  private final CoreConfig config;
  private final NettyRuntime runtime;
  private final List<DuplicateLink> links;
  private final BatchingController batching;
  private final ClientFlow clients;
  private final NameWriteRates nameWriteRates;
  private final FrameRun run = new FrameRun();
  private final Runnable flushTask = this::flushDirty;

  /** Sheds WRITEs above the admitted rate; null when admission control is off. */
  private AdmissionController admission;

  /** Refuses WRITEs to names moved or being moved away; set by {@link #begin}. */
  private RouteGuard routes;

  private RetransmissionLog log;
  private boolean flushScheduled;

  /** The timer of a flush that holds writes (a batching interval), or null. */
  private ScheduledFuture<?> heldFlush;

  /**
   * The highest seq acked by a non-fenced duplicate; {@link Long#MAX_VALUE} when all are fenced.
   */
  private long highestAckedLive;

  private volatile long epoch = -1;
  private volatile long nextSeq = -1;

  /** nextSeq when counting started: the write count is nextSeq - sequencedSince. */
  private volatile long sequencedSince = -1;

  private volatile boolean deposed;
  private volatile long claimedSeq;
  private volatile boolean closing;

  Sequencer(
      CoreConfig config,
      NettyRuntime runtime,
      List<DuplicateLink> links,
      BatchingController batching,
      ClientFlow clients,
      NameWriteRates nameWriteRates) {
    this.config = config;
    this.nameWriteRates = nameWriteRates;
    this.runtime = runtime;
    this.links = links;
    this.batching = batching;
    this.clients = clients;
  }

  // -------------------------------------------------------------------------------------------
  // start and stop

  /** The epoch claimed: what every SEQUENCED frame carries from now on. */
  void epoch(long claimed) {
    epoch = claimed;
  }

  /**
   * Fills the log with the recovered writes, re-stamped with this repeater's epoch, and continues
   * the sequence after {@code maxApplied}. A write that no longer fits in a frame (impossible
   * unless the frame limit shrank) ends the recovered run there: only the writes after it are kept.
   * On the starting thread, before the loop sequences anything.
   *
   * @param admission the admission controller, null when admission control is off
   * @param routeRecord the route record as of {@code maxApplied}
   * @return the first seq the log holds
   */
  long begin(
      long maxApplied,
      List<Message.Sequenced> recovered,
      AdmissionController admission,
      NameRoutes.Versioned routeRecord) {
    List<ByteBuf> frames = new ArrayList<>(recovered.size());
    for (Message.Sequenced write : recovered) {
      ByteBuf frame =
          FrameRun.encodeAlone(
              epoch, write.seq(), write.clientId(), write.requestId(), write.ops());
      if (frame == null) {
        LOG.error(
            "recovered write {} exceeds {} bytes as a frame: the writes up to it are not recovered",
            write.seq(),
            RepeaterSettings.MAX_FRAME_BYTES);
        frames.forEach(ByteBuf::release);
        frames.clear();
      } else {
        frames.add(frame);
      }
    }
    long firstSeq = maxApplied + 1 - frames.size();
    log = new RetransmissionLog(config.logCapacityMessages(), config.logCapacityBytes(), firstSeq);
    frames.forEach(log::append);
    this.admission = admission;
    this.routes = new RouteGuard(routeRecord);
    highestAckedLive = maxApplied;
    nextSeq = maxApplied + 1;
    claimedSeq = maxApplied;
    return firstSeq;
  }

  /** The highest seq applied anywhere at the claim, see {@link LinkHost#claimedSeq()}. */
  long claimedSeq() {
    return claimedSeq;
  }

  /** Counts {@link #sequencedWrites()} from {@code seq}, the next seq at start. */
  void countFrom(long seq) {
    sequencedSince = seq;
  }

  /** The repeater is closing: every further WRITE is refused with SHUTTING_DOWN. */
  void close() {
    closing = true;
  }

  /**
   * A newer repeater exists: every further WRITE is refused with STALE_EPOCH.
   *
   * @return false if already deposed or closing (nothing to do)
   */
  boolean depose() {
    if (deposed || closing) {
      return false;
    }
    deposed = true;
    return true;
  }

  /** Drops every entry of the log (if started): nothing more is sent from it. On the loop. */
  void clearLog() {
    assert runtime.inLoop() : "the log is confined to the sequencer loop";
    if (log != null) {
      log.clear();
    }
  }

  // -------------------------------------------------------------------------------------------
  // views (any thread)

  long epoch() {
    return epoch;
  }

  long nextSeq() {
    return nextSeq;
  }

  boolean isDeposed() {
    return deposed;
  }

  boolean isClosing() {
    return closing;
  }

  /** Whether links must stop connecting: closing or deposed. */
  boolean stopped() {
    return closing || deposed;
  }

  /** Whether {@link #begin} has run: there is a log. */
  boolean begun() {
    return log != null;
  }

  /** Writes sequenced since start (0 before). */
  long sequencedWrites() {
    long since = sequencedSince;
    return since < 0 ? 0 : nextSeq - since;
  }

  String staleMessage() {
    return "repeater epoch " + epoch + " has been superseded by a newer repeater";
  }

  /**
   * How many sequenced writes the log holds now (asked of the sequencer loop); -1 if stopped or not
   * answered in time.
   */
  int logSize() {
    EventLoop l = runtime.loop();
    if (l == null) {
      return -1;
    }
    try {
      return l.submit(() -> log.size())
          .get(RepeaterSettings.CLOSE_THREADS_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    } catch (ExecutionException | TimeoutException | RejectedExecutionException e) {
      return -1;
    }
  }

  /** The log, for the links. On the loop. */
  RetransmissionLog log() {
    assert runtime.inLoop() : "the log is confined to the sequencer loop";
    return log;
  }

  // -------------------------------------------------------------------------------------------
  // sequencing

  /**
   * Why {@code write} must not be sequenced, or null if it may be: an application path at or under
   * the base path (INVALID_OP), a SEQUENCED frame over the frame limit or a ZooKeeper request over
   * the duplicates' {@code jute.maxbuffer} (TOO_LARGE). Every duplicate would fail such a write:
   * refusing it here applies it nowhere. Pure; runs on the client I/O threads.
   */
  Message.Error refusal(Message.Write write) {
    String reserved = WriteChecks.reservedPath(write.ops(), config.znodes());
    if (reserved != null) {
      return Message.Error.forRequest(ErrorCode.INVALID_OP, write.requestId(), reserved);
    }
    long frameBytes = WriteChecks.sequencedFrameBytes(write.ops());
    if (frameBytes > RepeaterSettings.MAX_FRAME_BYTES) {
      return Message.Error.forRequest(
          ErrorCode.TOO_LARGE,
          write.requestId(),
          WriteChecks.tooLarge(frameBytes, RepeaterSettings.MAX_FRAME_BYTES));
    }
    if (!RequestSize.fitsInOneRequest(
        config.znodes(), write.clientId(), write.ops(), config.juteMaxBufferBytes())) {
      return Message.Error.forRequest(
          ErrorCode.TOO_LARGE,
          write.requestId(),
          "the write is too large for one"
              + " ZooKeeper request: with the plugin's bookkeeping it would exceed the duplicates' jute.maxbuffer of "
              + config.juteMaxBufferBytes()
              + " bytes (less "
              + RequestSize.HEADROOM_BYTES
              + " bytes of headroom; the"
              + " repeater's juteMaxBuffer setting)");
    }
    return null;
  }

  /**
   * Hands a client's WRITEs, in arrival order, to the sequencer loop (from a client I/O thread), or
   * sequences them at once when the client is read on the sequencer loop itself.
   *
   * @return false if the sequencer no longer runs (the caller refuses them)
   */
  boolean submit(ClientHandler from, List<Message.Write> writes) {
    if (runtime.inLoop()) {
      sequence(from, writes); // a client read on the sequencer loop (clientIoThreads 0): no queue
      return true;
    }
    return runtime.execute(() -> sequence(from, writes));
  }

  private void sequence(ClientHandler from, List<Message.Write> writes) {
    assert runtime.inLoop() : "writes are sequenced on the sequencer loop";
    try {
      for (Message.Write write : writes) {
        sequenceOne(from, write);
      }
    } finally {
      run.offer(links);
      scheduleFlush();
      from.handoffDone();
    }
  }

  private void sequenceOne(ClientHandler from, Message.Write write) {
    long requestId = write.requestId();
    WriteTrace.mark(WriteTrace.Stage.SEQUENCED, write.clientId(), requestId);
    // A stopped sequencer's record may be stale: it refuses for being stopped instead (append).
    RouteGuard.Check route = stopped() ? RouteGuard.Check.SEQUENCE : routes.check(write);
    Message.Error refused = route.refusal();
    if (refused != null) {
      from.refuse(refused.code(), requestId, refused.retryAfterMillis(), refused.message());
      return;
    }
    switch (append(write)) {
      case SEQUENCED -> {
        routes.sequenced(route);
        nameWriteRates.sequenced(write);
        clients.sequenced(from, log.lastSeq() - highestAckedLive);
      }
      case SHUTTING_DOWN ->
          from.refuse(ErrorCode.SHUTTING_DOWN, requestId, 0, "the repeater is shutting down");
      case STALE_EPOCH -> from.refuse(ErrorCode.STALE_EPOCH, requestId, 0, staleMessage());
      case NOT_ADMITTED ->
          from.refuse(
              ErrorCode.OVERLOADED,
              requestId,
              admission.retryAfterMs(),
              "admission control: the"
                  + " duplicates would miss the target SLA at tau at the offered write rate; retry after the hint");
      case LOG_FULL ->
          from.refuse(
              ErrorCode.OVERLOADED,
              requestId,
              RepeaterSettings.OVERLOADED_RETRY_AFTER_MILLIS,
              "the retransmission log is full of writes no duplicate has acknowledged");
      case TOO_LARGE -> // refused before the handoff already (refusal): a safety net
          from.refuse(
              ErrorCode.TOO_LARGE,
              requestId,
              0,
              WriteChecks.tooLarge(
                  WriteChecks.sequencedFrameBytes(write.ops()), RepeaterSettings.MAX_FRAME_BYTES));
    }
  }

  /** Sequences one WRITE, or says why not. */
  private Outcome append(Message.Write write) {
    if (closing) {
      return Outcome.SHUTTING_DOWN;
    }
    if (deposed) {
      return Outcome.STALE_EPOCH;
    }
    if (admission != null && !admission.tryAdmit()) {
      return Outcome.NOT_ADMITTED;
    }
    if (!makeRoom(WriteChecks.sequencedFrameBytes(write.ops()))) {
      return Outcome.LOG_FULL;
    }
    long seq = log.nextSeq();
    ByteBuf frame = run.encode(epoch, seq, write.clientId(), write.requestId(), write.ops());
    if (frame == null) {
      return Outcome.TOO_LARGE;
    }
    log.append(frame);
    if (admission != null) {
      admission.sequenced(seq);
    }
    nextSeq = seq + 1;
    run.sequenced(seq);
    if (run.full()) {
      run.offer(links);
    }
    return Outcome.SEQUENCED;
  }

  /**
   * Makes room for one more entry if the log is full, by the back-pressure rule; false to refuse
   * the write.
   */
  private boolean makeRoom(long frameBytes) {
    boolean offered = false;
    while (!log.hasRoomFor(frameBytes)) {
      if (!log.mayEvictOldest(highestAckedLive)) {
        return false;
      }
      if (!offered) {
        // Links decide on fencing by what they were sent: send them everything sequenced first.
        run.offer(links);
        offered = true;
      }
      long evicted = log.evictOldest();
      for (DuplicateLink link : links) {
        link.evicted(evicted);
      }
    }
    return true;
  }

  // -------------------------------------------------------------------------------------------
  // flushing

  private void scheduleFlush() {
    if (!flushScheduled) {
      flushScheduled = true;
      long holdNanos = batching.holdNanos();
      if (holdNanos == 0) {
        runtime.loop().execute(flushTask);
      } else {
        heldFlush =
            runtime
                .loop()
                .schedule(
                    flushTask,
                    holdNanos,
                    TimeUnit.NANOSECONDS); // the writes until then go together
      }
    }
  }

  /**
   * An ACK left no flush unacknowledged: under an adaptive policy the writes held for it go now,
   * not at the timer.
   */
  private void releaseHeldWrites() {
    if (heldFlush != null && batching.releaseHeldWrites()) {
      heldFlush.cancel(false);
      flushDirty();
    }
  }

  /** Runs after the handoffs queued before it: one flush per plugin connection for all of them. */
  private void flushDirty() {
    assert runtime.inLoop() : "flushes run on the sequencer loop";
    flushScheduled = false;
    heldFlush = null;
    for (int i = 0; i < links.size(); i++) {
      links.get(i).flushIfDirty();
    }
    batching.flushed(log.lastSeq());
  }

  // -------------------------------------------------------------------------------------------
  // trimming

  /**
   * An ack, a fencing or a transfer changed what the duplicates hold: trims the log at the lowest
   * seq acked by a non-fenced duplicate (or held by a transfer; everything if all are fenced), and
   * notes the highest ({@link Long#MAX_VALUE} if all are fenced: nothing is worth keeping), which
   * decides eviction and pausing clients.
   */
  void trim() {
    assert runtime.inLoop() : "the log is trimmed on the sequencer loop";
    long lowest = Long.MAX_VALUE;
    long highest = -1;
    for (int i = 0; i < links.size(); i++) {
      DuplicateLink link = links.get(i);
      Transfer transfer = link.transfer();
      if (transfer != null) {
        // the writes after the snapshot are streamed to it next
        lowest = Math.min(lowest, transfer.holdSeq);
      } else if (!link.fenced()) {
        lowest = Math.min(lowest, link.ackedSeq());
        highest = Math.max(highest, link.ackedSeq());
        if (admission != null) {
          admission.acked(i, link.ackedSeq());
        }
      }
    }
    highestAckedLive = lowest == Long.MAX_VALUE ? Long.MAX_VALUE : highest;
    batching.acked(highest);
    releaseHeldWrites();
    log.trimThrough(lowest == Long.MAX_VALUE ? log.lastSeq() : lowest);
    clients.trimmed(highestAckedLive, log.lastSeq());
  }
}
