package io.zoolander.client.internal;

import io.netty.channel.EventLoop;
import io.netty.util.concurrent.ScheduledFuture;
import io.zoolander.client.InconsistencyEvent;
import io.zoolander.client.ReadPolicy;
import io.zoolander.client.ZoolanderException;
import io.zoolander.wire.ErrorCode;
import io.zoolander.wire.Message;
import io.zoolander.wire.ReadKind;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.apache.zookeeper.KeeperException;

/**
 * The client's reads in flight: each sent at once to the best-ranked duplicates (the degree of
 * concurrency C, or one and then hedges), answered by the first REPLY from a duplicate that applied
 * the read's {@code minSeq}, sent again to the next duplicate when an attempt times out or fails
 * (within the retry budget, {@link ReadRetryTokens}), in rounds when every one was tried, failed at
 * the request timeout or on a refusal every duplicate would give. Later replies to an answered read
 * are compared with the first (an {@link InconsistencyEvent} when they differ at the same seq).
 *
 * <p>Confined to the client's event loop, like the rest of the client's request state; {@link
 * #submit} is the one method called from other threads.
 */
final class ClientReads {

  private final ClientSettings settings;
  private final EventLoop loop;
  private final List<PeerLink> plugins;
  private final DuplicateRanking ranking;
  private final PlannedSlownessTable slowness;
  private final AdaptiveConcurrency concurrency;
  private final ClientMetrics metrics;
  private final AtomicLong nextRequestId;
  private final RequestHost host;
  private final ReadRetryTokens readRetries;
  private final Map<Long, PendingRead<?>> reads = new HashMap<>();
  private final Map<Long, PendingRead<?>> answeredReads;

  /**
   * @param plugins the links to the duplicates, by builder index
   * @param nextRequestId the client's request ids, shared with its writes and barriers
   * @param answeredReads where answered reads are kept (bounded), for the replies after the first
   */
  ClientReads(
      ClientSettings settings,
      EventLoop loop,
      List<PeerLink> plugins,
      DuplicateRanking ranking,
      PlannedSlownessTable slowness,
      AdaptiveConcurrency concurrency,
      ClientMetrics metrics,
      AtomicLong nextRequestId,
      Map<Long, PendingRead<?>> answeredReads,
      RequestHost host) {
    this.settings = settings;
    this.loop = loop;
    this.plugins = plugins;
    this.ranking = ranking;
    this.slowness = slowness;
    this.concurrency = concurrency;
    this.metrics = metrics;
    this.nextRequestId = nextRequestId;
    this.answeredReads = answeredReads;
    this.host = host;
    this.readRetries = new ReadRetryTokens(settings.retryBudget(), settings.ticker());
  }

  /**
   * Reads {@code path} from a duplicate that applied {@code minSeq}. Any thread.
   *
   * @param result what the caller gets of the first reply (it may throw a {@link
   *     ZoolanderException})
   */
  <T> CompletableFuture<T> submit(
      ReadKind kind, String path, long minSeq, Function<Message.ReadReply, T> result) {
    CompletableFuture<T> future = new CompletableFuture<>();
    PendingRead<T> pending =
        new PendingRead<>(
            nextRequestId.incrementAndGet(),
            kind,
            path,
            minSeq,
            future,
            result,
            settings.ticker().nanoTime());
    loop.execute(() -> start(pending));
    return future;
  }

  /**
   * An ERROR from {@code from}: handled if it names a read in flight or answered.
   *
   * @return whether it was about a read
   */
  boolean onError(PeerLink from, Message.Error error) {
    PendingRead<?> r = reads.get(error.requestId());
    if (r == null) {
      r = answeredReads.get(error.requestId());
    }
    if (r == null) {
      return false;
    }
    onError(from, r, error);
    return true;
  }

  /**
   * Duplicate {@code index} is not connected any more (or retired): the reads sent to it go on
   * elsewhere.
   *
   * @param failure whether it counts as a failure in the ranking (a retired duplicate did not fail)
   */
  void linkGone(int index, boolean failure) {
    for (PendingRead<?> r : List.copyOf(reads.values())) {
      if (r.sentNanos.remove(index) != null) {
        if (failure) {
          ranking.recordFailure(index);
        }
        onReadAttemptFailed(r, DefaultZoolanderClient.DEFAULT_RETRY_AFTER_MS);
      }
    }
  }

  /**
   * Fails every read in flight with {@code e} and forgets the answered ones (the client closes).
   */
  void failAll(ZoolanderException e) {
    List.copyOf(reads.values()).forEach(r -> finishReadUnanswered(r, e));
    answeredReads.clear();
  }

  /** Reads in flight. */
  int pending() {
    return reads.size();
  }

