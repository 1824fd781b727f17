package io.zoolander.wire;

import java.nio.ByteBuffer;

/**
 * A duplicate's bookkeeping record, stored in {@link Znodes#state()} and updated in the same
 * ZooKeeper multi as every write it applies: the highest repeater epoch it has accepted and the seq
 * of the last write it applied.
 *
 * <p>Encoding: {@code [byte format = 1][long epoch][long appliedSeq]}, big-endian.
 *
 * @param epoch highest repeater epoch accepted ({@code >= 0})
 * @param appliedSeq seq of the last applied write ({@code >= 0}; 0 before the first)
 */
public record BookkeepingState(long epoch, long appliedSeq) {
  /** The state of a duplicate that has applied nothing. */
  public static final BookkeepingState INITIAL = new BookkeepingState(0, 0);

  private static final byte FORMAT = 1;
  private static final int ENCODED_BYTES = 17;

  public BookkeepingState {
    if (epoch < 0) {
      throw new IllegalArgumentException("epoch must be >= 0, was " + epoch);
    }
    if (appliedSeq < 0) {
      throw new IllegalArgumentException("appliedSeq must be >= 0, was " + appliedSeq);
    }
  }

  public byte[] encode() {
    return ByteBuffer.allocate(ENCODED_BYTES)
        .put(FORMAT)
        .putLong(epoch)
        .putLong(appliedSeq)
        .array();
  }

  /**
   * @throws IllegalArgumentException if the bytes are not a state record of a known format
   */
  public static BookkeepingState decode(byte[] bytes) {
    if (bytes == null || bytes.length != ENCODED_BYTES || bytes[0] != FORMAT) {
      throw new IllegalArgumentException(
          "not a Zoolander bookkeeping record (expected "
              + ENCODED_BYTES
              + " bytes of format "
              + FORMAT
              + ")");
    }
    ByteBuffer buffer = ByteBuffer.wrap(bytes, 1, ENCODED_BYTES - 1);
    return new BookkeepingState(buffer.getLong(), buffer.getLong());
  }
}
