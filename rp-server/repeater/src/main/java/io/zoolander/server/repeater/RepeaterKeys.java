package io.zoolander.server.repeater;

import io.zoolander.server.internal.security.ConnectionLimits;
import io.zoolander.server.internal.security.SecurityKeys;
import io.zoolander.server.settings.Setting;
import io.zoolander.server.settings.SettingException;
import io.zoolander.server.settings.SettingSet;
import io.zoolander.wire.Znodes;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import org.apache.zookeeper.client.ConnectStringParser;

/**
 * Every key of the repeater's properties file ({@code zoolander repeater --config}) as a {@link
 * Setting} descriptor: its default, range, unit and meaning. The repeater owns them: the CLI reads
 * the file with them, its help lists them and {@code docs/operations.md} is checked against them.
 * Each maps to a {@link Repeater.Builder} method, which validates the value again when the repeater
 * is built.
 */
public final class RepeaterKeys {
  private RepeaterKeys() {}

  /** Largest accepted {@code sessionTimeoutMs} and {@code startTimeoutMs}: one hour. */
  public static final long MAX_TIMEOUT_MS = 3_600_000;

  /** Most client I/O threads, as {@link Repeater.Builder#clientIoThreads(int)} accepts. */
  public static final int MAX_CLIENT_IO_THREADS = 64;

  /** The prefix of {@link #DUPLICATE}'s keys. */
  public static final String DUPLICATE_PREFIX = "duplicate.";

  /** {@code duplicate.<id>}: one duplicate's connect string, a line per duplicate. */
  public static final Setting<String> DUPLICATE =
      Setting.of(DUPLICATE_PREFIX + "<id>", "connect string", RepeaterKeys::connectString)
          .defaultText("<connect string> (required, one line per duplicate)")
          .doc(
              "ZooKeeper connect string of duplicate <id>'s ensemble, e.g. duplicate.1=zk-a1:2181,zk-a2:2181,"
                  + "zk-a3:2181. <id> is that ensemble's zoolander.duplicateId (an integer >= 0). The repeater finds "
                  + "the duplicate's plugin through its endpoint znode there, and follows leader changes.")
          .build();

  public static final Setting<String> CLIENT_HOST =
      Setting.text("clientHost")
          .defaultValue(RepeaterSettings.DEFAULT_CLIENT_HOST)
          .doc(
              "Address the client listener binds; 0.0.0.0 for every interface. Clients are configured with an "
                  + "address that reaches it.")
          .build();

  public static final Setting<Long> CLIENT_PORT =
      Setting.integer("clientPort")
          .defaultValue((long) RepeaterSettings.DEFAULT_CLIENT_PORT)
          .range(0L, 65_535L)
          .doc(
              "Port clients connect to (0..65535); 0 picks a free port, printed at start. Give a deployment a fixed "
                  + "port: clients are configured with it.")
          .build();

  public static final Setting<String> BASE_PATH =
      Setting.of(
              "basePath",
              "znode path",
              text -> {
                try {
                  new Znodes(text);
                  return text;
                } catch (IllegalArgumentException e) {
                  throw new IllegalArgumentException(
                      "must be an absolute path like /zoolander, was '" + text + "'");
                }
              })
          .defaultValue(RepeaterSettings.DEFAULT_BASE_PATH)
          .doc(
              "Base path of Zoolander's znodes in every duplicate; equal to the servers' zoolander.basePath.")
          .build();

  public static final Setting<Long> LOG_CAPACITY =
      Setting.integer("logCapacity")
          .defaultValue((long) RepeaterSettings.DEFAULT_LOG_CAPACITY_MESSAGES)
          .range(1L, (long) RepeaterSettings.MAX_LOG_CAPACITY_MESSAGES)
          .unit("messages")
          .doc(
              "Retransmission log capacity in messages (1.."
                  + RepeaterSettings.MAX_LOG_CAPACITY_MESSAGES
                  + "): how "
                  + "far a duplicate may fall behind (or stay down) and still catch up from the log; beyond it the "
                  + "duplicate is fenced.")
          .build();

