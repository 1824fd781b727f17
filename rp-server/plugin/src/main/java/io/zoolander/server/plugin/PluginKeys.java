package io.zoolander.server.plugin;

import static io.zoolander.server.plugin.ZoolanderPluginConfig.MAX_MESSAGES;
import static io.zoolander.server.plugin.ZoolanderPluginConfig.MAX_TIMEOUT_MS;

import io.zoolander.server.internal.security.ConnectionLimits;
import io.zoolander.server.security.PluginSecurity;
import io.zoolander.server.settings.Setting;
import io.zoolander.server.settings.SettingSet;
import io.zoolander.wire.WireSettings;
import java.util.ArrayList;
import java.util.List;

/**
 * The plugin's {@code zoo.cfg} entries as {@link Setting} descriptors: key, default, range, unit
 * and meaning of every {@code zoolander.*} entry {@link ZoolanderPluginConfig} reads, and of the
 * entry that names this plugin. The plugin owns them: {@link ZoolanderPluginFactory#settings()}
 * declares them (with {@link PluginSecurity#SETTINGS}) to the launcher, which refuses any other
 * {@code zoolander.*} key at start; {@code zoolander server --help} lists them; {@code
 * docs/operations.md} is checked against them. The values are validated by {@link
 * ZoolanderPluginConfig#from} when the plugin starts.
 */
public final class PluginKeys {
  private PluginKeys() {}

  /** The entry that names this plugin: required, with {@link ZoolanderPluginFactory}'s name. */
  public static final Setting<String> PLUGIN_FACTORY =
      Setting.text("zoolander.pluginFactory")
          .defaultText(ZoolanderPluginFactory.class.getName())
          .doc("Required, with this value: the plugin that runs while this server leads.")
          .build();

  public static final Setting<Long> DUPLICATE_ID =
      Setting.integer(ZoolanderPluginConfig.DUPLICATE_ID_KEY)
          .range(0L, (long) Integer.MAX_VALUE)
          .defaultText("<id> (required)")
          .doc(
              "This duplicate's id (an integer >= 0): the same on every server of the ensemble, different in every"
                  + " duplicate, and the <id> of the repeater's duplicate.<id> line.")
          .build();

  public static final Setting<String> BASE_PATH =
      Setting.text(ZoolanderPluginConfig.BASE_PATH_KEY)
          .defaultValue(ZoolanderPluginConfig.BASE_PATH_DEFAULT)
          .doc(
              "Where Zoolander keeps its znodes in this ensemble; the same in every duplicate, the repeater and the"
                  + " clients.")
          .build();

  public static final Setting<String> HOST =
      Setting.text(ZoolanderPluginConfig.HOST_KEY)
          .defaultValue(ZoolanderPluginConfig.HOST_DEFAULT)
          .doc(
              "Address the plugin's server binds to (repeater and clients connect to it); 0.0.0.0 for every"
                  + " interface, with "
                  + ZoolanderPluginConfig.ADVERTISED_HOST_KEY
                  + ".")
          .build();

  public static final Setting<Long> PORT =
      Setting.integer(ZoolanderPluginConfig.PORT_KEY)
          .defaultValue((long) ZoolanderPluginConfig.PORT_DEFAULT)
          .range(0L, 65_535L)
          .doc(
              "Port it binds to; 0 picks a free one. Either way the address is published in the"
                  + " <basePath>/endpoint znode, where the repeater and clients find it.")
          .build();

  public static final Setting<String> ADVERTISED_HOST =
      Setting.text(ZoolanderPluginConfig.ADVERTISED_HOST_KEY)
          .defaultText("(the bind host)")
          .doc(
              "Host published in the endpoint znode: one the repeater and clients can reach. Required when the bind"
                  + " host is a wildcard address.")
          .build();

