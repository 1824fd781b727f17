package io.zoolander.server.plugin;

import io.zoolander.server.internal.security.ConnectionLimits;
import io.zoolander.server.settings.Setting;
import io.zoolander.wire.Znodes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The settings of the Zoolander plugin, read from the {@code zoolander.*} entries of a duplicate's
 * {@code zoo.cfg} and validated once, when the plugin starts. Every key, default and bound is a
 * named constant here, and every entry is described by a {@link PluginKeys} descriptor (which the
 * launcher checks zoo.cfg's keys against when the server starts); every duration is in milliseconds
 * and every size in messages, as the names say.
 *
 * <table>
 * <caption>zoo.cfg entries</caption>
 * <tr><th>key</th><th>default</th><th>meaning</th></tr>
 * <tr><td>{@value #DUPLICATE_ID_KEY}</td><td>required</td><td>this duplicate's id ({@code >= 0}), the same on every
 *     server of the ensemble and different in every duplicate</td></tr>
 * <tr><td>{@value #BASE_PATH_KEY}</td><td>{@value #BASE_PATH_DEFAULT}</td><td>where Zoolander keeps its znodes
 *     (see {@link Znodes})</td></tr>
 * <tr><td>{@value #HOST_KEY}</td><td>{@value #HOST_DEFAULT}</td><td>address the plugin's server binds to</td></tr>
 * <tr><td>{@value #PORT_KEY}</td><td>{@value #PORT_DEFAULT}</td><td>port it binds to; 0 picks a free port, which
 *     is published in the endpoint znode</td></tr>
 * <tr><td>{@value #ADVERTISED_HOST_KEY}</td><td>the bind host</td><td>host published in the endpoint znode; required
 *     when binding a wildcard address</td></tr>
 * <tr><td>{@value #SESSION_TIMEOUT_MS_KEY}</td><td>{@value #SESSION_TIMEOUT_MS_DEFAULT}</td><td>session timeout of
 *     the plugin's ZooKeeper client (ZooKeeper bounds it to 2..20 ticks)</td></tr>
 * <tr><td>{@value #CONNECT_TIMEOUT_MS_KEY}</td><td>{@value #CONNECT_TIMEOUT_MS_DEFAULT}</td><td>how long start-up
 *     waits for the plugin's own server to accept its client</td></tr>
 * <tr><td>{@value #GAP_BUFFER_MESSAGES_KEY}</td><td>{@value #GAP_BUFFER_MESSAGES_DEFAULT}</td><td>most SEQUENCED
 *     messages held after a gap while the missing ones are retransmitted; beyond it the highest are dropped (and
 *     asked for again later)</td></tr>
 * <tr><td>{@value #RETRANSMIT_TIMEOUT_MS_KEY}</td><td>{@value #RETRANSMIT_TIMEOUT_MS_DEFAULT}</td><td>how long a
 *     RETRANSMIT for a gap is left unanswered before it is sent again</td></tr>
 * <tr><td>{@value #READ_WAIT_MS_KEY}</td><td>{@value #READ_WAIT_MS_DEFAULT}</td><td>how long a READ waits for this
 *     duplicate to apply its {@code minSeq} before it is refused</td></tr>
 * <tr><td>{@value #MAX_WAITING_READS_KEY}</td><td>{@value #MAX_WAITING_READS_DEFAULT}</td><td>most READs waiting
 *     for their {@code minSeq} at once; more are refused at once</td></tr>
 * <tr><td>{@value #MAX_QUEUED_MESSAGES_KEY}</td><td>{@value #MAX_QUEUED_MESSAGES_DEFAULT}</td><td>messages
 *     (SEQUENCED, READ) received but not yet handled at which the plugin stops reading from the connection that sent
 *     the last one (TCP back-pressure) until half of them are handled</td></tr>
 * <tr><td>{@value #ADVERTISED_PORT_KEY}</td><td>{@value #ADVERTISED_PORT_DEFAULT}</td><td>port published in the
 *     endpoint znode; 0 publishes the bound port (set it when peers reach the plugin through a forwarded port or a
 *     proxy)</td></tr>
 * <tr><td>{@value #RECENT_WRITES_MESSAGES_KEY}</td><td>{@value #RECENT_WRITES_MESSAGES_DEFAULT}</td><td>most applied
 *     writes the plugin keeps in memory (also bounded to {@value #RECENT_WRITES_MAX_BYTES} bytes) so that a new
 *     repeater can recover from this duplicate the writes others missed when the old repeater died; 0 keeps
 *     none</td></tr>
 * <tr><td>{@value #MAX_BATCH_BYTES_KEY}</td><td>{@value #MAX_BATCH_BYTES_DEFAULT}</td><td>most bytes of one batch of
 *     writes applied as one ZooKeeper multi (besides at most 64 writes and {@code jute.maxbuffer}); ZooKeeper keeps
 *     its last 500 proposals in memory, so this bounds what they hold</td></tr>
 * <tr><td>{@value #MAX_WATCHES_PER_CONNECTION_KEY}</td><td>{@value #MAX_WATCHES_PER_CONNECTION_DEFAULT}</td><td>most
 *     watches one client connection may have armed at once; a WATCH beyond it is refused with ERROR OVERLOADED; 0
 *     refuses every watch</td></tr>
 * </table>
 *
 * <p>The plugin also needs {@code zoolander.pluginFactory=}{@link ZoolanderPluginFactory} and, like
 * every ZooKeeper server running Zoolander, {@code standaloneEnabled=false}. {@code
 * zoolander.plugin.stopTimeoutMs} (how long the server waits for the plugin to stop) is read by the
 * server, see {@link io.zoolander.server.ZoolanderPeerMain#settings()}. The security entries
 * ({@code zoolander.tls.*}, {@code zoolander.auth.*}, {@code zoolander.zookeeper.*}) are read by
 * {@code PluginSecurity}.
 *
 * @param duplicateId this duplicate's id
 * @param znodes the znode layout under the base path
 * @param host the bind address
 * @param port the bind port, 0 for any free port
 * @param advertisedHost the host published in the endpoint znode
 * @param sessionTimeoutMs session timeout of the plugin's ZooKeeper client
 * @param connectTimeoutMs bound on waiting for the own server at start-up
 * @param gapBufferMessages most messages held after a gap
 * @param retransmitTimeoutMs when an unanswered RETRANSMIT is repeated
 * @param readWaitMs how long a READ waits for its minSeq
 * @param maxWaitingReads most READs waiting at once
 * @param maxQueuedMessages back-pressure threshold on received, unhandled messages
 * @param advertisedPort the port published in the endpoint znode, 0 for the bound port
 * @param recentWritesMessages most applied writes kept for a new repeater's recovery
 * @param maxBatchBytes most bytes of one multi applying a batch of writes
 * @param maxWatchesPerConnection most watches armed at once on one client connection
 */
public record ZoolanderPluginConfig(
    int duplicateId,
    Znodes znodes,
    String host,
    int port,
    String advertisedHost,
    int sessionTimeoutMs,
    long connectTimeoutMs,
    int gapBufferMessages,
    long retransmitTimeoutMs,
    long readWaitMs,
    int maxWaitingReads,
    int maxQueuedMessages,
    int advertisedPort,
    int recentWritesMessages,
    int maxBatchBytes,
    int maxWatchesPerConnection) {

  /** Key of this duplicate's id: required, an int {@code >= 0}. */
  public static final String DUPLICATE_ID_KEY = "zoolander.duplicateId";

  /** Key of the base path under which Zoolander keeps its znodes. */
  public static final String BASE_PATH_KEY = "zoolander.basePath";

  /** Default base path. */
  public static final String BASE_PATH_DEFAULT = Znodes.DEFAULT_BASE_PATH;

  /** Key of the address the plugin's server binds to. */
  public static final String HOST_KEY = "zoolander.plugin.host";

  /** Default bind address: loopback only. */
  public static final String HOST_DEFAULT = "127.0.0.1";

  /** Key of the port the plugin's server binds to. */
  public static final String PORT_KEY = "zoolander.plugin.port";

  /** Default port: 0, any free port (published in the endpoint znode). */
  public static final int PORT_DEFAULT = 0;

  /** Key of the host published in the endpoint znode (default: the bind host). */
  public static final String ADVERTISED_HOST_KEY = "zoolander.plugin.advertisedHost";

  /** Key of the plugin's ZooKeeper session timeout. */
  public static final String SESSION_TIMEOUT_MS_KEY = "zoolander.plugin.sessionTimeoutMs";

  /** Default session timeout. */
  public static final int SESSION_TIMEOUT_MS_DEFAULT = 6_000;

  /** Key of the bound on waiting for the own server at start-up. */
  public static final String CONNECT_TIMEOUT_MS_KEY = "zoolander.plugin.connectTimeoutMs";

  /** Default bound on waiting for the own server. */
  public static final long CONNECT_TIMEOUT_MS_DEFAULT = 30_000;

  /** Key of the gap buffer size. */
  public static final String GAP_BUFFER_MESSAGES_KEY = "zoolander.plugin.gapBufferMessages";

  /** Default gap buffer size (a SEQUENCED message can carry up to 1 MiB of data). */
  public static final int GAP_BUFFER_MESSAGES_DEFAULT = 256;

  /** Key of the retransmission timeout. */
  public static final String RETRANSMIT_TIMEOUT_MS_KEY = "zoolander.plugin.retransmitTimeoutMs";

  /** Default retransmission timeout. */
  public static final long RETRANSMIT_TIMEOUT_MS_DEFAULT = 1_000;

  /** Key of how long a READ waits for its minSeq. */
  public static final String READ_WAIT_MS_KEY = "zoolander.plugin.readWaitMs";

  /** Default READ wait. */
  public static final long READ_WAIT_MS_DEFAULT = 1_000;

  /** Key of the most READs waiting at once. */
  public static final String MAX_WAITING_READS_KEY = "zoolander.plugin.maxWaitingReads";

  /** Default most waiting READs. */
  public static final int MAX_WAITING_READS_DEFAULT = 4_096;

  /** Key of the back-pressure threshold on received, unhandled messages. */
  public static final String MAX_QUEUED_MESSAGES_KEY = "zoolander.plugin.maxQueuedMessages";

  /** Default back-pressure threshold. */
  public static final int MAX_QUEUED_MESSAGES_DEFAULT = 1_024;

  /** Key of the port published in the endpoint znode. */
  public static final String ADVERTISED_PORT_KEY = "zoolander.plugin.advertisedPort";

  /** Default published port: 0, the bound port. */
  public static final int ADVERTISED_PORT_DEFAULT = 0;

  /** Key of the most applied writes kept in memory for a new repeater's recovery. */
  public static final String RECENT_WRITES_MESSAGES_KEY = "zoolander.plugin.recentWritesMessages";

  /**
   * Default: as many as the repeater's default log holds, so a laggard it could serve is
   * recoverable after it.
   */
  public static final int RECENT_WRITES_MESSAGES_DEFAULT = 65_536;

  /**
   * Bound on the bytes of the applied writes kept (paths and data, estimated), whatever their
   * count.
   */
  public static final long RECENT_WRITES_MAX_BYTES = 32L * 1024 * 1024;

  /** Key of the most bytes of one batch of writes, applied as one ZooKeeper multi. */
  public static final String MAX_BATCH_BYTES_KEY = "zoolander.plugin.maxBatchBytes";

  /**
   * Default: 256 KiB, about 64 writes of 4 KiB. ZooKeeper keeps its last 500 proposals, each about
   * three copies of its data, so batches of at most this much hold at most about 375 MiB there;
   * {@code jute.maxbuffer} alone (1 MB by default) would allow 1.5 GB.
   */
  public static final int MAX_BATCH_BYTES_DEFAULT = 256 * 1024;

  /** Key of the most watches armed at once on one client connection. */
  public static final String MAX_WATCHES_PER_CONNECTION_KEY =
      "zoolander.plugin.maxWatchesPerConnection";

  /** Default most watches per client connection. */
  public static final int MAX_WATCHES_PER_CONNECTION_DEFAULT = 10_000;

  /** Smallest accepted batch bound: a batch of two small writes must fit. */
  public static final int MIN_BATCH_BYTES = 1_024;

  /**
   * Key of the longest background work (a snapshot) the plugin announces to clients as planned
   * slowness, in ms; 0 announces nothing.
   */
  public static final String PLANNED_SLOWNESS_MAX_MS_KEY = "zoolander.plugin.plannedSlownessMaxMs";

  /** Default: a snapshot of a small tree takes well under a second. */
  public static final long PLANNED_SLOWNESS_MAX_MS_DEFAULT = 5_000;

  /** Key of how long a client must be gone before its record is deleted. */
  public static final String CLIENT_RECORD_RETENTION_MS_KEY =
      "zoolander.plugin.clientRecordRetentionMs";

  /** Default retention of a gone client's record: 7 days. */
  public static final long CLIENT_RECORD_RETENTION_MS_DEFAULT = 7L * 24 * 60 * 60 * 1_000;

  /** Shortest retention: 1 s (for tests; keep it far above every client's request timeout). */
  public static final long CLIENT_RECORD_RETENTION_MS_MIN = 1_000;

  /**
   * Reads {@value #CLIENT_RECORD_RETENTION_MS_KEY} (its descriptor is {@link
   * PluginKeys#CLIENT_RECORD_RETENTION_MS}).
   *
   * @throws IllegalArgumentException if it is not an integer in range
   */
  public static long clientRecordRetentionMs(Map<String, String> properties) {
    List<String> errors = new ArrayList<>();
    long value = parse(errors, properties, PluginKeys.CLIENT_RECORD_RETENTION_MS);
    if (!errors.isEmpty()) {
      throw new IllegalArgumentException(
          "Invalid Zoolander plugin settings in zoo.cfg: " + String.join("; ", errors));
    }
    return value;
  }

  /** Key of whether a write to the data root by another session fences the duplicate. */
  public static final String FENCE_ON_FOREIGN_WRITE_KEY = "zoolander.plugin.fenceOnForeignWrite";

  /**
   * Reads {@value #FENCE_ON_FOREIGN_WRITE_KEY} (its descriptor is {@link
   * PluginKeys#FENCE_ON_FOREIGN_WRITE}).
   *
   * @throws IllegalArgumentException if it is not {@code true} or {@code false}
   */
  public static boolean fenceOnForeignWrite(Map<String, String> properties) {
    try {
      return PluginKeys.FENCE_ON_FOREIGN_WRITE.valueIn(trimmedValues(properties));
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(
          "Invalid Zoolander plugin settings in zoo.cfg: " + e.getMessage(), e);
    }
  }

  private static Map<String, String> trimmedValues(Map<String, String> properties) {
    Map<String, String> trimmed = new java.util.HashMap<>();
    properties.forEach((k, v) -> trimmed.put(k, v == null ? null : v.trim()));
    return trimmed;
  }

  /** Key of how long a new connection may take to finish HELLO (and AUTH). */
  public static final String HANDSHAKE_TIMEOUT_MS_KEY = "zoolander.plugin.handshakeTimeoutMs";

  /** Key of how long a connection may stall in the middle of a frame. */
  public static final String FRAME_IDLE_TIMEOUT_MS_KEY = "zoolander.plugin.frameIdleTimeoutMs";

  /** Key of how long one frame may take to arrive whole. */
  public static final String FRAME_TIMEOUT_MS_KEY = "zoolander.plugin.frameTimeoutMs";

  /** Key of the most connections open on the plugin's port at once. */
  public static final String MAX_CONNECTIONS_KEY = "zoolander.plugin.maxConnections";

  /**
   * Reads {@value #HANDSHAKE_TIMEOUT_MS_KEY}, {@value #FRAME_IDLE_TIMEOUT_MS_KEY}, {@value
   * #FRAME_TIMEOUT_MS_KEY} and {@value #MAX_CONNECTIONS_KEY} (descriptors: {@link
   * PluginKeys#HANDSHAKE_TIMEOUT_MS}, {@link PluginKeys#FRAME_IDLE_TIMEOUT_MS}, {@link
   * PluginKeys#FRAME_TIMEOUT_MS}, {@link PluginKeys#MAX_CONNECTIONS}).
   *
   * @throws IllegalArgumentException if one is not an integer in range
   */
  public static ConnectionLimits connectionLimits(Map<String, String> properties) {
    List<String> errors = new ArrayList<>();
    long handshakeTimeoutMs = parse(errors, properties, PluginKeys.HANDSHAKE_TIMEOUT_MS);
    long frameIdleTimeoutMs = parse(errors, properties, PluginKeys.FRAME_IDLE_TIMEOUT_MS);
    long frameTimeoutMs = parse(errors, properties, PluginKeys.FRAME_TIMEOUT_MS);
    long maxConnections = parse(errors, properties, PluginKeys.MAX_CONNECTIONS);
    if (!errors.isEmpty()) {
      throw new IllegalArgumentException(
          "Invalid Zoolander plugin settings in zoo.cfg: " + String.join("; ", errors));
    }
    return new ConnectionLimits(
        handshakeTimeoutMs, frameIdleTimeoutMs, frameTimeoutMs, (int) maxConnections);
  }

  /** Largest accepted timeout, for every {@code ...Ms} setting: one hour. */
  public static final long MAX_TIMEOUT_MS = 3_600_000;

  /** Largest accepted message count, for every count setting. */
  public static final int MAX_MESSAGES = 1_000_000;

  /**
   * Validates every field, as {@link #from(Map)} does.
   *
   * @throws IllegalArgumentException naming every invalid field
   */
  public ZoolanderPluginConfig {
    List<String> errors = new ArrayList<>();
    if (duplicateId < 0) {
      errors.add("duplicateId must be >= 0, was " + duplicateId);
    }
    if (znodes == null) {
      errors.add("znodes must not be null");
    }
    if (host == null || host.isBlank()) {
      errors.add("host must not be empty");
    }
    if (port < 0 || port > 65_535) {
      errors.add("port must be 0..65535, was " + port);
    }
    if (advertisedHost == null
        || advertisedHost.isBlank()
        || advertisedHost.contains(";")
        || isWildcard(advertisedHost)) {
      errors.add(
          "advertisedHost must be a reachable host name or address, was '" + advertisedHost + "'");
    }
    range(errors, "sessionTimeoutMs", sessionTimeoutMs, 1, MAX_TIMEOUT_MS);
    range(errors, "connectTimeoutMs", connectTimeoutMs, 1, MAX_TIMEOUT_MS);
    range(errors, "gapBufferMessages", gapBufferMessages, 1, MAX_MESSAGES);
    range(errors, "retransmitTimeoutMs", retransmitTimeoutMs, 1, MAX_TIMEOUT_MS);
    range(errors, "readWaitMs", readWaitMs, 0, MAX_TIMEOUT_MS);
    range(errors, "maxWaitingReads", maxWaitingReads, 0, MAX_MESSAGES);
    range(errors, "maxQueuedMessages", maxQueuedMessages, 2, MAX_MESSAGES);
    range(errors, "advertisedPort", advertisedPort, 0, 65_535);
    range(errors, "recentWritesMessages", recentWritesMessages, 0, MAX_MESSAGES);
    range(errors, "maxBatchBytes", maxBatchBytes, MIN_BATCH_BYTES, Integer.MAX_VALUE);
    range(errors, "maxWatchesPerConnection", maxWatchesPerConnection, 0, MAX_MESSAGES);
    if (!errors.isEmpty()) {
      throw new IllegalArgumentException(
          "Invalid Zoolander plugin settings: " + String.join("; ", errors));
    }
  }

  /**
   * Reads and validates the settings from {@code zoo.cfg} entries (full keys); absent keys take
   * their defaults.
   *
   * @param properties the {@code zoolander.*} entries, as {@link
   *     io.zoolander.server.LeaderContext#properties()}
   * @return the validated settings
   * @throws IllegalArgumentException naming every missing or invalid entry
   */
  public static ZoolanderPluginConfig from(Map<String, String> properties) {
    List<String> errors = new ArrayList<>();
    Integer duplicateId = null;
    String rawId = trimmed(properties, DUPLICATE_ID_KEY);
    if (rawId == null) {
      errors.add(DUPLICATE_ID_KEY + " is required");
    } else {
      duplicateId = (int) parse(errors, properties, PluginKeys.DUPLICATE_ID, -1);
    }
    Znodes znodes = null;
    String basePath = orDefault(properties, PluginKeys.BASE_PATH);
    try {
      znodes = new Znodes(basePath);
    } catch (IllegalArgumentException e) {
      errors.add(BASE_PATH_KEY + ": " + e.getMessage());
    }
    String host = orDefault(properties, PluginKeys.HOST);
    int port = (int) parse(errors, properties, PluginKeys.PORT);
    String advertisedHost = orDefault(properties, ADVERTISED_HOST_KEY, host);
    if (isWildcard(advertisedHost)) {
      errors.add(
          ADVERTISED_HOST_KEY
              + " is required when "
              + HOST_KEY
              + " is the wildcard address "
              + host);
    } else if (advertisedHost.contains(";")) {
      errors.add(ADVERTISED_HOST_KEY + " must not contain ';': " + advertisedHost);
    }
    int sessionTimeoutMs = (int) parse(errors, properties, PluginKeys.SESSION_TIMEOUT_MS);
    long connectTimeoutMs = parse(errors, properties, PluginKeys.CONNECT_TIMEOUT_MS);
    int gapBufferMessages = (int) parse(errors, properties, PluginKeys.GAP_BUFFER_MESSAGES);
    long retransmitTimeoutMs = parse(errors, properties, PluginKeys.RETRANSMIT_TIMEOUT_MS);
    long readWaitMs = parse(errors, properties, PluginKeys.READ_WAIT_MS);
    int maxWaitingReads = (int) parse(errors, properties, PluginKeys.MAX_WAITING_READS);
    int maxQueuedMessages = (int) parse(errors, properties, PluginKeys.MAX_QUEUED_MESSAGES);
    int advertisedPort = (int) parse(errors, properties, PluginKeys.ADVERTISED_PORT);
    int recentWritesMessages = (int) parse(errors, properties, PluginKeys.RECENT_WRITES_MESSAGES);
    int maxBatchBytes = (int) parse(errors, properties, PluginKeys.MAX_BATCH_BYTES);
    int maxWatchesPerConnection =
        (int) parse(errors, properties, PluginKeys.MAX_WATCHES_PER_CONNECTION);
    if (!errors.isEmpty()) {
      throw new IllegalArgumentException(
          "Invalid Zoolander plugin settings in zoo.cfg: " + String.join("; ", errors));
    }
    return new ZoolanderPluginConfig(
        duplicateId,
        znodes,
        host,
        port,
        advertisedHost,
        sessionTimeoutMs,
        connectTimeoutMs,
        gapBufferMessages,
        retransmitTimeoutMs,
        readWaitMs,
        maxWaitingReads,
        maxQueuedMessages,
        advertisedPort,
        recentWritesMessages,
        maxBatchBytes,
        maxWatchesPerConnection);
  }

  private static String trimmed(Map<String, String> properties, String key) {
    String value = properties.get(key);
    return value == null || value.isBlank() ? null : value.trim();
  }

  private static String orDefault(Map<String, String> properties, String key, String defaultValue) {
    String value = trimmed(properties, key);
    return value == null ? defaultValue : value;
  }

  private static String orDefault(Map<String, String> properties, Setting<String> setting) {
    return orDefault(properties, setting.key(), setting.defaultValue().orElseThrow());
  }

  /** The value of an integer setting, checked against its descriptor's range. */
  private static long parse(List<String> errors, Map<String, String> properties, Setting<Long> s) {
    return parse(errors, properties, s, s.defaultValue().orElseThrow());
  }

  private static long parse(
      List<String> errors, Map<String, String> properties, Setting<Long> s, long defaultValue) {
    String value = trimmed(properties, s.key());
    if (value == null) {
      return defaultValue;
    }
    long parsed;
    try {
      parsed = Long.parseLong(value);
    } catch (NumberFormatException e) {
      errors.add(s.key() + " is not an integer: '" + value + "'");
      return defaultValue;
    }
    long min = s.min().orElse(Long.MIN_VALUE);
    long max = s.max().orElse(Long.MAX_VALUE);
    if (parsed < min || parsed > max) {
      errors.add(s.key() + " must be " + min + ".." + max + ", was " + parsed);
      return defaultValue;
    }
    return parsed;
  }

  private static void range(List<String> errors, String name, long value, long min, long max) {
    if (value < min || value > max) {
      errors.add(name + " must be " + min + ".." + max + ", was " + value);
    }
  }

  private static boolean isWildcard(String host) {
    return host != null
        && (host.equals("0.0.0.0") || host.equals("::") || host.equals("[::]") || host.equals("*"));
  }
}