  public static final Setting<Long> LOG_CAPACITY_BYTES =
      Setting.integer("logCapacityBytes")
          .defaultValue(RepeaterSettings.DEFAULT_LOG_CAPACITY_BYTES)
          .range(RepeaterSettings.MIN_LOG_CAPACITY_BYTES, RepeaterSettings.MAX_LOG_CAPACITY_BYTES)
          .unit("bytes")
          .doc(
              "Retransmission log capacity in bytes of encoded writes (512 MiB by default): with large values"
                  + " this bound, not logCapacity, decides how far a duplicate may fall behind.")
          .build();

  public static final Setting<Long> MISSING_DUPLICATE_GRACE_MS =
      Setting.integer("missingDuplicateGraceMs")
          .defaultValue(RepeaterSettings.DEFAULT_MISSING_DUPLICATE_GRACE_MILLIS)
          .range(0L, MAX_TIMEOUT_MS)
          .unit("ms")
          .doc(
              "How long (ms) a takeover still waits for the other duplicates once a majority has answered; those"
                  + " that do not answer by then are left out and rejoin by state transfer when they come back.")
          .build();

  public static final Setting<Long> EPOCH_CHECK_MS =
      Setting.integer("epochCheckMs")
          .defaultValue(RepeaterSettings.DEFAULT_EPOCH_CHECK_MILLIS)
          .range(0L, MAX_TIMEOUT_MS)
          .unit("ms")
          .doc(
              "How often (ms) the repeater reads every duplicate's state znode it can reach and deposes itself if"
                  + " one holds a newer epoch: a repeater cut off from the plugins but not from ZooKeeper then tells"
                  + " its clients STALE_EPOCH instead of letting their writes time out. 0 turns it off.")
          .build();

  public static final Setting<Boolean> FAILOVER =
      Setting.bool("failover")
          .defaultValue(false)
          .doc(
              "Automatic failover: 'true' starts this repeater as a standby in the election (ephemeral sequential"
                  + " candidate znodes in every duplicate); it takes over by itself when the active repeater's"
                  + " heartbeat stops and it is first in line, and once active publishes its address for clients"
                  + " and standbys. 'false' takes over at once, as a supervisor-started repeater does.")
          .build();

  public static final Setting<String> FAILOVER_ADVERTISED_HOST =
      Setting.text("failover.advertisedHost")
          .defaultText("(clientHost)")
          .doc(
              "With failover: the host clients and standbys reach this repeater at, published when it becomes"
                  + " active; required when clientHost is a wildcard such as 0.0.0.0.")
          .build();

  public static final Setting<Long> FAILOVER_HEARTBEAT_PORT =
      Setting.integer("failover.heartbeatPort")
          .defaultValue(0L)
          .range(0L, 65_535L)
          .doc(
              "With failover: the port of the heartbeat standbys watch (bound on clientHost); 0 picks a free one,"
                  + " which is published.")
          .build();

  public static final Setting<Long> FAILOVER_HEARTBEAT_INTERVAL_MS =
      Setting.integer("failover.heartbeatIntervalMs")
          .defaultValue(FailoverSettings.DEFAULT_HEARTBEAT_INTERVAL_MILLIS)
          .range(
              FailoverSettings.MIN_HEARTBEAT_INTERVAL_MILLIS, FailoverSettings.MAX_HEARTBEAT_MILLIS)
          .unit("ms")
          .doc("With failover: how often (ms) the active repeater sends each standby a heartbeat.")
          .build();

