package io.zoolander.wire;

/**
 * Why a peer sent a {@link Message.Error}. Codes are stable on the wire.
 *
 * <p>The four <em>protocol</em> codes (1 to 4) mean the receiver could not parse what it was sent; it writes the ERROR
 * and closes the connection ({@link #closesConnection()}). The <em>application</em> codes (100 and up) answer a
 * well-formed request the server will not perform; the connection stays open.
 */
public enum ErrorCode {
  /** The length prefix announced a frame larger than the receiver's maximum. */
  FRAME_TOO_LARGE(1, true),
  /** The frame could not be parsed: truncated, trailing bytes, a lying length or count, an invalid field value. */
  MALFORMED_FRAME(2, true),
  /** The type byte names no message this protocol version knows. */
  UNKNOWN_MESSAGE_TYPE(3, true),
  /** The version byte is not {@link WireSettings#PROTOCOL_VERSION}. */
  UNSUPPORTED_VERSION(4, true),

  /** A well-formed message that this peer does not accept here (for example a WRITE sent to a plugin). */
  UNEXPECTED_MESSAGE(100, false),
  /** The sender's epoch is older than the receiver's: a deposed repeater. */
  STALE_EPOCH(101, false),
  /** The receiver is not (or no longer) the active plugin or repeater. */
  NOT_LEADER(102, false),
  /** The duplicate is fenced and serves nothing until a state transfer. */
  FENCED(103, false),
  /** The op is valid ZooKeeper but not allowed here (for example it touches Zoolander's bookkeeping znodes). */
  INVALID_OP(104, false),
  /** The receiver sheds load; retry after {@link Message.Error#retryAfterMillis()}. */
  OVERLOADED(105, false),
  /** The receiver is shutting down. */
  SHUTTING_DOWN(106, false),
  /** An unexpected failure inside the receiver. */
  INTERNAL(107, false),
  /**
   * A retried write (same client id and request id) was applied earlier, at a seq the duplicate no longer holds
   * together with its results (it fell out of the client's window of recent requests). It was not applied again.
   */
  DUPLICATE_REQUEST(108, false),
  /**
   * The receiver requires authentication and the peer has not proven who it is: no AUTH, a wrong proof, an unknown
   * principal, or a request sent before the handshake finished. Nothing was done; the receiver closes the connection.
   */
  UNAUTHENTICATED(109, false),
  /**
   * The peer proved who it is, but that principal is not allowed in the role it announced (for example a client's
   * principal saying HELLO as the repeater). Nothing was done; the receiver closes the connection.
   */
  UNAUTHORIZED(110, false);

  private final int code;
  private final boolean closesConnection;

  ErrorCode(int code, boolean closesConnection) {
    this.code = code;
    this.closesConnection = closesConnection;
  }

  /** The stable code written on the wire. */
  public int code() {
    return code;
  }

  /** Whether the sender closes the connection after this error: true exactly for the protocol codes. */
  public boolean closesConnection() {
    return closesConnection;
  }

  /**
   * The error code with this wire code.
   *
   * @throws IllegalArgumentException if no error code has this code
   */
  public static ErrorCode fromCode(int code) {
    for (ErrorCode c : values()) {
      if (c.code == code) {
        return c;
      }
    }
    throw new IllegalArgumentException("code: unknown error code " + code);
  }
}
