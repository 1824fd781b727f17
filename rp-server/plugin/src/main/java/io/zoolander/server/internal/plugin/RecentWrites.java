package io.zoolander.server.internal.plugin;

import io.zoolander.wire.Message;
import io.zoolander.wire.Op;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The SEQUENCED writes this plugin applied most recently, as it received them, contiguous by seq
 * and bounded in count and bytes. A new repeater taking over fetches from the most advanced
 * duplicate the writes that other duplicates have not applied (the old repeater's log died with
 * it), and streams them to those duplicates again.
 *
 * <p>In memory only: a plugin that starts (a restart, a leader change) holds nothing applied before
 * it started, and a duplicate that needs a write no one holds any more is fenced by the new
 * repeater. Not thread-safe: confined to the applier thread.
 */
final class RecentWrites {

  /**
   * Bytes counted for a write besides its paths and data: the message, its ops and the deque's
   * entry.
   */
  private static final long MESSAGE_OVERHEAD_BYTES = 96;

  private static final long OP_OVERHEAD_BYTES = 48;

  private final int maxMessages;
  private final long maxBytes;
  private final ArrayDeque<Message.Sequenced> writes = new ArrayDeque<>();
  private final ArrayDeque<Long> sizes = new ArrayDeque<>();
  private long bytes;

  /**
   * @param maxMessages most writes held, 0 to hold none
   * @param maxBytes most bytes held (estimated: paths, data and a fixed overhead per write and op)
   */
  RecentWrites(int maxMessages, long maxBytes) {
    if (maxMessages < 0) {
      throw new IllegalArgumentException("maxMessages: must be >= 0, was " + maxMessages);
    }
    if (maxBytes < 0) {
      throw new IllegalArgumentException("maxBytes: must be >= 0, was " + maxBytes);
    }
    this.maxMessages = maxMessages;
    this.maxBytes = maxBytes;
  }

  /**
   * {@code write} was applied (as number {@code write.seq()}). If it does not follow the last one
   * held, the ones held are dropped first: the run must stay contiguous.
   */
  void applied(Message.Sequenced write) {
    if (!writes.isEmpty() && write.seq() != lastSeq() + 1) {
      clear();
    }
    long size = sizeOf(write);
    if (maxMessages == 0 || size > maxBytes) {
      clear(); // holding a later one without this one would break the run
      return;
    }
    writes.addLast(write);
    sizes.addLast(size);
    bytes += size;
    while (writes.size() > maxMessages || bytes > maxBytes) {
      writes.removeFirst();
      bytes -= sizes.removeFirst();
    }
  }

  /** The writes held in {@code fromSeq..toSeq}, in seq order: a contiguous run, possibly empty. */
  List<Message.Sequenced> range(long fromSeq, long toSeq) {
    List<Message.Sequenced> out = new ArrayList<>();
    if (writes.isEmpty() || toSeq < firstSeq() || fromSeq > lastSeq()) {
      return out;
    }
    for (Message.Sequenced write : writes) {
      if (write.seq() > toSeq) {
        break;
      }
      if (write.seq() >= fromSeq) {
        out.add(write);
      }
    }
    return out;
  }

  int size() {
    return writes.size();
  }

  long bytes() {
    return bytes;
  }

  /** The oldest seq held; meaningless when empty. */
  long firstSeq() {
    return writes.getFirst().seq();
  }

  /** The newest seq held; meaningless when empty. */
  long lastSeq() {
    return writes.getLast().seq();
  }

  boolean isEmpty() {
    return writes.isEmpty();
  }

  void clear() {
    writes.clear();
    sizes.clear();
    bytes = 0;
  }

  static long sizeOf(Message.Sequenced write) {
    long size = MESSAGE_OVERHEAD_BYTES;
    for (Op op : write.ops()) {
      size += OP_OVERHEAD_BYTES + 2L * op.path().length();
      if (op instanceof Op.Create c) {
        size += c.data().length;
      } else if (op instanceof Op.SetData s) {
        size += s.data().length;
      }
    }
    return size;
  }
}