  public static final Setting<Long> FAILOVER_HEARTBEAT_TIMEOUT_MS =
      Setting.integer("failover.heartbeatTimeoutMs")
          .defaultValue(FailoverSettings.DEFAULT_HEARTBEAT_TIMEOUT_MILLIS)
          .range(
              2 * FailoverSettings.MIN_HEARTBEAT_INTERVAL_MILLIS,
              FailoverSettings.MAX_HEARTBEAT_MILLIS)
          .unit("ms")
          .doc(
              "With failover: how long (ms) without a heartbeat makes a standby take the active repeater for"
                  + " dead (a killed process's heartbeat connection closes at once; this bounds a dead host), and"
                  + " how long each standby further down the candidate order waits for those ahead. At least"
                  + " twice failover.heartbeatIntervalMs.")
          .build();

  public static final Setting<Long> HANDSHAKE_TIMEOUT_MS =
      Setting.integer("handshakeTimeoutMs")
          .defaultValue(ConnectionLimits.DEFAULT_HANDSHAKE_TIMEOUT_MS)
          .range(ConnectionLimits.MIN_TIMEOUT_MS, ConnectionLimits.MAX_TIMEOUT_MS)
          .unit("ms")
          .doc(
              "A client connection that has not finished HELLO (and AUTH, when clients authenticate; TLS"
                  + " included) this long (ms) after it was accepted is answered ERROR UNEXPECTED_MESSAGE and"
                  + " closed.")
          .build();

  public static final Setting<Long> FRAME_IDLE_TIMEOUT_MS =
      Setting.integer("frameIdleTimeoutMs")
          .defaultValue(ConnectionLimits.DEFAULT_FRAME_IDLE_TIMEOUT_MS)
          .range(ConnectionLimits.MIN_TIMEOUT_MS, ConnectionLimits.MAX_TIMEOUT_MS)
          .unit("ms")
          .doc(
              "A client connection that sent part of a frame and then nothing for this long (ms; closed within"
                  + " twice this) is answered ERROR MALFORMED_FRAME and closed. A quiet client with no partial"
                  + " frame is never closed: a client with nothing to write sends nothing.")
          .build();

  public static final Setting<Long> FRAME_TIMEOUT_MS =
      Setting.integer("frameTimeoutMs")
          .defaultValue(ConnectionLimits.DEFAULT_FRAME_TIMEOUT_MS)
          .range(ConnectionLimits.MIN_TIMEOUT_MS, ConnectionLimits.MAX_TIMEOUT_MS)
          .unit("ms")
          .doc(
              "A client connection that has been sending one frame for longer than this (ms; closed within"
                  + " frameIdleTimeoutMs more) is answered ERROR MALFORMED_FRAME and closed: a client that"
                  + " trickles a byte at a time may not hold a partial frame for ever.")
          .build();

  public static final Setting<Long> MAX_CONNECTIONS =
      Setting.integer("maxConnections")
          .defaultValue((long) ConnectionLimits.DEFAULT_MAX_CONNECTIONS)
          .range(1L, (long) ConnectionLimits.MAX_MAX_CONNECTIONS)
          .unit("connections")
          .doc(
              "Most client connections open at once; more are answered ERROR OVERLOADED and closed. Each may"
                  + " hold one partial frame (up to about 1 MiB) in the repeater's heap.")
          .build();

  public static final Setting<Long> SESSION_TIMEOUT_MS =
      Setting.integer("sessionTimeoutMs")
          .defaultValue((long) RepeaterSettings.DEFAULT_SESSION_TIMEOUT_MILLIS)
          .range(1L, MAX_TIMEOUT_MS)
          .unit("ms")
          .doc(
              "ZooKeeper session timeout of the repeater's sessions with the ensembles, in ms (1.."
                  + MAX_TIMEOUT_MS
                  + "); the servers clamp it to 2..20 ticks.")
          .build();

  public static final Setting<Long> START_TIMEOUT_MS =
      Setting.integer("startTimeoutMs")
          .defaultValue(RepeaterSettings.DEFAULT_START_TIMEOUT_MILLIS)
          .range(1L, MAX_TIMEOUT_MS)
          .unit("ms")
          .doc(
              "How long start-up waits to read and claim the duplicates' bookkeeping state, in ms (1.."
                  + MAX_TIMEOUT_MS
                  + "). A majority must answer; one that does not within a second of the majority is left out and"
                  + " rejoins by state transfer.")
          .build();

