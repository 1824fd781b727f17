package io.zoolander.server.internal.repeater;

import io.netty.buffer.ByteBuf;

/**
 * The repeater's retransmission log: the encoded SEQUENCED frames of the most recent writes, in a
 * ring of a fixed capacity, addressed by seq, and bounded in bytes too (the frames' sizes: at 1 MiB
 * a write, a count alone would let 65,536 messages take 64 GiB). It holds a contiguous range {@code
 * firstSeq()..lastSeq()} (empty when {@code firstSeq() == nextSeq()}) and owns one reference to
 * each frame, released when the entry is trimmed or evicted.
 *
 * <p>Also the pure decisions built on it: where a (re)connecting duplicate resumes, whether a
 * RETRANSMIT can be served, and whether the oldest entry may be evicted to make room. Not
 * thread-safe: the repeater confines it to its sequencing thread.
 */
public final class RetransmissionLog {

  /** Where a duplicate that has applied {@code appliedSeq} resumes, see {@link #resume(long)}. */
  public enum Resume {
    /** It has applied everything sequenced so far: only the live stream. */
    UP_TO_DATE,
    /** The log holds {@code appliedSeq + 1}: send the log from there, then the live stream. */
    FROM_LOG,
    /** It needs {@code appliedSeq + 1}, which is no longer (or never was) in the log: fence it. */
    GONE,
    /** It has applied more than this repeater sequenced: another repeater wrote to it. */
    AHEAD
  }

  /** What to do with a RETRANSMIT, see {@link #retransmit(long)}. */
  public enum Range {
    /** Send the range from the log (clamped to what was sent). */
    SERVE,
    /** The range starts after the last sequenced write: nothing to send. */
    NOTHING,
    /** The range starts before the oldest entry: fence the duplicate. */
    GONE
  }

  private final ByteBuf[] ring;
  private final int capacity;
  private final long maxBytes;
  private long bytes;
  private long first;
  private long next;

  /**
   * @param capacity most entries held, at least 1
   * @param nextSeq the seq the first append gets, at least 1
   */
  public RetransmissionLog(int capacity, long nextSeq) {
    this(capacity, Long.MAX_VALUE, nextSeq);
  }