  public static final Setting<Long> SESSION_TIMEOUT_MS =
      Setting.integer(ZoolanderPluginConfig.SESSION_TIMEOUT_MS_KEY)
          .defaultValue((long) ZoolanderPluginConfig.SESSION_TIMEOUT_MS_DEFAULT)
          .range(1L, MAX_TIMEOUT_MS)
          .unit("ms")
          .doc(
              "Session timeout (ms) of the plugin's ZooKeeper client of its own server; ZooKeeper clamps it to"
                  + " 2..20 ticks.")
          .build();

  public static final Setting<Long> CONNECT_TIMEOUT_MS =
      Setting.integer(ZoolanderPluginConfig.CONNECT_TIMEOUT_MS_KEY)
          .defaultValue(ZoolanderPluginConfig.CONNECT_TIMEOUT_MS_DEFAULT)
          .range(1L, MAX_TIMEOUT_MS)
          .unit("ms")
          .doc("How long (ms) the plugin waits at start for its own server to accept its client.")
          .build();

  public static final Setting<Long> GAP_BUFFER_MESSAGES =
      Setting.integer(ZoolanderPluginConfig.GAP_BUFFER_MESSAGES_KEY)
          .defaultValue((long) ZoolanderPluginConfig.GAP_BUFFER_MESSAGES_DEFAULT)
          .range(1L, (long) MAX_MESSAGES)
          .unit("messages")
          .doc("Most sequenced writes held after a gap while the missing ones are retransmitted.")
          .build();

  public static final Setting<Long> RETRANSMIT_TIMEOUT_MS =
      Setting.integer(ZoolanderPluginConfig.RETRANSMIT_TIMEOUT_MS_KEY)
          .defaultValue(ZoolanderPluginConfig.RETRANSMIT_TIMEOUT_MS_DEFAULT)
          .range(1L, MAX_TIMEOUT_MS)
          .unit("ms")
          .doc("How long (ms) a retransmission request stays unanswered before it is sent again.")
          .build();

  public static final Setting<Long> READ_WAIT_MS =
      Setting.integer(ZoolanderPluginConfig.READ_WAIT_MS_KEY)
          .defaultValue(ZoolanderPluginConfig.READ_WAIT_MS_DEFAULT)
          .range(0L, MAX_TIMEOUT_MS)
          .unit("ms")
          .doc(
              "How long (ms) a read waits for this duplicate to apply the client's last seen seq before it is"
                  + " refused (the client tries another duplicate).")
          .build();

  public static final Setting<Long> MAX_WAITING_READS =
      Setting.integer(ZoolanderPluginConfig.MAX_WAITING_READS_KEY)
          .defaultValue((long) ZoolanderPluginConfig.MAX_WAITING_READS_DEFAULT)
          .range(0L, (long) MAX_MESSAGES)
          .unit("reads")
          .doc("Most reads waiting at once; more are refused at once.")
          .build();

  public static final Setting<Long> MAX_WATCHES_PER_CONNECTION =
      Setting.integer(ZoolanderPluginConfig.MAX_WATCHES_PER_CONNECTION_KEY)
          .defaultValue((long) ZoolanderPluginConfig.MAX_WATCHES_PER_CONNECTION_DEFAULT)
          .range(0L, (long) MAX_MESSAGES)
          .unit("watches")
          .doc(
              "Most watches one client connection may have armed at once; more are refused with ERROR"
                  + " OVERLOADED; 0 refuses every watch.")
          .build();

  public static final Setting<Long> MAX_QUEUED_MESSAGES =
      Setting.integer(ZoolanderPluginConfig.MAX_QUEUED_MESSAGES_KEY)
          .defaultValue((long) ZoolanderPluginConfig.MAX_QUEUED_MESSAGES_DEFAULT)
          .range(2L, (long) MAX_MESSAGES)
          .unit("messages")
          .doc(
              "Received, unhandled messages at which the plugin stops reading the connection that sent the last"
                  + " one (TCP back-pressure) until half are handled.")
          .build();

  public static final Setting<Long> ADVERTISED_PORT =
      Setting.integer(ZoolanderPluginConfig.ADVERTISED_PORT_KEY)
          .defaultValue((long) ZoolanderPluginConfig.ADVERTISED_PORT_DEFAULT)
          .range(0L, 65_535L)
          .doc(
              "Port published in the endpoint znode; 0 publishes the bound port. Set it when the repeater and"
                  + " clients reach the plugin through a forwarded port or a proxy.")
          .build();

