package io.zoolander.server.internal.repeater;

import io.zoolander.server.repeater.Rejoin;
import io.zoolander.server.repeater.RepeaterSettings;
import io.zoolander.server.repeater.TransferProgress;
import io.zoolander.wire.ErrorCode;
import io.zoolander.wire.Message;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Transfer coordination: brings a fenced duplicate back by state transfer (a rejoin). Picks the
 * most advanced streaming duplicate as the source, asks the target's link to start ({@link
 * DuplicateLink#beginRejoin}), relays the source's snapshot chunks to the target, fails the
 * transfer when its source goes away, it errs or times out, and reports the end to the caller's
 * future and the listener. While a transfer runs, the log is not trimmed past its {@link
 * Transfer#holdSeq} ({@link Sequencer#trim}).
 *
 * <p>An automatic rejoin that fails (no streaming source, the source or the target lost during the
 * transfer, a timeout) is tried again after {@link #RETRY_FIRST_MILLIS}, doubling up to {@link
 * #RETRY_MAX_MILLIS}, until one succeeds: without it a duplicate whose transfer met a second fault
 * stayed fenced for good (found by {@code ChaosIT}, seed 3). Not when the snapshot is too large,
 * nor for a duplicate the operator fenced, nor once the repeater stopped; a rejoin the operator
 * asked for is not retried (the operator hears of its failure).
 *
 * <p>Owned by the sequencer loop: every method runs there (asserted); the transfers in progress are
 * confined to it.
 */
final class Transfers {
  private static final Logger LOG = LoggerFactory.getLogger(Transfers.class);

  /** Pause before the first retry of a failed automatic rejoin. */
  static final long RETRY_FIRST_MILLIS = 1_000;

  /** Longest pause between two retries of a failed automatic rejoin. */
  static final long RETRY_MAX_MILLIS = 30_000;

  private final NettyRuntime runtime;
  private final List<DuplicateLink> links;
  private final Sequencer sequencer;
  private final Notifier notifier;
  private final boolean autoRejoin;
  private final IntConsumer rejoined;

  /** State transfers in progress, by id. */
  private final Map<Long, Transfer> transfers = new LinkedHashMap<>();

  /** Automatic rejoins that failed in a row, by duplicate id; cleared by a rejoin. */
  private final Map<Integer, Integer> failedAutomatic = new HashMap<>();

  private long nextTransferId = 1;

  Transfers(
      NettyRuntime runtime,
      List<DuplicateLink> links,
      Sequencer sequencer,
      Notifier notifier,
      boolean autoRejoin,
      IntConsumer rejoined) {
    this.runtime = runtime;
    this.links = links;
    this.sequencer = sequencer;
    this.notifier = notifier;
    this.autoRejoin = autoRejoin;
    this.rejoined = rejoined;
  }

  /**
   * A duplicate was fenced in a way a state transfer repairs: rejoin it shortly, if configured to.
   */
  void autoRejoinLater(DuplicateLink link) {
    assert runtime.inLoop() : "transfers are coordinated on the sequencer loop";
    if (!autoRejoin || sequencer.stopped()) {
      return;
    }
    LOG.info(
        "duplicate {}: rejoining it by state transfer in {} ms (automatic)",
        link.id(),
        RepeaterSettings.AUTO_REJOIN_DELAY_MILLIS);
    rejoinAfter(link, RepeaterSettings.AUTO_REJOIN_DELAY_MILLIS);
  }

  private void rejoinAfter(DuplicateLink link, long delayMillis) {
    runtime
        .loop()
        .schedule(
            () -> {
              if (link.fenced()
                  && link.transfer() == null
                  && !link.heldByOperator()
                  && !sequencer.stopped()) {
                start(link, new CompletableFuture<>(), true);
              }
            },
            delayMillis,
            TimeUnit.MILLISECONDS);
  }

  /** An automatic rejoin of {@code link} failed for {@code why}: try again after a backoff. */
  private void retryLater(DuplicateLink link, String why) {
    if (!autoRejoin || sequencer.stopped() || link.heldByOperator()) {
      return;
    }
    int failures = failedAutomatic.merge(link.id(), 1, Integer::sum);
    long delay = Math.min(RETRY_MAX_MILLIS, RETRY_FIRST_MILLIS << Math.min(failures - 1, 10));
    LOG.info(
        "duplicate {}: automatic rejoin failed ({} in a row: {}); trying again in {} ms",
        link.id(),
        failures,
        why,
        delay);
    rejoinAfter(link, delay);
  }

  /**
   * Starts a state transfer to {@code target} from the most advanced other streaming duplicate;
   * {@code done} completes when it ends (or at once, exceptionally, if there is no source). If one
   * is running already, {@code done} follows it.
   */
  void start(DuplicateLink target, CompletableFuture<Void> done, boolean automatic) {
    assert runtime.inLoop() : "transfers are coordinated on the sequencer loop";
    if (sequencer.stopped()) {
      done.completeExceptionally(new IllegalStateException("the repeater is closing or deposed"));
      return;
    }
    Transfer running = target.transfer();
    if (running != null) {
      running.future.whenComplete(
          (v, e) -> {
            if (e == null) {
              done.complete(null);
            } else {
              done.completeExceptionally(e);
            }
          });
      return;
    }
    DuplicateLink source = null;
    for (DuplicateLink link : links) {
      if (link != target
          && !link.fenced()
          && link.transfer() == null
          && link.streaming()
          && (source == null || link.ackedSeq() > source.ackedSeq())) {
        source = link;
      }
    }
    if (source == null) {
      String why =
          "no other duplicate is streaming: there is no healthy duplicate to take a snapshot of";
      LOG.warn("duplicate {}: cannot rejoin: {}", target.id(), why);
      done.completeExceptionally(
          new IllegalStateException("duplicate " + target.id() + " cannot rejoin: " + why));
      notifier.listener(l -> l.rejoinFailed(target.id(), why));
      if (automatic) {
        retryLater(target, why);
      }
      return;
    }
    Transfer t = new Transfer(nextTransferId++, source, target, done, automatic, source.ackedSeq());
    transfers.put(t.id, t);
    t.timeout =
        runtime
            .loop()
            .schedule(
                () -> {
                  if (transfers.get(t.id) == t) {
                    t.target.transferFailed(
                        "not done within " + RepeaterSettings.TRANSFER_TIMEOUT_MILLIS + " ms");
                  }
                },
                RepeaterSettings.TRANSFER_TIMEOUT_MILLIS,
                TimeUnit.MILLISECONDS);
    LOG.info(
        "duplicate {}: rejoining by state transfer {} from duplicate {} (acked seq {}){}",
        target.id(),
        t.id,
        source.id(),
        source.ackedSeq(),
        automatic ? " (automatic)" : "");
    target.beginRejoin(t);
    sequencer.trim();
  }

  /**
   * A chunk of a snapshot from {@code from}: relayed to the transfer's target; the last one says
   * how far to catch up.
   */
  void relayChunk(DuplicateLink from, Message.TransferChunk chunk) {
    assert runtime.inLoop() : "transfers are coordinated on the sequencer loop";
    Transfer t = transfers.get(chunk.transferId());
    if (t == null || t.source != from) {
      return; // of a transfer that ended
    }
    long now = System.nanoTime();
    if (chunk.index() == 0) {
      t.snapshotSeq = chunk.appliedSeq();
      t.chunkCount = chunk.chunkCount();
      t.firstChunkNanos = now;
    }
    t.lastChunkNanos = now;
    t.chunks++;
    t.znodes += chunk.nodes().size();
    for (Message.TransferChunk.Node node : chunk.nodes()) {
      t.bytes += node.path().length() + node.data().length;
    }
    logProgress(t, now);
    Message.TransferChunk out = chunk;
    if (chunk.last()) {
      t.relayedLast = true;
      out = chunk.withCatchUpToSeq(Math.max(chunk.appliedSeq(), sequencer.nextSeq() - 1));
    }
    if (!t.target.relay(out)) {
      t.target.transferFailed("the connection to its plugin was lost during the transfer");
    }
  }

  /** Logs a transfer's progress once per tenth of its chunks, with the time left. */
  private static void logProgress(Transfer t, long now) {
    int tenths = t.chunkCount == 0 ? 0 : (int) (10L * t.chunks / t.chunkCount);
    if (tenths > t.loggedTenths && t.chunkCount >= 10) {
      t.loggedTenths = tenths;
      LOG.info("{}", progress(t, now).describe());
    }
  }

  /** The transfers in progress, as of {@code nowNanos}. */
  List<TransferProgress> progress(long nowNanos) {
    assert runtime.inLoop() : "transfers are coordinated on the sequencer loop";
    List<TransferProgress> all = new ArrayList<>(transfers.size());
    for (Transfer t : transfers.values()) {
      all.add(progress(t, nowNanos));
    }
    return all;
  }

  private static TransferProgress progress(Transfer t, long nowNanos) {
    return TransferProgress.of(
        t.id,
        t.target.id(),
        t.source.id(),
        t.chunks,
        t.chunkCount,
        t.znodes,
        t.bytes,
        t.startNanos,
        t.firstChunkNanos,
        t.lastChunkNanos,
        nowNanos);
  }

  /** An ERROR about a transfer (its request id) from its source or target: the transfer failed. */
  void transferError(DuplicateLink from, Message.Error error) {
    assert runtime.inLoop() : "transfers are coordinated on the sequencer loop";
    Transfer t = transfers.get(error.requestId());
    if (t == null || (t.source != from && t.target != from)) {
      LOG.warn(
          "duplicate {}: {} about no transfer in progress: {}",
          from.id(),
          error.code(),
          error.message());
      return;
    }
    if (error.code() == ErrorCode.TRANSFER_TOO_LARGE) {
      t.retryable = false;
    }
    t.target.transferFailed(
        (from == t.source ? "the source duplicate " + from.id() : "its plugin")
            + " answered "
            + error.code()
            + ": "
            + error.message());
  }

  /**
   * {@code link}'s connection is gone or fenced: the transfers it was the source of cannot finish.
   */
  void linkLost(DuplicateLink link) {
    assert runtime.inLoop() : "transfers are coordinated on the sequencer loop";
    for (Transfer t : List.copyOf(transfers.values())) {
      if (t.source == link) {
        t.target.transferFailed(
            "the source duplicate " + link.id() + " stopped streaming during the transfer");
      }
    }
  }

  /** A transfer ended, done ({@code failure} null) or failed; its link has let it go. */
  void transferEnded(Transfer t, String failure) {
    assert runtime.inLoop() : "transfers are coordinated on the sequencer loop";
    transfers.remove(t.id);
    if (t.timeout != null) {
      t.timeout.cancel(false);
    }
    long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t.startNanos);
    if (failure == null) {
      Rejoin rejoin =
          new Rejoin(
              t.target.id(),
              t.source.id(),
              t.snapshotSeq,
              t.znodes,
              t.bytes,
              t.chunks,
              millis,
              t.automatic);
      LOG.info(
          "duplicate {} rejoined by state transfer {} from duplicate {} in {} ms: snapshot at seq {}, {} znodes,"
              + " {} bytes in {} chunks; streaming from there",
          t.target.id(),
          t.id,
          t.source.id(),
          millis,
          t.snapshotSeq,
          t.znodes,
          t.bytes,
          t.chunks);
      failedAutomatic.remove(t.target.id());
      notifier.complete(t.future, null);
      notifier.listener(l -> l.duplicateRejoined(rejoin));
      rejoined.accept(t.target.id());
    } else {
      LOG.warn(
          "duplicate {}: state transfer {} from duplicate {} failed after {} ms: {}",
          t.target.id(),
          t.id,
          t.source.id(),
          millis,
          failure);
      notifier.complete(
          t.future,
          new IllegalStateException(
              "duplicate " + t.target.id() + ": state transfer failed: " + failure));
      notifier.listener(l -> l.rejoinFailed(t.target.id(), failure));
      if (t.automatic && t.retryable) {
        retryLater(t.target, failure);
      }
    }
    if (sequencer.begun()) {
      sequencer.trim();
    }
  }
}
