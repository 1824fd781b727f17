package io.zoolander.wire.internal;

import io.netty.buffer.ByteBuf;
import io.zoolander.wire.ErrorCode;
import io.zoolander.wire.WireException;
import java.nio.charset.StandardCharsets;

/**
 * Reads the fields of one frame body, checking before every read that the frame still holds the
 * bytes it needs, so a truncated frame or a lying length or count fails with {@link
 * ErrorCode#MALFORMED_FRAME} naming the field, and never allocates more than the frame holds.
 * Internal: not part of the public API.
 */
final class FrameReader {
  private final ByteBuf buf;
  private final String message;

  /**
   * @param message the message type being read, for error messages
   */
  FrameReader(ByteBuf buf, String message) {
    this.buf = buf;
    this.message = message;
  }

  int readUnsignedByte(String field) {
    need(1, field);
    return buf.readUnsignedByte();
  }

  int readInt(String field) {
    need(4, field);
    return buf.readInt();
  }

  long readLong(String field) {
    need(8, field);
    return buf.readLong();
  }

  /** An int length, then that many bytes of UTF-8. */
  String readString(String field, int maxBytes) {
    int length = readLength(field, maxBytes);
    String s = buf.toString(buf.readerIndex(), length, StandardCharsets.UTF_8);
    buf.skipBytes(length);
    return s;
  }

  /** An int length, then that many bytes. */
  byte[] readBytes(String field, int maxBytes) {
    return readBytes(readLength(field, maxBytes));
  }

  /** {@code length} bytes, which {@link #readLength} has checked the frame holds. */
  byte[] readBytes(int length) {
    byte[] bytes = new byte[length];
    buf.readBytes(bytes);
    return bytes;
  }

  /**
   * An int element count, at most {@code maxCount}, and no more than the rest of the frame can hold
   * at {@code minElementBytes} each.
   */
  int readCount(String field, int minElementBytes, int maxCount) {
    int count = readInt(field);
    if (count < 0) {
      throw malformed(field + ": negative count " + count);
    }
    if (count > maxCount) {
      throw malformed(field + ": count " + count + " exceeds the limit of " + maxCount);
    }
    long needed = (long) count * minElementBytes;
    if (needed > buf.readableBytes()) {
      throw malformed(
          field
              + ": count "
              + count
              + " needs at least "
              + needed
              + " bytes but only "
              + buf.readableBytes()
              + " remain");
    }
    return count;
  }

  /** Fails unless the whole body has been read. */
  void finish() {
    if (buf.isReadable()) {
      throw malformed(buf.readableBytes() + " trailing bytes after the body");
    }
  }

  WireException malformed(String detail) {
    return new WireException(ErrorCode.MALFORMED_FRAME, message + ": " + detail);
  }

  /**
   * An int length, non-negative, at most {@code maxBytes} and no more than the rest of the frame
   * holds: so a lying length never drives an allocation.
   */
  int readLength(String field, int maxBytes) {
    int length = readInt(field);
    if (length < 0) {
      throw malformed(field + ": negative length " + length);
    }
    if (length > maxBytes) {
      throw malformed(
          field + ": length " + length + " exceeds the limit of " + maxBytes + " bytes");
    }
    if (length > buf.readableBytes()) {
      throw malformed(
          field
              + ": length "
              + length
              + " exceeds the "
              + buf.readableBytes()
              + " bytes remaining in the frame");
    }
    return length;
  }

  private void need(int bytes, String field) {
    if (buf.readableBytes() < bytes) {
      throw malformed(
          "truncated at "
              + field
              + ": needs "
              + bytes
              + " bytes, "
              + buf.readableBytes()
              + " remain");
    }
  }
}