  public static final Setting<Long> RECENT_WRITES_MESSAGES =
      Setting.integer(ZoolanderPluginConfig.RECENT_WRITES_MESSAGES_KEY)
          .defaultValue((long) ZoolanderPluginConfig.RECENT_WRITES_MESSAGES_DEFAULT)
          .range(0L, (long) MAX_MESSAGES)
          .unit("messages")
          .doc(
              "Most applied writes kept in memory (also at most "
                  + ZoolanderPluginConfig.RECENT_WRITES_MAX_BYTES
                  + " bytes), so that a new repeater can recover from this duplicate the writes other duplicates"
                  + " missed when the old repeater died; 0 keeps none.")
          .build();

  public static final Setting<Long> MAX_BATCH_BYTES =
      Setting.integer(ZoolanderPluginConfig.MAX_BATCH_BYTES_KEY)
          .defaultValue((long) ZoolanderPluginConfig.MAX_BATCH_BYTES_DEFAULT)
          .range((long) ZoolanderPluginConfig.MIN_BATCH_BYTES, (long) Integer.MAX_VALUE)
          .unit("bytes")
          .doc(
              "Most bytes of one batch of writes, applied as one ZooKeeper multi (besides at most 64 writes and"
                  + " jute.maxbuffer). ZooKeeper keeps its last 500 proposals in memory: this bounds what they hold.")
          .build();

  public static final Setting<Long> PLANNED_SLOWNESS_MAX_MS =
      Setting.integer(ZoolanderPluginConfig.PLANNED_SLOWNESS_MAX_MS_KEY)
          .defaultValue(ZoolanderPluginConfig.PLANNED_SLOWNESS_MAX_MS_DEFAULT)
          .range(0L, WireSettings.MAX_PLANNED_SLOWNESS_MS)
          .unit("ms")
          .doc(
              "Planned slowness: the plugin tells its clients when its server starts a snapshot and when it ends, and"
                  + " they read from other duplicates meanwhile; this bounds how long a client keeps it out if the end"
                  + " is lost. 0 announces nothing.")
          .build();

  public static final Setting<Long> CLIENT_RECORD_RETENTION_MS =
      Setting.integer(ZoolanderPluginConfig.CLIENT_RECORD_RETENTION_MS_KEY)
          .defaultValue(ZoolanderPluginConfig.CLIENT_RECORD_RETENTION_MS_DEFAULT)
          .range(
              ZoolanderPluginConfig.CLIENT_RECORD_RETENTION_MS_MIN,
              100L * 365 * 24 * 60 * 60 * 1_000)
          .unit("ms")
          .doc(
              "How long a client must have sent no write (counted while the plugin streams from a repeater with"
                  + " no gap) before its record under <base>/clients is deleted. Keep it far above every client's"
                  + " request timeout: a retry that comes after its record is gone would be applied again.")
          .build();

  public static final Setting<Boolean> FENCE_ON_FOREIGN_WRITE =
      Setting.bool(ZoolanderPluginConfig.FENCE_ON_FOREIGN_WRITE_KEY)
          .defaultValue(true)
          .doc(
              "Whether a write to the data root by any ZooKeeper session but the plugin's (a plain client writing"
                  + " <base>/data) fences the duplicate, so that a state transfer repairs it; 'false' only logs and"
                  + " counts it (zoolander.plugin.writes.foreign) and leaves the duplicates different.")
          .build();

  public static final Setting<Long> HANDSHAKE_TIMEOUT_MS =
      Setting.integer(ZoolanderPluginConfig.HANDSHAKE_TIMEOUT_MS_KEY)
          .defaultValue(ConnectionLimits.DEFAULT_HANDSHAKE_TIMEOUT_MS)
          .range(ConnectionLimits.MIN_TIMEOUT_MS, ConnectionLimits.MAX_TIMEOUT_MS)
          .unit("ms")
          .doc(
              "A connection to the plugin that has not finished HELLO (and AUTH, when its role authenticates;"
                  + " TLS included) this long (ms) after it was accepted is answered ERROR UNEXPECTED_MESSAGE and"
                  + " closed.")
          .build();

