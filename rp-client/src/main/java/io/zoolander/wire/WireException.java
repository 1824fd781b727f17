package io.zoolander.wire;

import io.netty.handler.codec.CodecException;
import java.util.Objects;

/**
 * A frame could not be decoded, or a message could not be encoded, with the {@link ErrorCode} that says why.
 *
 * <p>When decoding fails, the pipeline installed by {@link WirePipeline} writes an ERROR frame with this code, closes
 * the connection and fires this exception down the pipeline so the application can log it. When encoding fails (a
 * message larger than the maximum frame), the write's future fails with it and the connection stays open.
 */
public final class WireException extends CodecException {
  private static final long serialVersionUID = 1L;

  private final ErrorCode code;

  /** A failure with {@code code} and a human-readable {@code message}, also sent to the peer. */
  public WireException(ErrorCode code, String message) {
    this(code, message, null);
  }

  /** A failure with {@code code}, a human-readable {@code message}, also sent to the peer, and its cause. */
  public WireException(ErrorCode code, String message, Throwable cause) {
    super(message, cause);
    this.code = Objects.requireNonNull(code, "code must not be null");
  }

  /** Why the frame was rejected. */
  public ErrorCode code() {
    return code;
  }

  @Override
  public String toString() {
    return "WireException[" + code + "]: " + getMessage();
  }
}
