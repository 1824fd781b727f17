package io.zoolander.server.internal.repeater;

import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.CompletableFuture;

/**
 * One state transfer in progress: the repeater asked {@link #source} for a snapshot and relays its
 * chunks to {@link #target}, which installs it and then is streamed to from the snapshot's seq.
 * Confined to the sequencer loop.
 */
final class Transfer {
  final long id;
  final DuplicateLink source;
  final DuplicateLink target;
  final CompletableFuture<Void> future;
  final boolean automatic;
  final long startNanos;

  /**
   * The log is not trimmed past this seq while the transfer runs: the source's acked seq when it
   * started, at or below the seq of its snapshot, so the writes after the snapshot are still there
   * to stream to the target.
   */
  final long holdSeq;

  ScheduledFuture<?> timeout;

  /** TRANSFER_REQUEST sent to the source (once the target's plugin answered its HELLO). */
  boolean requested;

  /** The last chunk was relayed: the target's next STATUS reports the install. */
  boolean relayedLast;

  long snapshotSeq = -1;
  long znodes;
  long bytes;
  int chunks;

  /** Chunks in the snapshot, as its chunks say; 0 until the first arrives. */
  int chunkCount;

  long firstChunkNanos;
  long lastChunkNanos;

  /** The last tenth of the chunks reported in the log, so that progress is logged once a tenth. */
  int loggedTenths;

  /**
   * Whether an automatic transfer that fails may be tried again: not when the snapshot is too large
   * (it would be again) nor when the operator fenced the target.
   */
  boolean retryable = true;

  Transfer(
      long id,
      DuplicateLink source,
      DuplicateLink target,
      CompletableFuture<Void> future,
      boolean automatic,
      long holdSeq) {
    this.id = id;
    this.source = source;
    this.target = target;
    this.future = future;
    this.automatic = automatic;
    this.holdSeq = holdSeq;
    this.startNanos = System.nanoTime();
  }
}
