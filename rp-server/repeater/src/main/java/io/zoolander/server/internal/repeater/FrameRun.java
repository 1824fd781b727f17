package io.zoolander.server.internal.repeater;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.zoolander.server.repeater.RepeaterSettings;
import io.zoolander.wire.Message;
import io.zoolander.wire.Op;
import io.zoolander.wire.WireSettings;
import io.zoolander.wire.internal.Codec;
import java.util.List;

/**
 * The <em>run</em>: the SEQUENCED frames of the current handoff, encoded (length prefix included)
 * back to back into one pooled buffer. The log holds a slice of it per frame; each streaming plugin
 * connection gets the whole run as one write below the message codec ({@link #offer}). Writing per
 * run rather than per frame and per connection is what keeps the sequencer's cost per write low:
 * Netty's per-write work (a derived buffer, an outbound entry, a gathering-write buffer, reference
 * counting) dominated it.
 *
 * <p>Not thread-safe: owned by the {@link Sequencer}, on the sequencer loop.
 */
final class FrameRun {
  /**
   * A run is offered to the plugin connections once it holds this much: bounds how far one write
   * can take a connection past its high-water mark, and how much memory the last frames of a mostly
   * trimmed run keep.
   */
  static final int MAX_RUN_BYTES = 64 * 1024;

  /** Frames encoded by the current handoff and not yet offered to the links; null between runs. */
  private ByteBuf run;

  private long firstSeq;
  private long lastSeq;

  /**
   * Appends {@code SEQUENCED(epoch, seq, write)} as a whole frame, length prefix included, to the
   * run, and returns a slice of it holding its own reference (for the log); {@link #sequenced} then
   * counts it in. Null if the frame would be too large.
   */
  ByteBuf encode(long epoch, long seq, long clientId, long requestId, List<Op> ops) {
    if (run == null) {
      run =
          ByteBufAllocator.DEFAULT.ioBuffer(
              sizeHint(ops)); // grows with the run: a lone write stays small
      firstSeq = seq;
      lastSeq = seq - 1;
    }
    int start = run.writerIndex();
    try {
      run.writeInt(0);
      Codec.encode(new Message.Sequenced(epoch, seq, clientId, requestId, ops), run);
    } catch (RuntimeException e) {
      run.writerIndex(start);
      throw e;
    }
    int frameBytes = run.writerIndex() - start;
    if (frameBytes > RepeaterSettings.MAX_FRAME_BYTES) {
      run.writerIndex(start);
      return null;
    }
    run.setInt(start, frameBytes - WireSettings.LENGTH_FIELD_BYTES);
    return run.retainedSlice(start, frameBytes);
  }

  /** The frame of {@code seq}, encoded last, is in the log: offer it with the run. */
  void sequenced(long seq) {
    lastSeq = seq;
  }

  /** Whether the run holds {@link #MAX_RUN_BYTES} or more: time to offer it. */
  boolean full() {
    return run != null && run.readableBytes() >= MAX_RUN_BYTES;
  }

  /**
   * Offers the run, if any, to every link and lets it go: the log's slices keep its memory until
   * they are trimmed.
   */
  void offer(List<DuplicateLink> links) {
    ByteBuf frames = run;
    if (frames == null) {
      return;
    }
    run = null;
    try {
      if (lastSeq >= firstSeq) {
        for (int i = 0; i < links.size(); i++) {
          links.get(i).offer(firstSeq, lastSeq, frames);
        }
      }
    } finally {
      frames.release();
    }
  }

  /**
   * Encodes one SEQUENCED frame in a buffer of its own: recovered writes go to the log before any
   * streaming and are sent from it, never offered as a run. Null if the frame would be too large.
   */
  static ByteBuf encodeAlone(long epoch, long seq, long clientId, long requestId, List<Op> ops) {
    ByteBuf frame = ByteBufAllocator.DEFAULT.ioBuffer(sizeHint(ops));
    try {
      frame.writeInt(0);
      Codec.encode(new Message.Sequenced(epoch, seq, clientId, requestId, ops), frame);
    } catch (RuntimeException e) {
      frame.release();
      throw e;
    }
    int frameBytes = frame.readableBytes();
    if (frameBytes > RepeaterSettings.MAX_FRAME_BYTES) {
      frame.release();
      return null;
    }
    frame.setInt(0, frameBytes - WireSettings.LENGTH_FIELD_BYTES);
    return frame;
  }

  private static int sizeHint(List<Op> ops) {
    long hint = 64;
    for (Op op : ops) {
      hint += 16 + op.path().length();
      if (op instanceof Op.Create c) {
        hint += c.data().length;
      } else if (op instanceof Op.SetData s) {
        hint += s.data().length;
      }
    }
    return (int) Math.min(hint, RepeaterSettings.MAX_FRAME_BYTES);
  }
}
