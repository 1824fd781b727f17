package io.zoolander.wire.internal;

import io.netty.buffer.ByteBufUtil;
import io.zoolander.wire.Message;
import io.zoolander.wire.Op;
import io.zoolander.wire.WireSettings;
import io.zoolander.wire.Znodes;
import java.util.List;

/**
 * Checks of a WRITE beyond what its message validates, made by the client SDK before sending and by
 * the repeater before sequencing: no application path at or under Zoolander's base path, and a
 * SEQUENCED frame that fits. Internal: not part of the public API.
 */
public final class WriteChecks {
  private WriteChecks() {}

  /**
   * A SEQUENCED frame's bytes before its ops: length prefix, version, type, epoch, seq, clientId,
   * requestId, count.
   */
  private static final int SEQUENCED_HEADER_BYTES = WireSettings.FRAME_HEADER_BYTES + 4 * 8 + 4;

  /**
   * Fails unless {@code write} may be sequenced with the default frame limit (the repeater's): see
   * {@link #reservedPath} and {@link #sequencedFrameBytes}.
   *
   * @throws IllegalArgumentException naming the problem
   */
  public static void check(Message.Write write, Znodes znodes) {
    String reserved = reservedPath(write.ops(), znodes);
    if (reserved != null) {
      throw new IllegalArgumentException(reserved);
    }
    long frameBytes = sequencedFrameBytes(write.ops());
    if (frameBytes > WireSettings.DEFAULT_MAX_FRAME_BYTES) {
      throw new IllegalArgumentException(
          tooLarge(frameBytes, WireSettings.DEFAULT_MAX_FRAME_BYTES));
    }
  }

  /**
   * Zoolander keeps its own znodes (the bookkeeping state, the client records, the plugin's
   * endpoint) under the base path, beside the data root. Application paths are resolved under the
   * data root, so no write can reach them; an application path at or under the base path is refused
   * anyway, so that {@code /zoolander/state} is not silently created as {@code
   * /zoolander/data/zoolander/state}.
   *
   * @return why the first such op is refused, or null if there is none
   */
  public static String reservedPath(List<Op> ops, Znodes znodes) {
    String base = znodes.basePath();
    for (int i = 0; i < ops.size(); i++) {
      String path = ops.get(i).path();
      if (path.startsWith(base)
          && (path.length() == base.length() || path.charAt(base.length()) == '/')) {
        return "ops["
            + i
            + "]: path "
            + path
            + " is at or under "
            + base
            + ", reserved for Zoolander's own znodes"
            + " (bookkeeping state, client records, endpoint); application paths must be outside it";
      }
    }
    return null;
  }

  /** The exact size of the SEQUENCED frame of a write of {@code ops}, length prefix included. */
  public static long sequencedFrameBytes(List<Op> ops) {
    long bytes = SEQUENCED_HEADER_BYTES;
    for (Op op : ops) {
      bytes += 1 + 4 + ByteBufUtil.utf8Bytes(op.path());
      if (op instanceof Op.Create c) {
        bytes += 1 + 4 + c.data().length;
      } else if (op instanceof Op.SetData s) {
        bytes += 4 + s.data().length + 4;
      } else {
        bytes += 4;
      }
    }
    return bytes;
  }

  /** The reason a write whose SEQUENCED frame has {@code frameBytes} is refused. */
  public static String tooLarge(long frameBytes, int maxFrameBytes) {
    return "the write is too large to sequence: its SEQUENCED frame would be "
        + frameBytes
        + " bytes, over the"
        + " maximum frame of "
        + maxFrameBytes
        + " bytes";
  }
}
