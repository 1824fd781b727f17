package io.zoolander.server.repeater;

import io.zoolander.wire.WireSettings;
import io.zoolander.wire.Znodes;

/**
 * The repeater's settings and their defaults, as named constants. Every name says its unit; a
 * default that a {@link Repeater.Builder} method can change is named {@code DEFAULT_*}, the others
 * are fixed.
 */
public final class RepeaterSettings {
  private RepeaterSettings() {}

  /** Host the client listener binds by default: loopback only. */
  public static final String DEFAULT_CLIENT_HOST = "127.0.0.1";

  /**
   * Port the client listener binds by default: 0, an ephemeral port (see {@link
   * Repeater#boundAddress()}).
   */
  public static final int DEFAULT_CLIENT_PORT = 0;

  /**
   * The window over which {@link Repeater#nameWriteRates()} measures each top-level name's write
   * rate, in milliseconds.
   */
  public static final long DEFAULT_NAME_RATES_WINDOW_MILLIS = 10_000;

  /**
   * {@link Repeater#nameWriteRates()} counts one write in this many, on average, drawn at random:
   * the write path pays a random draw per write and a name's lookup only for the counted ones.
   */
  public static final int DEFAULT_NAME_RATES_SAMPLE_EVERY = 8;

  /** Base path of Zoolander's znodes in every duplicate. */
  public static final String DEFAULT_BASE_PATH = Znodes.DEFAULT_BASE_PATH;

  /**
   * Retransmission log capacity, in messages: how many sequenced writes the repeater keeps for
   * duplicates that have not acked them. At 1 KiB a write, 65,536 messages are 64 MiB.
   */
  public static final int DEFAULT_LOG_CAPACITY_MESSAGES = 65_536;

  /** Largest log capacity accepted, in messages. */
  public static final int MAX_LOG_CAPACITY_MESSAGES = 1 << 24;

  /**
   * Retransmission log capacity, in bytes of encoded writes: 512 MiB. Whichever bound is reached
   * first applies.
   */
  public static final long DEFAULT_LOG_CAPACITY_BYTES = 512L << 20;

  /**
   * Default period of the epoch check (ms): how often a repeater reads every duplicate's state
   * znode it can reach and deposes itself if one holds a newer epoch, so that a repeater cut off
   * from the plugins but not from ZooKeeper learns it was replaced; 0 turns it off.
   */
  public static final long DEFAULT_EPOCH_CHECK_MILLIS = 1_000;

  /** Smallest log capacity accepted, in bytes (one write is held whatever its size). */
  public static final long MIN_LOG_CAPACITY_BYTES = 1L << 10;

  /** Largest log capacity accepted, in bytes. */
  public static final long MAX_LOG_CAPACITY_BYTES = 1L << 40;

  /**
   * ZooKeeper session timeout of the repeater's sessions with the duplicates' ensembles, in
   * milliseconds.
   */
  public static final int DEFAULT_SESSION_TIMEOUT_MILLIS = 10_000;

  /**
   * How long {@link Repeater#start()} waits to read and claim a majority of the duplicates'
   * bookkeeping states, in milliseconds.
   */
  public static final long DEFAULT_START_TIMEOUT_MILLIS = 30_000;

  /**
   * Default bound (ms) of the predicted-SLA meter and of the JMX predictor's "what if" question:
   * the client SDK's default for its observed-SLA meter.
   */
  public static final double DEFAULT_SLA_TAU_MS = 5;

  /**
   * Threads that read and decode client connections besides the sequencer's own: none, so the
   * sequencer thread reads the clients and a write is sequenced without waking another thread
   * (docs/benchmarks.md: fewer threads on the write path is lower latency at low write rates and
   * more writes/s at saturation on a 2-core host).
   */
  public static final int DEFAULT_CLIENT_IO_THREADS = 0;

  /** TCP connect timeout to a plugin, in milliseconds. */
  public static final int PLUGIN_CONNECT_TIMEOUT_MILLIS = 2_000;

  /**
   * How long a plugin has to answer HELLO with STATUS before the connection is dropped and retried,
   * in milliseconds.
   */
  public static final long PLUGIN_HANDSHAKE_TIMEOUT_MILLIS = 5_000;

  /**
   * How long a plugin connection may leave sent writes unacknowledged, with nothing at all heard
   * from the plugin, before the repeater drops it and connects again (resuming from the plugin's
   * applied seq), in milliseconds. Catches a connection that is dead on the plugin's side without
   * the repeater being told (half-open). A slow duplicate still acknowledges its progress and is
   * not affected.
   */
  public static final long DEFAULT_PLUGIN_ACK_TIMEOUT_MILLIS = 10_000;

  /**
   * First delay before reconnecting to a plugin after a failure, in milliseconds; doubled on each
   * failure.
   */
  public static final long RECONNECT_BACKOFF_MIN_MILLIS = 50;

  /**
   * Bound on a whole state transfer, from the rejoin call to streaming again; past it the duplicate
   * stays fenced.
   */
  public static final long TRANSFER_TIMEOUT_MILLIS = 120_000;

