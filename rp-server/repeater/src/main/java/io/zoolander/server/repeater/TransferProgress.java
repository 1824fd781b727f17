package io.zoolander.server.repeater;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * A state transfer in progress ({@link Repeater#transfers()}): how much of the snapshot the
 * repeater has relayed to the rejoining duplicate and, once two chunks went through, about how long
 * the rest will take at the rate so far. The source builds its whole snapshot before it sends the
 * first chunk, so from then on the number of chunks is known.
 *
 * @param transferId the transfer
 * @param targetDuplicateId the duplicate that rejoins
 * @param sourceDuplicateId the duplicate the snapshot is taken of
 * @param chunksRelayed chunks relayed so far
 * @param chunkCount chunks in the snapshot; 0 until the first arrives (the source is still reading
 *     its tree)
 * @param znodes znodes relayed so far
 * @param bytes bytes of paths and data relayed so far
 * @param elapsed since the transfer started
 * @param remaining about how long relaying the other chunks will take (the time between the first
 *     chunk and the last one relayed, per chunk, times the chunks left); empty before two chunks
 *     were relayed and once all were (the target is then installing, for a time this estimate
 *     cannot know)
 */
public record TransferProgress(
    long transferId,
    int targetDuplicateId,
    int sourceDuplicateId,
    int chunksRelayed,
    int chunkCount,
    long znodes,
    long bytes,
    Duration elapsed,
    Optional<Duration> remaining) {

  public TransferProgress {
    Objects.requireNonNull(elapsed, "elapsed must not be null");
    Objects.requireNonNull(remaining, "remaining must not be null");
  }

  /**
   * The progress of a transfer whose first chunk was relayed at {@code firstChunkNanos} and whose
   * latest at {@code lastChunkNanos} (both {@link System#nanoTime()} readings, or any one clock).
   */
  public static TransferProgress of(
      long transferId,
      int targetDuplicateId,
      int sourceDuplicateId,
      int chunksRelayed,
      int chunkCount,
      long znodes,
      long bytes,
      long startNanos,
      long firstChunkNanos,
      long lastChunkNanos,
      long nowNanos) {
    Optional<Duration> remaining = Optional.empty();
    if (chunksRelayed >= 2 && chunksRelayed < chunkCount) {
      long perChunkNanos = (lastChunkNanos - firstChunkNanos) / (chunksRelayed - 1);
      remaining = Optional.of(Duration.ofNanos(perChunkNanos * (chunkCount - chunksRelayed)));
    }
    return new TransferProgress(
        transferId,
        targetDuplicateId,
        sourceDuplicateId,
        chunksRelayed,
        chunkCount,
        znodes,
        bytes,
        Duration.ofNanos(nowNanos - startNanos),
        remaining);
  }

  /** The share of chunks relayed, 0 to 1 (0 before the first chunk). */
  public double fraction() {
    return chunkCount == 0 ? 0 : (double) chunksRelayed / chunkCount;
  }

  /**
   * In words, e.g. {@code state transfer 3 to duplicate 2 from duplicate 1: 12 of 30 chunks (40%),
   * 12000 znodes, 3.1 MiB in 4.1 s, about 6.2 s left}.
   */
  public String describe() {
    String head =
        "state transfer "
            + transferId
            + " to duplicate "
            + targetDuplicateId
            + " from duplicate "
            + sourceDuplicateId
            + ": ";
    String time = String.format(Locale.ROOT, "%.1f s", elapsed.toMillis() / 1000.0);
    if (chunkCount == 0) {
      return head + "waiting for the snapshot, " + time;
    }
    String done =
        String.format(
            Locale.ROOT,
            "%d of %d chunks (%.0f%%), %d znodes, %.1f MiB in %s",
            chunksRelayed,
            chunkCount,
            100 * fraction(),
            znodes,
            bytes / (1024.0 * 1024),
            time);
    if (chunksRelayed == chunkCount) {
      return head + done + "; all relayed, the duplicate is installing it";
    }
    return head
        + done
        + remaining
            .map(r -> String.format(Locale.ROOT, ", about %.1f s left", r.toMillis() / 1000.0))
            .orElse("");
  }
}
