package io.zoolander.wire;

/**
 * Why a peer sent a {@link Message.Error}. Codes are stable on the wire; unused numbers are
 * reserved.
 *
 * <p>The four <em>protocol</em> codes (1 to 4) mean the receiver could not parse what it was sent;
 * it writes the ERROR and closes the connection ({@link #closesConnection()}). The
 * <em>application</em> codes (100 and up) answer a request the receiver will not perform, naming it
 * ({@link Message.Error#requestId()}); the connection stays open.
 *
 * <p>Bad input and the code it gets (the tests are listed in {@code docs/reliability.md}, "Bad
 * input"):
 *
 * <table>
 * <caption>Bad input and its error code</caption>
 * <tr><th>input</th><th>code</th><th>who answers</th></tr>
 * <tr><td>a length prefix over the maximum frame</td><td>{@link #FRAME_TOO_LARGE}</td><td>the wire pipeline</td></tr>
 * <tr><td>bytes that do not parse: truncated, trailing bytes, a lying length or count, an unknown enum code, an
 *     out-of-range number in a message header</td><td>{@link #MALFORMED_FRAME}</td><td>the wire pipeline</td></tr>
 * <tr><td>an unknown message type or protocol version</td><td>{@link #UNKNOWN_MESSAGE_TYPE}, {@link
 *     #UNSUPPORTED_VERSION}</td><td>the wire pipeline</td></tr>
 * <tr><td>a WRITE op, READ or WATCH path that is not a valid ZooKeeper path ({@code PathUtils})</td><td>{@link
 *     #INVALID_PATH}</td><td>the wire pipeline, per request</td></tr>
 * <tr><td>a WRITE op type, READ kind or WATCH kind this protocol version does not know</td><td>{@link #UNKNOWN_OP}</td>
 *     <td>the wire pipeline, per request</td></tr>
 * <tr><td>an ephemeral, container or TTL create mode (or an unknown mode flag), a version below -1, a WRITE without
 *     ops</td><td>{@link #INVALID_OP}</td><td>the wire pipeline, per request</td></tr>
 * <tr><td>a WRITE touching Zoolander's own znodes: an application path at or under the base path ({@link
 *     Znodes#basePath()})</td><td>{@link #INVALID_OP}</td><td>the repeater, before sequencing</td></tr>
 * <tr><td>an op's data over {@link WireSettings#MAX_DATA_BYTES}, more than {@link
 *     WireSettings#MAX_OPS_PER_MESSAGE} ops</td><td>{@link #TOO_LARGE}</td><td>the wire pipeline, per request</td></tr>
 * <tr><td>a write whose ZooKeeper request would exceed the duplicates' {@code jute.maxbuffer}, or whose SEQUENCED
 *     frame would exceed the maximum frame</td><td>{@link #TOO_LARGE}</td><td>the repeater, before sequencing</td></tr>
 * <tr><td>a well-formed message the receiver does not take from this peer (a READ to the repeater), or a first
 *     message that is not the expected HELLO (the connection is then closed)</td><td>{@link #UNEXPECTED_MESSAGE}</td>
 *     <td>the repeater or plugin</td></tr>
 * <tr><td>a WATCH beyond the plugin's {@code zoolander.plugin.maxWatchesPerConnection}</td><td>{@link
 *     #OVERLOADED}</td><td>the plugin, per watch (its id is the request id)</td></tr>
 * </table>
 *
 * <p>A request refused per request was not sequenced: nothing of it is applied on any duplicate.
 * After an ERROR that closes the connection the receiver reads and discards whatever else arrives
 * until the connection closes: nothing sent after the bad frame is delivered, let alone applied.
 */
public enum ErrorCode {
  /** The length prefix announced a frame larger than the receiver's maximum. */
  FRAME_TOO_LARGE(1, true),
  /**
   * The frame could not be parsed: truncated, trailing bytes, a lying length or count, an invalid
   * field value.
   */
  MALFORMED_FRAME(2, true),
  /** The type byte names no message this protocol version knows. */
  UNKNOWN_MESSAGE_TYPE(3, true),
  /** The version byte is not {@link WireSettings#PROTOCOL_VERSION}. */
  UNSUPPORTED_VERSION(4, true),

