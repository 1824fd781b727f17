package io.zoolander.wire;

import io.netty.handler.codec.CodecException;
import java.util.Objects;

/**
 * A frame could not be decoded, a request in it was refused, or a message could not be encoded,
 * with the {@link ErrorCode} that says why.
 *
 * <p>When decoding fails with a protocol code ({@link ErrorCode#closesConnection()}), the pipeline
 * installed by {@link WirePipeline} writes an ERROR frame with this code, closes the connection and
 * fires this exception down the pipeline so the application can log it. When the frame parses but a
 * request in it is invalid (an application code, with the {@link #requestId()} it names), the
 * pipeline answers that request with an ERROR and keeps the connection; nothing is fired. When
 * encoding fails (a message larger than the maximum frame), the write's future fails with it and
 * the connection stays open.
 */
public final class WireException extends CodecException {
  private static final long serialVersionUID = 1L;

  private final ErrorCode code;
  private final long requestId;

  /** A failure with {@code code} and a human-readable {@code message}, also sent to the peer. */
  public WireException(ErrorCode code, String message) {
    this(code, message, null);
  }

  /**
   * A failure with {@code code}, a human-readable {@code message}, also sent to the peer, and its
   * cause.
   */
  public WireException(ErrorCode code, String message, Throwable cause) {
    this(code, Message.Error.NO_REQUEST, message, cause);
  }

  /**
   * A refused request: {@code code} (an application code) and {@code message} are sent to the peer
   * in an ERROR naming {@code requestId}.
   *
   * @throws IllegalArgumentException if {@code requestId} is below {@link Message.Error#NO_REQUEST}
   */
  public WireException(ErrorCode code, long requestId, String message, Throwable cause) {
    super(message, cause);
    this.code = Objects.requireNonNull(code, "code must not be null");
    if (requestId < Message.Error.NO_REQUEST) {
      throw new IllegalArgumentException(
          "requestId must be >= " + Message.Error.NO_REQUEST + ", was " + requestId);
    }
    this.requestId = requestId;
  }

  /** Why the frame or request was rejected. */
  public ErrorCode code() {
    return code;
  }

  /**
   * The refused request, or {@link Message.Error#NO_REQUEST} when the frame itself was rejected.
   */
  public long requestId() {
    return requestId;
  }

  // Deliberate: getMessage() stays the bare reason, which is what goes into the ERROR frame and
  // what
  // callers match; toString() adds the code and request for logs and stack traces.
  @SuppressWarnings("OverrideThrowableToString")
  @Override
  public String toString() {
    return "WireException["
        + code
        + (requestId == Message.Error.NO_REQUEST ? "" : ", request " + requestId)
        + "]: "
        + getMessage();
  }
}
