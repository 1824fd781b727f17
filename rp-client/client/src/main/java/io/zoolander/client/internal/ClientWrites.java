package io.zoolander.client.internal;

import io.netty.channel.EventLoop;
import io.netty.util.concurrent.ScheduledFuture;
import io.zoolander.client.InconsistencyEvent;
import io.zoolander.client.RetryBudget;
import io.zoolander.client.WriteResult;
import io.zoolander.client.ZoolanderException;
import io.zoolander.wire.ClientRecord;
import io.zoolander.wire.ErrorCode;
import io.zoolander.wire.Message;
import io.zoolander.wire.internal.WriteTrace;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.apache.zookeeper.KeeperException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client's writes in flight: each is sent to the repeater under a request id drawn in the order
 * writes go out, re-sent under the same id until a plugin's REPLY (a plugin applies a request id at
 * most once), given a new id only when every attempt is known never applied (shed, or refused as
 * never applied), failed at its deadline or on a refusal. Later replies to an answered write are
 * compared with the first. A repeater connection that stays silent under a write is suspected
 * half-open and dropped ({@link RepeaterSilence}).
 *
 * <p>Confined to the client's event loop, like the rest of the client's request state; {@link
 * #submit} is the one method called from other threads.
 */
final class ClientWrites {
  private static final Logger LOG = LoggerFactory.getLogger(ClientWrites.class);

  /** What the writes need of the rest of the client (event loop). */
  interface Host extends RequestHost {
    /**
     * How many duplicates the client is linked to and has not seen retired (active or joining):
     * each applies every write, and may still reply to one.
     */
    int liveDuplicates();
  }

  private final ClientSettings settings;
  private final EventLoop loop;
  private final PeerLink repeater;
  private final List<PeerLink> plugins;
  private final ClientMetrics metrics;
  private final AtomicLong nextRequestId;
  private final Host host;
  private final RepeaterSilence silence = new RepeaterSilence();
  private final TreeMap<Long, PendingWrite> writes = new TreeMap<>();
  private final Map<Long, AnsweredWrite> answeredWrites;

  /**
   * @param nextRequestId the client's request ids, shared with its reads and barriers
   * @param answeredWrites where answered writes are kept (bounded)
   */
  ClientWrites(
      ClientSettings settings,
      EventLoop loop,
      PeerLink repeater,
      List<PeerLink> plugins,
      ClientMetrics metrics,
      AtomicLong nextRequestId,
      Map<Long, AnsweredWrite> answeredWrites,
      Host host) {
    this.settings = settings;
    this.loop = loop;
    this.repeater = repeater;
    this.plugins = plugins;
    this.metrics = metrics;
    this.nextRequestId = nextRequestId;
    this.answeredWrites = answeredWrites;
    this.host = host;
  }

  /** Starts a validated write (request id not drawn yet) on the event loop. Any thread. */
  void submit(Message.Write validated, CompletableFuture<WriteResult> future) {
    PendingWrite pending = new PendingWrite(validated, future, settings.ticker().nanoTime());
    loop.execute(() -> startWrite(pending));
  }

  /** Anything from the repeater: writes get through. */
  void heardFromRepeater() {
    silence.heard(settings.ticker().nanoTime());
  }

  /**
   * An ERROR naming {@code requestId}: handled if it is a pending write's.
   *
   * @return whether it was
   */
  boolean onError(PeerLink from, Message.Error error) {
    PendingWrite w = writes.get(error.requestId());
    if (w == null) {
      return false;
    }
    onWriteError(from, w, error);
    return true;
  }

  /**
   * Re-sends every unanswered write in request order (the repeater connection is ready again): a
   * plugin applies each request id at most once.
   */
  void resendAll() {
    List.copyOf(writes.values()).forEach(this::sendWrite);
  }

  /** Fails every pending write with {@code e} and forgets the answered ones (the client closes). */
  void failAll(ZoolanderException e) {
    List.copyOf(writes.values()).forEach(w -> failWrite(w, e));
    answeredWrites.clear();
  }

  /** Writes pending. */
  int pending() {
    return writes.size();
  }

  static final class PendingWrite {
    Message.Write write;
    final CompletableFuture<WriteResult> future;
    final long startNanos;
    WriteResult first;

    /** Attempts handed to a repeater connection: each may have been sequenced. */
    int attempts;

    /** Attempts refused with OVERLOADED (not sequenced). */
    int shed;

    /**
     * The duplicates (link names) that answered DUPLICATE_REQUEST: they applied the write earlier
     * but no longer hold its result. A duplicate still behind will reply with it when it applies.
     */
    final Set<String> resultLostAt = new HashSet<>();

    /** The last such answer's message; null while none came. */
    @Nullable String resultLost;

    ScheduledFuture<?> retry;
    ScheduledFuture<?> deadline;

    PendingWrite(Message.Write write, CompletableFuture<WriteResult> future, long startNanos) {
      this.write = write;
      this.future = future;
      this.startNanos = startNanos;
    }
  }

  /**
   * What is kept of an answered write to compare later replies with the first: not its ops (their
   * data could take gigabytes over {@value DefaultZoolanderClient#ANSWERED_KEPT} writes).
   */
  record AnsweredWrite(long startNanos, WriteResult first) {}

  private void startWrite(PendingWrite w) {
    if (host.closed()) {
      w.future.completeExceptionally(DefaultZoolanderClient.closedException());
      return;
    }
    // Request ids are drawn in the order writes go out, so each duplicate sees a client's first
    // attempts in
    // increasing id order: the plugins' retry check (clientId, requestId) relies on it.
    w.write = new Message.Write(w.write.clientId(), nextRequestId.incrementAndGet(), w.write.ops());
    writes.put(w.write.requestId(), w);
    WriteTrace.mark(
        WriteTrace.Stage.CLIENT_CALLED, w.write.clientId(), w.write.requestId(), w.startNanos);
    WriteTrace.mark(WriteTrace.Stage.CLIENT_SENT, w.write.clientId(), w.write.requestId());
    w.deadline =
        loop.schedule(
            () ->
                failWrite(
                    w,
                    w.resultLost != null
                        ? resultLost(w)
                        : new ZoolanderException(
                            KeeperException.Code.OPERATIONTIMEOUT,
                            "write "
                                + w.write.requestId()
                                + " not acknowledged within "
                                + settings.requestTimeoutMs()
                                + " ms"
                                + whyUnacknowledged())),
            settings.requestTimeoutMs(),
            TimeUnit.MILLISECONDS);
    sendWrite(w);
  }

  /**
   * @return why a write may have gone unacknowledged, as the end of its timeout message: no
   *     repeater reachable, or no plugin connected to reply; empty if both are connected
   */
  private String whyUnacknowledged() {
    if (!repeater.isReady()) {
      return ": no repeater is reachable (tried "
          + settings.repeaters().stream()
              .map(a -> a.getHostString() + ":" + a.getPort())
              .collect(Collectors.joining(", "))
          + ")";
    }
    if (plugins.stream().noneMatch(PeerLink::isReady)) {
      return ": no duplicate's plugin is connected to reply";
    }
    return "";
  }

  /** Sends (or re-sends, same request id) a write; a plugin applies a request id at most once. */
  private void sendWrite(PendingWrite w) {
    if (silence.suspect(
        w.startNanos,
        w.attempts,
        repeater.isReady(),
        plugins.stream().anyMatch(PeerLink::isReady),
        settings.ticker().nanoTime())) {
      LOG.warn(
          "write {} sent {} times and nothing heard since, from the repeater or for any write, while"
              + " plugins are connected: the repeater connection looks half-open; connecting again"
              + " (to the next repeater address, if there are several)",
          w.write.requestId(),
          w.attempts);
      repeater.reconnect(); // the reconnection re-sends the pending writes
      return;
    }
    if (w.attempts > 0) {
      metrics.writeRetry();
    }
    // Only an attempt handed to a connection can have been sequenced; while the repeater is down,
    // the retry timer or the reconnection sends it.
    if (repeater.send(w.write)) {
      w.attempts++;
    }
    scheduleWriteRetry(w, settings.writeRetryMs());
  }

  private void scheduleWriteRetry(PendingWrite w, long delayMs) {
    if (w.retry != null) {
      w.retry.cancel(false);
    }
    w.retry =
        loop.schedule(
            () -> {
              if (writes.get(w.write.requestId()) == w) {
                sendWrite(w);
              }
            },
            delayMs,
            TimeUnit.MILLISECONDS);
  }

  /** A REPLY from a plugin: the first completes its write, later ones are compared with it. */
  void onReply(Message.Reply reply) {
    silence.heard(settings.ticker().nanoTime());
    host.advanceSeen(reply.seq());
    PendingWrite w = writes.remove(reply.requestId());
    if (w != null) {
      WriteTrace.mark(WriteTrace.Stage.CLIENT_ANSWERED, reply.clientId(), reply.requestId());
      w.retry.cancel(false);
      w.deadline.cancel(false);
      w.first = new WriteResult(reply.seq(), reply.duplicateId(), reply.results());
      answeredWrites.put(reply.requestId(), new AnsweredWrite(w.startNanos, w.first));
      long latency = settings.ticker().nanoTime() - w.startNanos;
      metrics.writeCompleted(latency);
      host.notifyReply(true, reply.requestId(), host.indexOf(reply.duplicateId()), latency, true);
      w.future.complete(w.first);
      return;
    }
    AnsweredWrite answered = answeredWrites.get(reply.requestId());
    if (answered != null) {
      host.notifyReply(
          true,
          reply.requestId(),
          host.indexOf(reply.duplicateId()),
          settings.ticker().nanoTime() - answered.startNanos(),
          false);
      if (!answered.first().results().equals(reply.results())
          || answered.first().seq() != reply.seq()) {
        host.reportInconsistency(
            new InconsistencyEvent(
                reply.seq(),
                "write " + reply.requestId(),
                List.of(answered.first().duplicateId(), reply.duplicateId()),
                "duplicate "
                    + answered.first().duplicateId()
                    + " replied seq "
                    + answered.first().seq()
                    + " "
                    + answered.first().results()
                    + ", duplicate "
                    + reply.duplicateId()
                    + " replied seq "
                    + reply.seq()
                    + " "
                    + reply.results()));
      }
    }
  }

  /**
   * A duplicate applied the write long ago (a retry reached it more than {@link
   * ClientRecord#WINDOW} of this client's writes later) and no longer holds its result. A duplicate
   * that has not applied it yet (a slow one, while a fast one got the retry) will still reply with
   * the result: the write fails only once every counted duplicate has answered so, or at its
   * deadline.
   */
  private void onResultLost(PeerLink from, PendingWrite w, Message.Error error) {
    w.resultLostAt.add(from.name());
    w.resultLost = error.message();
    if (w.resultLostAt.size() >= host.liveDuplicates()) {
      failWrite(w, resultLost(w));
    } else {
      LOG.debug(
          "{} applied write {} earlier and no longer holds its result; waiting for a duplicate"
              + " that has not applied it yet to reply",
          from.name(),
          w.write.requestId());
    }
  }

  private static ZoolanderException resultLost(PendingWrite w) {
    return new ZoolanderException(
        KeeperException.Code.SYSTEMERROR,
        ErrorCode.DUPLICATE_REQUEST,
        "write "
            + w.write.requestId()
            + " WAS applied by an earlier attempt, but its result is no longer held "
            + "(more than "
            + ClientRecord.WINDOW
            + " later writes): "
            + w.resultLost,
        null);
  }

  private void failWrite(PendingWrite w, ZoolanderException e) {
    if (writes.remove(w.write.requestId()) == w) {
      w.retry.cancel(false);
      w.deadline.cancel(false);
      w.future.completeExceptionally(e);
    }
  }

  /**
   * Whether {@code code} refuses the request itself (invalid or too large), so that retrying it
   * cannot help.
   */
  static boolean refusesTheRequest(ErrorCode code) {
    return code == ErrorCode.INVALID_OP
        || code == ErrorCode.INVALID_PATH
        || code == ErrorCode.UNKNOWN_OP
        || code == ErrorCode.TOO_LARGE;
  }

  private void onWriteError(PeerLink from, PendingWrite w, Message.Error error) {
    if (error.code() == ErrorCode.INVALID_OP && from != repeater) {
      onWriteNeverApplied(from, w, error);
      return;
    }
    if (refusesTheRequest(error.code())) {
      failWrite(
          w,
          new ZoolanderException(
              KeeperException.Code.BADARGUMENTS,
              error.code(),
              from.name() + " refused the write: " + error.message(),
              null));
      return;
    }
    switch (error.code()) {
      case OVERLOADED, NAME_FROZEN -> onWriteShed(from, w, error); // both end: send it again later
      case NAME_MOVED -> onNameMoved(from, w, error);
      case UNAUTHENTICATED, UNAUTHORIZED ->
          failWrite(
              w,
              new ZoolanderException(
                  KeeperException.Code.NOAUTH,
                  error.code(),
                  from.name() + " refused the write: " + error.message(),
                  null));
      case DUPLICATE_REQUEST -> onResultLost(from, w, error);
      default ->
          LOG.debug(
              "{} answered write {} with {}: {}; waiting for other replies or the retry",
              from.name(),
              w.write.requestId(),
              error.code(),
              error.message());
    }
  }

  /**
   * The repeater refused an attempt because a name it touches has moved to another partition (not
   * sequenced). If every attempt so far was refused before sequencing, the write was applied
   * nowhere: it fails with BADARGUMENTS, which a {@code PartitionedClient} takes as its cue to send
   * it to the name's new partition. If an earlier attempt may have been sequenced before the move,
   * it may have been applied and moved along with the name: it fails with CONNECTIONLOSS, as any
   * write whose outcome is unknown, and is not sent anywhere again.
   */
  private void onNameMoved(PeerLink from, PendingWrite w, Message.Error error) {
    boolean appliedNowhere = w.shed + 1 == w.attempts;
    failWrite(
        w,
        new ZoolanderException(
            appliedNowhere
                ? KeeperException.Code.BADARGUMENTS
                : KeeperException.Code.CONNECTIONLOSS,
            ErrorCode.NAME_MOVED,
            from.name()
                + " refused write "
                + w.write.requestId()
                + ": "
                + error.message()
                + (appliedNowhere
                    ? "; it was applied nowhere"
                    : "; an earlier attempt, resent after no reply, may have been applied before the"
                        + " move"),
            null));
  }

  /**
   * A plugin refused an attempt with INVALID_OP: the repeater checked the ops before sequencing
   * them, so this is the plugins' answer to a request id at or below the highest they applied for
   * this client that they know was never applied (an attempt resent under its id after a shed or a
   * lost attempt, once a later write was applied). Every duplicate answers the same and any other
   * attempt under that id will be refused too, so the write was applied nowhere and never will be
   * under it: send it again at once under a new id (as if every attempt so far had been shed, so a
   * later shed gives it a new id again).
   */
  private void onWriteNeverApplied(PeerLink from, PendingWrite w, Message.Error error) {
    LOG.debug(
        "{}: write {} was never applied and cannot be under its id ({}); sending it again under a"
            + " new id",
        from.name(),
        w.write.requestId(),
        error.message());
    w.attempts = w.shed;
    newRequestId(w);
    sendWrite(w);
  }

  /** Gives a pending write a new, highest request id (for an attempt known never applied). */
  private void newRequestId(PendingWrite w) {
    writes.remove(w.write.requestId());
    w.write = new Message.Write(w.write.clientId(), nextRequestId.incrementAndGet(), w.write.ops());
    writes.put(w.write.requestId(), w);
  }

  /**
   * The repeater shed an attempt (admission control or a full log; it was not sequenced): send it
   * again after the hint, doubled at each further refusal of this write (a full log's hint is
   * short, and the overload may last), times a random factor in [1, 2); or fail once the retry
   * budget is spent. If every attempt so far was shed, the write goes again under a new request id:
   * the plugins require a client's request ids to increase in the order they are sequenced, and
   * later writes may have been sequenced meanwhile. If an earlier attempt may have been sequenced
   * (one re-sent after no reply), it keeps its id, so that it is applied at most once.
   */
  private void onWriteShed(PeerLink from, PendingWrite w, Message.Error error) {
    metrics.writeShed();
    w.shed++;
    int budget = settings.retryBudget().maxShedWriteRetries();
    if (w.shed > budget) {
      boolean appliedNowhere = w.shed == w.attempts; // every attempt was refused before sequencing
      failWrite(
          w,
          new ZoolanderException(
              appliedNowhere
                  ? KeeperException.Code.THROTTLEDOP
                  : KeeperException.Code.CONNECTIONLOSS,
              error.code(), // OVERLOADED, or NAME_FROZEN
              "write "
                  + w.write.requestId()
                  + " shed by "
                  + from.name()
                  + " "
                  + w.shed
                  + " times, the retry budget ("
                  + budget
                  + " retries) is spent; "
                  + (appliedNowhere
                      ? "it was applied nowhere"
                      : "an earlier attempt, resent after no reply, may have been applied")
                  + ": "
                  + error.message(),
              null));
      return;
    }
    long backoff =
        Math.min(
            RetryBudget.MAX_SHED_BACKOFF_MS,
            DefaultZoolanderClient.retryAfter(error) << Math.min(w.shed - 1, 20));
    if (w.retry != null) {
      w.retry.cancel(false);
    }
    w.retry =
        loop.schedule(
            () -> {
              if (writes.get(w.write.requestId()) != w) {
                return;
              }
              if (w.shed == w.attempts) {
                newRequestId(w);
              }
              sendWrite(w);
            },
            backoff + ThreadLocalRandom.current().nextLong(backoff),
            TimeUnit.MILLISECONDS);
  }
}