  public static final Setting<Long> EPOCH =
      Setting.integer("epoch")
          .range(1L, Long.MAX_VALUE)
          .defaultText("(the highest epoch found plus one)")
          .doc(
              "A fixed epoch (>= 1) instead; start-up fails unless it is above every duplicate's. Each repeater start "
                  + "takes a new, higher epoch, which fences off any older repeater.")
          .build();

  public static final Setting<Long> CLIENT_IO_THREADS =
      Setting.integer("clientIoThreads")
          .defaultValue((long) RepeaterSettings.DEFAULT_CLIENT_IO_THREADS)
          .range(0L, (long) MAX_CLIENT_IO_THREADS)
          .unit("threads")
          .doc(
              "Threads reading client connections (0.."
                  + MAX_CLIENT_IO_THREADS
                  + "); sequencing runs on one more, "
                  + "dedicated thread. 0: the sequencing thread reads the clients too, so a write is "
                  + "sequenced without a hand-off between threads.")
          .build();

  public static final Setting<Long> JUTE_MAX_BUFFER =
      Setting.integer("juteMaxBuffer")
          .defaultValue((long) RepeaterSettings.DEFAULT_JUTE_MAX_BUFFER_BYTES)
          .range((long) RepeaterSettings.MIN_JUTE_MAX_BUFFER_BYTES, (long) Integer.MAX_VALUE)
          .unit("bytes")
          .doc(
              "The duplicates' jute.maxbuffer in bytes ("
                  + RepeaterSettings.MIN_JUTE_MAX_BUFFER_BYTES
                  + ".."
                  + Integer.MAX_VALUE
                  + "; ZooKeeper's default unless the servers set it): a write too large for one "
                  + "ZooKeeper request of this size is refused with ERROR TOO_LARGE before it is sequenced.")
          .build();

  public static final Setting<BatchingPolicy> BATCHING =
      Setting.of("batching", "batching policy", BatchingPolicy::parse)
          .defaultValue(BatchingPolicy.adaptive())
          .defaultText("adaptive")
          .unit("us")
          .doc(
              "How long sequenced writes are held before they go to the duplicates, each of which applies the writes "
                  + "it receives together as one ZooKeeper multi: 'adaptive' (the interval follows the write latency, "
                  + "0.."
                  + BatchingPolicy.DEFAULT_ADAPTIVE_MAX_INTERVAL_MICROS
                  + " us), 'none' (flush at once), or a "
                  + "fixed interval in microseconds (0.."
                  + BatchingPolicy.MAX_INTERVAL_MICROS
                  + ").")
          .build();

  public static final Setting<Boolean> AUTO_REJOIN =
      Setting.bool("autoRejoin")
          .defaultValue(RepeaterSettings.DEFAULT_AUTO_REJOIN)
          .doc(
              "Whether a duplicate that comes back needing writes the log no longer holds (or whose plugin reports "
                  + "itself fenced) rejoins by state transfer by itself; 'false' leaves it fenced until an operator "
                  + "rejoins it (JMX console or Repeater.rejoin).")
          .build();

  /** The plugins' ZooKeeper digest user; goes with {@link #ZOOKEEPER_PASSWORD_FILE}. */
  public static final Setting<String> ZOOKEEPER_USER =
      Setting.text("zookeeper.user")
          .defaultText("(none)")
          .doc(
              "The plugins' ZooKeeper digest user (their "
                  + "zoolander.zookeeper.user): with ZooKeeper ACLs on, only it may write Zoolander's znodes, and the repeater "
                  + "claims its epoch in every state znode at start. Goes with "
                  + "zookeeper.passwordFile"
                  + ".")
          .build();