  /**
   * @param capacity most entries held, at least 1
   * @param maxBytes most bytes of frames held, at least 1 (one frame is held whatever its size)
   * @param nextSeq the seq the first append gets, at least 1
   */
  public RetransmissionLog(int capacity, long maxBytes, long nextSeq) {
    if (maxBytes < 1) {
      throw new IllegalArgumentException("maxBytes: must be >= 1, was " + maxBytes);
    }
    this.maxBytes = maxBytes;
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity: must be >= 1, was " + capacity);
    }
    if (nextSeq < 1) {
      throw new IllegalArgumentException("nextSeq: must be >= 1, was " + nextSeq);
    }
    this.capacity = capacity;
    this.ring = new ByteBuf[capacity];
    this.first = nextSeq;
    this.next = nextSeq;
  }

  public int capacity() {
    return capacity;
  }

  public int size() {
    return (int) (next - first);
  }

  public boolean isEmpty() {
    return next == first;
  }

  public boolean isFull() {
    return next - first == capacity;
  }

  /** The bytes of the frames held. */
  public long bytes() {
    return bytes;
  }

  public long maxBytes() {
    return maxBytes;
  }

  /**
   * Whether a frame of {@code frameBytes} may be appended without evicting: the log is not full and
   * empty or within its byte bound with it.
   */
  public boolean hasRoomFor(long frameBytes) {
    return !isFull() && (isEmpty() || bytes + frameBytes <= maxBytes);
  }

  /**
   * The back-pressure rule of {@link #mayAppend(long)}, for an oldest entry that must go to make
   * room: it may when some live duplicate has acked it.
   */
  public boolean mayEvictOldest(long highestAckedSeq) {
    return !isEmpty() && first <= highestAckedSeq;
  }

  /** The oldest seq held; {@link #nextSeq()} when the log is empty. */
  public long firstSeq() {
    return first;
  }

  /** The last seq sequenced (held or not); {@code nextSeq() - 1}. */
  public long lastSeq() {
    return next - 1;
  }

  /** The seq the next {@link #append} gets. */
  public long nextSeq() {
    return next;
  }

  public boolean holds(long seq) {
    return seq >= first && seq < next;
  }

  /**
   * The frame of {@code seq}, still owned by the log (take a {@code retainedDuplicate()} to send
   * it), or null if the log does not hold it.
   */
  public ByteBuf get(long seq) {
    return holds(seq) ? ring[index(seq)] : null;
  }

  /**
   * Appends the frame of seq {@link #nextSeq()}; the log takes over the caller's reference.
   *
   * @return the frame's seq
   * @throws IllegalStateException if the log is full: trim or {@link #evictOldest()} first
   */
  public long append(ByteBuf frame) {
    if (frame == null) {
      throw new IllegalArgumentException("frame: must not be null");
    }
    if (isFull()) {
      throw new IllegalStateException("log is full (" + capacity + " messages)");
    }
    ring[index(next)] = frame;
    bytes += frame.readableBytes();
    return next++;
  }

  /**
   * Drops the oldest entry.
   *
   * @return its seq
   * @throws IllegalStateException if the log is empty
   */
  public long evictOldest() {
    if (isEmpty()) {
      throw new IllegalStateException("log is empty");
    }
    release(first);
    return first++;
  }

  /**
   * Drops every entry up to and including {@code seq} (the lowest seq every live duplicate has
   * acked).
   *
   * @return how many entries were dropped
   */
  public int trimThrough(long seq) {
    long upTo = Math.min(seq, next - 1);
    int dropped = 0;
    while (first <= upTo) {
      release(first++);
      dropped++;
    }
    return dropped;
  }

  /** Drops every entry; the sequence goes on from {@link #nextSeq()}. */
  public void clear() {
    trimThrough(next - 1);
  }

  /**
   * Where a duplicate that has applied {@code appliedSeq} resumes. It needs {@code appliedSeq + 1
   * .. lastSeq()}: if it needs nothing it is {@link Resume#UP_TO_DATE}; if the log holds {@code
   * appliedSeq + 1} the rest is contiguous up to {@code lastSeq()} ({@link Resume#FROM_LOG});
   * otherwise that write is gone ({@link Resume#GONE}, also when it was sequenced before this
   * repeater started).
   */
  public Resume resume(long appliedSeq) {
    if (appliedSeq > lastSeq()) {
      return Resume.AHEAD;
    }
    if (appliedSeq == lastSeq()) {
      return Resume.UP_TO_DATE;
    }
    return holds(appliedSeq + 1) ? Resume.FROM_LOG : Resume.GONE;
  }

  /** Whether a RETRANSMIT starting at {@code fromSeq} can be served. */
  public Range retransmit(long fromSeq) {
    if (fromSeq > lastSeq()) {
      return Range.NOTHING;
    }
    return holds(fromSeq) ? Range.SERVE : Range.GONE;
  }

  /**
   * The back-pressure rule: whether an append may proceed, evicting the oldest entry if the log is
   * full. It may when there is room, or when some live duplicate has acked the oldest entry (the
   * laggards that still need it will be fenced when they do, but the write path goes on). When no
   * live duplicate has acked it, evicting could leave every duplicate fenced, so the write is
   * refused (OVERLOADED) instead.
   *
   * @param highestAckedSeq the highest seq acked by a non-fenced duplicate; {@link Long#MAX_VALUE}
   *     when every duplicate is fenced (nothing is worth keeping)
   */
  public boolean mayAppend(long highestAckedSeq) {
    return !isFull() || first <= highestAckedSeq;
  }

  private void release(long seq) {
    int i = index(seq);
    ByteBuf frame = ring[i];
    ring[i] = null;
    bytes -= frame.readableBytes();
    frame.release();
  }

  private int index(long seq) {
    return (int) (seq % capacity);
  }
}