  /** One read in flight, or answered and still owed replies by other duplicates. */
  static final class PendingRead<T> {
    final long requestId;
    final ReadKind kind;
    final String path;
    final long minSeq;
    final CompletableFuture<T> future;
    final Function<Message.ReadReply, T> result;
    final long startNanos;
    final Map<Integer, Long> sentNanos = new HashMap<>();
    final Set<Integer> tried = new HashSet<>();
    final List<Message.ReadReply> replies = new ArrayList<>();
    final List<ScheduledFuture<?>> timers = new ArrayList<>();
    boolean failed;
    boolean answered;

    /** Retries the retry budget withheld. */
    int retriesDenied;

    /** Whether any attempt was sent: later sends are retries. */
    boolean sent;

    PendingRead(
        long requestId,
        ReadKind kind,
        String path,
        long minSeq,
        CompletableFuture<T> future,
        Function<Message.ReadReply, T> result,
        long startNanos) {
      this.requestId = requestId;
      this.kind = kind;
      this.path = path;
      this.minSeq = minSeq;
      this.future = future;
      this.result = result;
      this.startNanos = startNanos;
    }

    int outstanding() {
      return sentNanos.size();
    }
  }

  private void start(PendingRead<?> r) {
    if (host.closed()) {
      r.future.completeExceptionally(DefaultZoolanderClient.closedException());
      return;
    }
    reads.put(r.requestId, r);
    readRetries.deposit();
    r.timers.add(
        loop.schedule(
            () ->
                finishReadUnanswered(
                    r,
                    new ZoolanderException(
                        KeeperException.Code.OPERATIONTIMEOUT,
                        "read of "
                            + r.path
                            + " not answered within "
                            + settings.requestTimeoutMs()
                            + " ms by a duplicate that applied seq "
                            + r.minSeq
                            + (r.retriesDenied > 0
                                ? " (the client's retry budget withheld "
                                    + r.retriesDenied
                                    + " retries)"
                                : ""))),
            settings.requestTimeoutMs(),
            TimeUnit.MILLISECONDS));
    ReadPolicy.Hedged hedged =
        settings.readPolicy() instanceof ReadPolicy.Hedged h ? h : null; // null: C at once
    int fanOut = hedged != null ? 1 : concurrency.current();
    int sent = 0;
    for (int i = 0; i < fanOut; i++) {
      if (sendToNext(r)) {
        sent++;
      }
    }
    if (sent == 0) {
      retryReadRound(r, DefaultZoolanderClient.DEFAULT_RETRY_AFTER_MS);
    } else if (hedged != null) {
      scheduleHedge(r, hedged);
    }
  }

  /**
   * Sends the read to the best-ranked connected duplicate not yet tried; false if there is none.
   */
  private boolean sendToNext(PendingRead<?> r) {
    List<Integer> candidates =
        ranking.order(i -> plugins.get(i).isReady() && !r.tried.contains(i) && !slowness.isSlow(i));
    if (candidates.isEmpty()) {
      // Every duplicate left is busy with announced background work: slow beats unanswered.
      candidates = ranking.order(i -> plugins.get(i).isReady() && !r.tried.contains(i));
    }
    for (int index : candidates) {
      Message.Read read =
          new Message.Read(settings.clientId(), r.requestId, r.kind, r.path, r.minSeq);
      if (plugins.get(index).send(read)) {
        metrics.readRequestSent();
        r.tried.add(index);
        r.sent = true;
        r.sentNanos.put(index, settings.ticker().nanoTime());
        r.timers.add(
            loop.schedule(
                () -> onReadAttemptTimeout(r, index),
                settings.readAttemptTimeoutMs(),
                TimeUnit.MILLISECONDS));
        return true;
      }
    }
    return false;
  }

  private void scheduleHedge(PendingRead<?> r, ReadPolicy.Hedged policy) {
    long delayNanos =
        Math.max(
            policy.minDelay().toNanos(),
            ranking.latencyPercentileNanos(policy.percentile(), TimeUnit.MILLISECONDS.toNanos(1)));
    r.timers.add(
        loop.schedule(
            () -> {
              if (!r.answered && reads.get(r.requestId) == r && sendToNext(r)) {
                metrics.hedge();
                scheduleHedge(r, policy);
              }
            },
            delayNanos,
            TimeUnit.NANOSECONDS));
  }

  private void onReadAttemptTimeout(PendingRead<?> r, int index) {
    if (r.sentNanos.remove(index) == null) {
      return; // answered meanwhile
    }
    ranking.recordFailure(index);
    onReadAttemptFailed(r, DefaultZoolanderClient.DEFAULT_RETRY_AFTER_MS);
  }

  /**
   * One duplicate could not answer: ask the next, or start a new round once every one was tried.
   */
  private void onReadAttemptFailed(PendingRead<?> r, long retryAfterMs) {
    r.failed = true;
    if (r.answered || reads.get(r.requestId) != r) {
      maybeForgetRead(r);
      return;
    }
    if (!retryToNext(r) && r.outstanding() == 0) {
      retryReadRound(r, retryAfterMs);
    }
  }