  public static final Setting<String> ZOOKEEPER_PASSWORD_FILE =
      Setting.text("zookeeper.passwordFile")
          .defaultText("(none)")
          .doc("File holding that user's password (the plugins' zoolander.zookeeper.passwordFile).")
          .build();

  /** Who may write: comma-separated principals. */
  public static final Setting<String> AUTH_ALLOW_CLIENT =
      SecurityKeys.allowList(
          SecurityKeys.AUTH_ALLOW_CLIENT,
          "(anyone may write)",
          "Comma-separated principals allowed to "
              + "write: when set, a client must authenticate (shared secret from "
              + SecurityKeys.AUTH_SECRETS_FILE
              + ", or its TLS certificate's CN) before its WRITEs are sequenced.");

  /** The security settings: TLS, who may write, the credential shown to plugins. */
  public static final List<Setting<?>> SECURITY = security();

  /** Every key of the file, in the order the help lists them. */
  public static final SettingSet ALL = all();

  private static List<Setting<?>> security() {
    List<Setting<?>> all = new ArrayList<>(SecurityKeys.TLS);
    all.add(SecurityKeys.SECRETS_FILE);
    all.add(AUTH_ALLOW_CLIENT);
    all.addAll(SecurityKeys.CREDENTIAL);
    all.add(ZOOKEEPER_USER);
    all.add(ZOOKEEPER_PASSWORD_FILE);
    return List.copyOf(all);
  }

  private static SettingSet all() {
    List<Setting<?>> all =
        new ArrayList<>(
            List.of(
                DUPLICATE,
                CLIENT_HOST,
                CLIENT_PORT,
                BASE_PATH,
                LOG_CAPACITY,
                LOG_CAPACITY_BYTES,
                SESSION_TIMEOUT_MS,
                START_TIMEOUT_MS,
                EPOCH,
                CLIENT_IO_THREADS,
                HANDSHAKE_TIMEOUT_MS,
                FRAME_IDLE_TIMEOUT_MS,
                FRAME_TIMEOUT_MS,
                MAX_CONNECTIONS,
                JUTE_MAX_BUFFER,
                BATCHING,
                AUTO_REJOIN,
                MISSING_DUPLICATE_GRACE_MS,
                EPOCH_CHECK_MS,
                FAILOVER,
                FAILOVER_ADVERTISED_HOST,
                FAILOVER_HEARTBEAT_PORT,
                FAILOVER_HEARTBEAT_INTERVAL_MS,
                FAILOVER_HEARTBEAT_TIMEOUT_MS));
    all.addAll(AdmissionKeys.ALL);
    all.addAll(ControllerKeys.ALL);
    all.addAll(SECURITY);
    return SettingSet.of("", all);
  }

  /**
   * The duplicate id of a {@code duplicate.<id>} key.
   *
   * @throws SettingException naming the key if the id is not an integer {@code >= 0}
   */
  public static int duplicateId(String key) {
    String id = key.substring(DUPLICATE_PREFIX.length());
    try {
      int parsed = Integer.parseInt(id);
      if (parsed >= 0) {
        return parsed;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw SettingException.invalid(
        key,
        "the duplicate id '"
            + id
            + "' is not an integer >= 0 (write "
            + DUPLICATE_PREFIX
            + "<id>=<connect string>, <id> as the ensemble's zoolander.duplicateId)");
  }

  private static String connectString(String value) {
    String problem;
    try {
      List<InetSocketAddress> servers =
          new ArrayList<>(new ConnectStringParser(value).getServerAddresses());
      if (servers.isEmpty() || servers.stream().anyMatch(a -> a.getHostString().isBlank())) {
        problem = "a server has no host";
      } else {
        return value;
      }
    } catch (IllegalArgumentException e) { // NumberFormatException included
      problem = e.getMessage();
    }
    throw new IllegalArgumentException(
        "not a ZooKeeper connect string (host:port,host:port,...): '"
            + value
            + "' ("
            + problem
            + ")");
  }
}