  /**
   * Pause between an automatic fencing and the state transfer it starts (so the fencing is reported
   * first).
   */
  public static final long AUTO_REJOIN_DELAY_MILLIS = 100;

  /**
   * Whether the repeater rejoins a duplicate that comes back needing writes the log no longer holds
   * (default).
   */
  public static final boolean DEFAULT_AUTO_REJOIN = true;

  /** Largest delay between reconnection attempts to a plugin, in milliseconds. */
  public static final long RECONNECT_BACKOFF_MAX_MILLIS = 2_000;

  /**
   * Outbound bytes queued on a plugin connection above which the repeater stops writing to it (the
   * duplicate is <em>paused</em> and resumes from the log when the queue drains below {@link
   * #PLUGIN_WRITE_LOW_WATER_MARK_BYTES}). Bounds the memory a slow duplicate can pin beyond the
   * log.
   */
  public static final int PLUGIN_WRITE_HIGH_WATER_MARK_BYTES = 1024 * 1024;

  /**
   * The kernel send buffer of a plugin connection, in bytes: fixed (not auto-tuned to megabytes),
   * so that what a slow duplicate has not read waits in the repeater's log, where the back-pressure
   * rules see it, rather than in socket buffers.
   */
  public static final int PLUGIN_SOCKET_SEND_BUFFER_BYTES = 256 * 1024;

  /**
   * Outbound bytes queued on a paused plugin connection below which the repeater resumes writing to
   * it.
   */
  public static final int PLUGIN_WRITE_LOW_WATER_MARK_BYTES = 256 * 1024;

  /**
   * Most WRITEs a client connection hands to the sequencer at once (one handoff per read burst, up
   * to this).
   */
  public static final int MAX_WRITES_PER_HANDOFF = 256;

  /**
   * Handoffs a client connection may have queued for the sequencer before the repeater stops
   * reading from it (TCP then pushes back on the client); reading resumes once the sequencer
   * catches up.
   */
  public static final int MAX_PENDING_HANDOFFS_PER_CLIENT = 8;

  /**
   * When the most advanced non-fenced duplicate has not acked this percentage of the log capacity
   * (every duplicate is that far behind: the system is overloaded, not one laggard), the repeater
   * stops reading client connections, so TCP pushes back on clients instead of the log filling up
   * and refusing WRITEs with OVERLOADED.
   */
  public static final int CLIENT_PAUSE_UNACKED_PERCENT = 75;

  /**
   * Reading client connections resumes once the most advanced duplicate is behind by at most this
   * percentage.
   */
  public static final int CLIENT_RESUME_UNACKED_PERCENT = 50;

  /** {@code retryAfterMillis} of an OVERLOADED refusal, in milliseconds. */
  public static final long OVERLOADED_RETRY_AFTER_MILLIS = 10;

  /**
   * The duplicates' {@code jute.maxbuffer} by default: ZooKeeper's own default, 0xfffff bytes (1
   * MiB - 1). The repeater refuses (ERROR TOO_LARGE, before sequencing) a write that would not fit
   * in one ZooKeeper request of this size together with the plugin's bookkeeping ops, since every
   * duplicate would fail it.
   */
  public static final int DEFAULT_JUTE_MAX_BUFFER_BYTES = 0xfffff;

  /** Smallest {@code jute.maxbuffer} the repeater accepts, in bytes. */
  public static final int MIN_JUTE_MAX_BUFFER_BYTES = 64 * 1024;

  /** Largest frame sent or accepted, in bytes, length prefix included. */
  public static final int MAX_FRAME_BYTES = WireSettings.DEFAULT_MAX_FRAME_BYTES;

  /**
   * On {@link Repeater#close()}, how long to wait for queued SEQUENCED messages to reach the
   * plugins, in milliseconds.
   */
  public static final long CLOSE_DRAIN_TIMEOUT_MILLIS = 2_000;

  /** On {@link Repeater#close()}, how long the I/O threads get to finish, in milliseconds. */
  public static final long CLOSE_THREADS_TIMEOUT_MILLIS = 5_000;

  /**
   * When another repeater claimed the chosen epoch first at some duplicate, the most the repeater
   * pauses (a random pause, so that two starting together stop colliding) before claiming the next
   * epoch, in milliseconds.
   */
  public static final long CLAIM_RETRY_PAUSE_MAX_MILLIS = 100;

  /**
   * How long (ms) a takeover still waits for the other duplicates once a majority has answered (its
   * state read, its epoch claimed); those that do not answer by then are left out and rejoin by
   * state transfer when they come back. Long enough for a live duplicate on a loaded host to
   * answer, short enough to keep a takeover with a duplicate down within about a second of one with
   * all of them up.
   */
  public static final long DEFAULT_MISSING_DUPLICATE_GRACE_MILLIS = 1_000;

  /**
   * At start, how long one duplicate's plugin has to send the writes it applied recently (for the
   * duplicates behind it), in milliseconds; the start timeout bounds it too. A plugin that does not
   * answer in time is skipped.
   */
  public static final long RECOVERY_FETCH_TIMEOUT_MILLIS = 5_000;

  /** The id the repeater sends in its HELLO to plugins. */
  public static final String HELLO_ID = "repeater";
}