  public static final Setting<Long> FRAME_IDLE_TIMEOUT_MS =
      Setting.integer(ZoolanderPluginConfig.FRAME_IDLE_TIMEOUT_MS_KEY)
          .defaultValue(ConnectionLimits.DEFAULT_FRAME_IDLE_TIMEOUT_MS)
          .range(ConnectionLimits.MIN_TIMEOUT_MS, ConnectionLimits.MAX_TIMEOUT_MS)
          .unit("ms")
          .doc(
              "A connection whose peer sent part of a frame and then nothing for this long (ms; closed within"
                  + " twice this) is answered ERROR MALFORMED_FRAME and closed. A quiet connection with no partial"
                  + " frame is never closed: clients and repeaters with nothing to send send nothing.")
          .build();

  public static final Setting<Long> FRAME_TIMEOUT_MS =
      Setting.integer(ZoolanderPluginConfig.FRAME_TIMEOUT_MS_KEY)
          .defaultValue(ConnectionLimits.DEFAULT_FRAME_TIMEOUT_MS)
          .range(ConnectionLimits.MIN_TIMEOUT_MS, ConnectionLimits.MAX_TIMEOUT_MS)
          .unit("ms")
          .doc(
              "A connection whose peer has been sending one frame for longer than this (ms; closed within"
                  + " frameIdleTimeoutMs more) is answered ERROR MALFORMED_FRAME and closed: a peer that"
                  + " trickles a byte at a time may not hold a partial frame for ever.")
          .build();

  public static final Setting<Long> MAX_CONNECTIONS =
      Setting.integer(ZoolanderPluginConfig.MAX_CONNECTIONS_KEY)
          .defaultValue((long) ConnectionLimits.DEFAULT_MAX_CONNECTIONS)
          .range(1L, (long) ConnectionLimits.MAX_MAX_CONNECTIONS)
          .unit("connections")
          .doc(
              "Most connections open on the plugin's port at once (every client connects to every duplicate,"
                  + " plus the repeater); more are answered ERROR OVERLOADED and closed. Each may hold one partial"
                  + " frame (up to about 1 MiB) in the ZooKeeper leader's heap.")
          .build();

  /** The plugin's own entries, security aside, in the order the help lists them. */
  public static final List<Setting<?>> SETTINGS =
      List.of(
          PLUGIN_FACTORY,
          DUPLICATE_ID,
          BASE_PATH,
          HOST,
          PORT,
          ADVERTISED_HOST,
          SESSION_TIMEOUT_MS,
          CONNECT_TIMEOUT_MS,
          GAP_BUFFER_MESSAGES,
          RETRANSMIT_TIMEOUT_MS,
          READ_WAIT_MS,
          MAX_WAITING_READS,
          MAX_QUEUED_MESSAGES,
          ADVERTISED_PORT,
          RECENT_WRITES_MESSAGES,
          MAX_BATCH_BYTES,
          MAX_WATCHES_PER_CONNECTION,
          PLANNED_SLOWNESS_MAX_MS,
          CLIENT_RECORD_RETENTION_MS,
          FENCE_ON_FOREIGN_WRITE,
          HANDSHAKE_TIMEOUT_MS,
          FRAME_IDLE_TIMEOUT_MS,
          FRAME_TIMEOUT_MS,
          MAX_CONNECTIONS);

  /** Every entry the plugin reads: {@link #SETTINGS}, then {@link PluginSecurity#SETTINGS}. */
  public static final SettingSet ALL = all();

  private static SettingSet all() {
    List<Setting<?>> all = new ArrayList<>(SETTINGS);
    all.addAll(PluginSecurity.SETTINGS);
    return SettingSet.of(PluginSecurity.PREFIX, all);
  }
}