  /**
   * A well-formed message that this peer does not accept here (for example a WRITE sent to a
   * plugin).
   */
  UNEXPECTED_MESSAGE(100, false),
  /** The sender's epoch is older than the receiver's: a deposed repeater. */
  STALE_EPOCH(101, false),
  /** The receiver is not (or no longer) the active plugin or repeater. */
  NOT_LEADER(102, false),
  /** The duplicate is fenced and serves nothing until a state transfer. */
  FENCED(103, false),
  /**
   * The op will not be performed: not replicated (an ephemeral, container or TTL create mode, or an
   * unknown mode flag), an invalid field (a version below -1, a WRITE without ops), or it touches
   * Zoolander's own znodes (an application path at or under the base path). Also, from a plugin, a
   * retried request id it knows was never applied (and never will be under that id): the SDK then
   * sends the write again under a new id.
   */
  INVALID_OP(104, false),
  /** The receiver sheds load; retry after {@link Message.Error#retryAfterMillis()}. */
  OVERLOADED(105, false),
  /** The receiver is shutting down. */
  SHUTTING_DOWN(106, false),
  /** An unexpected failure inside the receiver. */
  INTERNAL(107, false),
  /**
   * A retried write (same client id and request id) was applied earlier, at a seq the duplicate no
   * longer holds together with its results (it fell out of the client's window of recent requests).
   * It was not applied again.
   */
  DUPLICATE_REQUEST(108, false),
  /**
   * The receiver requires authentication and the peer has not proven who it is: no AUTH, a wrong
   * proof, an unknown principal, or a request sent before the handshake finished. Nothing was done;
   * the receiver closes the connection.
   */
  UNAUTHENTICATED(109, false),
  /**
   * The peer proved who it is, but that principal is not allowed in the role it announced (for
   * example a client's principal saying HELLO as the repeater). Nothing was done; the receiver
   * closes the connection.
   */
  UNAUTHORIZED(110, false),

  /**
   * A state transfer was refused because the snapshot of the healthy duplicate exceeds the plugin's
   * limit (64 MiB of paths and data); {@code requestId} is the transfer id. The duplicate that was
   * to rejoin stays fenced.
   */
  TRANSFER_TOO_LARGE(111, false),
  /**
   * A state transfer failed: the snapshot could not be read or installed (a ZooKeeper failure, a
   * chunk out of order, a path outside the data root, the source lost); {@code requestId} is the
   * transfer id. The duplicate stays fenced.
   */
  TRANSFER_FAILED(112, false),
  /**
   * The duplicate is rejoining (a state transfer is installing its data, or it is still catching up
   * with the stream after one) and serves no reads: try another duplicate. Clients treat it as any
   * duplicate that cannot answer now.
   */
  REJOINING(113, false),

  /**
   * The request is too large: an op's data over {@link WireSettings#MAX_DATA_BYTES}, more than
   * {@link WireSettings#MAX_OPS_PER_MESSAGE} ops, a ZooKeeper request over the duplicates' {@code
   * jute.maxbuffer}, or a SEQUENCED frame over the maximum frame size. Refused before sequencing:
   * applied nowhere.
   */
  TOO_LARGE(120, false),
  /**
   * A path in the request is not a valid ZooKeeper path ({@code
   * org.apache.zookeeper.common.PathUtils}).
   */
  INVALID_PATH(121, false),
  /**
   * The request names an op type (in a WRITE) or a read kind (in a READ) this protocol version does
   * not know, e.g. from a newer client. The rest of the request is not parsed; the connection stays
   * usable.
   */
  UNKNOWN_OP(122, false),
  /**
   * A write names paths in more than one partition of a partitioned deployment: each partition
   * sequences its own writes, so no write can be atomic across two. Refused by the client before
   * anything is sent (never on the wire): applied nowhere.
   */
  CROSS_PARTITION(123, false),
  /**
   * The write names a top-level name that a mover is copying to another partition ({@link
   * NameRoutes.Frozen}): refused by the repeater before sequencing, applied nowhere. Retry after
   * {@link Message.Error#retryAfterMillis()}: the freeze ends when the copy is done.
   */
  NAME_FROZEN(124, false),
  /**
   * The request names a top-level name that has moved to another partition ({@link
   * NameRoutes.Moved}, in this partition's route record): a write is refused by the repeater before
   * sequencing (applied nowhere), a read by the plugin. Read the route record to learn where it
   * went.
   */
  NAME_MOVED(125, false);

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

  /**
   * Whether the sender closes the connection after this error: true exactly for the protocol codes.
   */
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