  /**
   * Sends the read again, to the best-ranked connected duplicate not yet tried, if the retry budget
   * has a token; false if there is no such duplicate or no token.
   */
  private boolean retryToNext(PendingRead<?> r) {
    if (ranking.order(i -> plugins.get(i).isReady() && !r.tried.contains(i)).isEmpty()) {
      return false;
    }
    if (!readRetries.tryRetry()) {
      metrics.readRetryDenied();
      r.retriesDenied++;
      return false;
    }
    metrics.readRetry();
    return sendToNext(r);
  }

  private void retryReadRound(PendingRead<?> r, long delayMs) {
    r.timers.add(
        loop.schedule(
            () -> {
              if (!r.answered && reads.get(r.requestId) == r) {
                r.tried.clear();
                if (!(r.sent
                    ? retryToNext(r)
                    : sendToNext(r))) { // not sent yet: no duplicate was ready at the start
                  retryReadRound(r, Math.min(1_000, delayMs * 2));
                }
              }
            },
            delayMs,
            TimeUnit.MILLISECONDS));
  }

  /** A duplicate answered a read (or a read already answered by another). */
  void onReply(Message.ReadReply reply) {
    PendingRead<?> r = reads.get(reply.requestId());
    if (r == null) {
      r = answeredReads.get(reply.requestId());
    }
    int index = host.indexOf(reply.duplicateId());
    Long sent = r == null || index < 0 ? null : r.sentNanos.remove(index);
    if (r == null || sent == null) {
      return;
    }
    long latency = settings.ticker().nanoTime() - sent;
    ranking.recordReply(index, latency);
    concurrency.recordLatency(latency);
    host.advanceSeen(reply.appliedSeq());
    checkReadConsistency(r, reply);
    r.replies.add(reply);
    boolean first = !r.answered;
    metrics.readReply(index, latency, first);
    host.notifyReply(false, reply.requestId(), index, latency, first);
    if (first) {
      completeRead(r, reply);
    }
    maybeForgetRead(r);
  }

  private <T> void completeRead(PendingRead<T> r, Message.ReadReply reply) {
    r.answered = true;
    reads.remove(r.requestId);
    answeredReads.put(r.requestId, r);
    long total = settings.ticker().nanoTime() - r.startNanos;
    ranking.recordFirstReply(total);
    concurrency.recordRead(r.failed);
    metrics.completed(total);
    try {
      r.future.complete(r.result.apply(reply));
    } catch (ZoolanderException e) {
      r.future.completeExceptionally(e);
    }
  }

  private void finishReadUnanswered(PendingRead<?> r, ZoolanderException e) {
    if (reads.remove(r.requestId) == r) {
      r.timers.forEach(t -> t.cancel(false));
      concurrency.recordRead(true);
      r.future.completeExceptionally(e);
    }
  }

  /** Drops an answered read's bookkeeping once no reply is outstanding. */
  private void maybeForgetRead(PendingRead<?> r) {
    if (r.answered && r.outstanding() == 0) {
      r.timers.forEach(t -> t.cancel(false));
      answeredReads.remove(r.requestId);
    }
  }

  private void checkReadConsistency(PendingRead<?> r, Message.ReadReply reply) {
    for (Message.ReadReply other : r.replies) {
      if (other.appliedSeq() == reply.appliedSeq()
          && (other.code() != reply.code()
              || other.version() != reply.version()
              || !Arrays.equals(other.data(), reply.data())
              || !other.children().equals(reply.children()))) {
        host.reportInconsistency(
            new InconsistencyEvent(
                reply.appliedSeq(),
                r.path,
                List.of(other.duplicateId(), reply.duplicateId()),
                "at appliedSeq "
                    + reply.appliedSeq()
                    + " duplicate "
                    + other.duplicateId()
                    + " read "
                    + other.code()
                    + " version "
                    + other.version()
                    + " ("
                    + other.data().length
                    + " bytes), duplicate "
                    + reply.duplicateId()
                    + " read "
                    + reply.code()
                    + " version "
                    + reply.version()
                    + " ("
                    + reply.data().length
                    + " bytes)"));
      }
    }
  }

  private void onError(PeerLink from, PendingRead<?> r, Message.Error error) {
    int index = plugins.indexOf(from);
    if (index < 0 || r.sentNanos.remove(index) == null) {
      return;
    }
    // Every duplicate would refuse it the same way (a moved name: once it applied the move).
    if (ClientWrites.refusesTheRequest(error.code()) || error.code() == ErrorCode.NAME_MOVED) {
      finishReadUnanswered(
          r,
          new ZoolanderException(
              KeeperException.Code.BADARGUMENTS,
              error.code(),
              from.name() + " refused the read: " + error.message(),
              null));
      return;
    }
    ranking.recordFailure(index);
    onReadAttemptFailed(r, DefaultZoolanderClient.retryAfter(error));
  }
}
