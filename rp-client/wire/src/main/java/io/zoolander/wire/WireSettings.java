package io.zoolander.wire;

/**
 * Constants of the wire protocol. Every size is in bytes; every name says its unit.
 *
 * <p>The frame limits are chosen so that one op carrying {@link #MAX_DATA_BYTES} of data, plus its
 * path and the message headers, fits in a frame of {@link #DEFAULT_MAX_FRAME_BYTES}.
 */
public final class WireSettings {
  private WireSettings() {}

  /** The protocol version this code speaks; the second byte of every frame. */
  public static final int PROTOCOL_VERSION = 1;

  /** Size of the big-endian length prefix that starts every frame. */
  public static final int LENGTH_FIELD_BYTES = 4;

  /** Length prefix, version byte and type byte: the bytes of a frame before its body. */
  public static final int FRAME_HEADER_BYTES = LENGTH_FIELD_BYTES + 2;

  /** Largest data of one op or one read reply: 1 MiB, ZooKeeper's customary znode limit. */
  public static final int MAX_DATA_BYTES = 1024 * 1024;

  /**
   * Default largest frame, length prefix included: 1 MiB of data plus 64 KiB for paths and headers.
   * The ZooKeeper ensembles' {@code jute.maxbuffer} must be at least as large for writes this big
   * to apply.
   */
  public static final int DEFAULT_MAX_FRAME_BYTES = MAX_DATA_BYTES + 64 * 1024;

  /** Smallest maximum frame size a pipeline accepts: enough for any ERROR frame. */
  public static final int MIN_MAX_FRAME_BYTES = 8 * 1024;

  /**
   * Most ops in one WRITE or SEQUENCED message (one atomic multi), and most results in one REPLY.
   */
  public static final int MAX_OPS_PER_MESSAGE = 1000;

  /**
   * Most changes in one WATCH_EVENT: every op of a write can change a node and its parent's
   * children.
   */
  public static final int MAX_WATCH_CHANGES = 2 * MAX_OPS_PER_MESSAGE;

  /** Most znodes in one state-transfer chunk ({@link Message.TransferChunk}). */
  public static final int MAX_TRANSFER_NODES_PER_CHUNK = 10_000;

  /** Longest HELLO id, in UTF-8 bytes. */
  public static final int MAX_ID_BYTES = 256;

  /** Length of the random nonce in a CHALLENGE. */
  public static final int NONCE_BYTES = 32;

  /**
   * Length of a shared-secret proof in an AUTH (an HMAC-SHA256); a certificate AUTH carries an
   * empty proof.
   */
  public static final int PROOF_BYTES = 32;

  /** Longest AUTH principal, in UTF-8 bytes. */
  public static final int MAX_PRINCIPAL_BYTES = 256;

  /**
   * Longest ERROR message, in UTF-8 bytes; longer messages are truncated when the ERROR is built.
   */
  public static final int MAX_ERROR_MESSAGE_BYTES = 4 * 1024;

  /**
   * After answering a bad frame with an ERROR on a TCP connection, how long to keep reading and
   * discarding while the peer reads the ERROR (its output is already shut down), before closing
   * anyway. Closing at once with unread input would reset the connection and could destroy the
   * ERROR in flight.
   */
  public static final long ERROR_LINGER_MILLIS = 2_000;

  /**
   * Longest planned slowness a plugin may announce ({@link Message.PlannedSlowness}), in
   * milliseconds.
   */
  public static final long MAX_PLANNED_SLOWNESS_MS = 600_000;
}
