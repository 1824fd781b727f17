package io.zoolander.server.cli;

import io.zoolander.server.internal.security.LinkSecurity;
import io.zoolander.server.internal.security.SecurityKeys;
import io.zoolander.server.repeater.AdmissionSettings;
import io.zoolander.server.repeater.BatchingPolicy;
import io.zoolander.server.repeater.Repeater;
import io.zoolander.server.repeater.RepeaterSettings;
import io.zoolander.server.security.PluginSecurity;
import io.zoolander.wire.AccessControl;
import io.zoolander.wire.Credential;
import io.zoolander.wire.Role;
import io.zoolander.wire.TlsSettings;
import io.zoolander.wire.Znodes;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.MalformedInputException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.stream.Collectors;
import org.apache.zookeeper.client.ConnectStringParser;

/**
 * The settings of {@code zoolander repeater}, read from a properties file and validated into a
 * {@link Repeater.Builder}. One {@code key=value} per line; blank lines and lines starting with
 * {@code #} or {@code !} are skipped; keys are case-sensitive, and a key given twice or unknown is
 * an error (so that a typo cannot silently leave a default in force). Values are trimmed; no
 * escapes or continuation lines.
 *
 * <p>{@link #SETTINGS} lists every key with its default and meaning; {@code zoolander repeater
 * --help} prints it. Every problem is a {@link CliException} with one line naming the file, the
 * line and the key.
 *
 * @param clientHost address the client listener binds
 * @param clientPort port the client listener binds, 0 for a free one
 * @param duplicates connect string of every duplicate's ensemble, by duplicate id, in file order
 * @param basePath base path of Zoolander's znodes
 * @param logCapacity retransmission log capacity, in messages
 * @param sessionTimeoutMs ZooKeeper session timeout of the repeater's sessions
 * @param startTimeoutMs bound on reading every duplicate's state at start
 * @param epoch a fixed epoch, empty for the highest found plus one
 * @param clientIoThreads threads reading client connections
 * @param juteMaxBuffer the duplicates' {@code jute.maxbuffer}, in bytes
 * @param batching how long sequenced writes are held before they are flushed to the duplicates
 * @param autoRejoin whether a duplicate that comes back needing writes the log no longer holds
 *     rejoins by state transfer by itself
 * @param security the security entries ({@code tls.*}, {@code auth.*}, {@code zookeeper.*}) as
 *     written, validated; empty when off
 * @param admission admission control from the {@code admission.*} entries ({@link AdmissionKeys});
 *     null when off
 */
record RepeaterConfig(
    String clientHost,
    int clientPort,
    Map<Integer, String> duplicates,
    String basePath,
    int logCapacity,
    int sessionTimeoutMs,
    long startTimeoutMs,
    OptionalLong epoch,
    int clientIoThreads,
    int juteMaxBuffer,
    BatchingPolicy batching,
    boolean autoRejoin,
    Map<String, String> security,
    AdmissionSettings admission) {

  static final String CLIENT_HOST = "clientHost";
  static final String CLIENT_PORT = "clientPort";
  static final String DUPLICATE_PREFIX = "duplicate.";
  static final String BASE_PATH = "basePath";
  static final String LOG_CAPACITY = "logCapacity";
  static final String SESSION_TIMEOUT_MS = "sessionTimeoutMs";
  static final String START_TIMEOUT_MS = "startTimeoutMs";
  static final String EPOCH = "epoch";
  static final String CLIENT_IO_THREADS = "clientIoThreads";
  static final String JUTE_MAX_BUFFER = "juteMaxBuffer";
  static final String BATCHING = "batching";
  static final String AUTO_REJOIN = "autoRejoin";
  static final String ZOOKEEPER_USER = "zookeeper.user";
  static final String ZOOKEEPER_PASSWORD_FILE = "zookeeper.passwordFile";

  /** Largest accepted {@code sessionTimeoutMs} and {@code startTimeoutMs}: one hour. */
  static final long MAX_TIMEOUT_MS = 3_600_000;

  /** Most client I/O threads, as {@link Repeater.Builder#clientIoThreads(int)} accepts. */
  static final int MAX_CLIENT_IO_THREADS = 64;

  /**
   * One documented key: its name as written in the file, its default as text, and what it means.
   */
  record Setting(String key, String defaultValue, String meaning) {}

  /** Every key, in the order the help lists them. */
  static final List<Setting> SETTINGS =
      withSecurity(
          List.of(
              new Setting(
                  DUPLICATE_PREFIX + "<id>",
                  "<connect string> (required, one line per duplicate)",
                  "ZooKeeper connect string of duplicate <id>'s ensemble, e.g. duplicate.1=zk-a1:2181,zk-a2:2181,"
                      + "zk-a3:2181. <id> is that ensemble's zoolander.duplicateId (an integer >= 0). The repeater finds "
                      + "the duplicate's plugin through its endpoint znode there, and follows leader changes."),
              new Setting(
                  CLIENT_HOST,
                  RepeaterSettings.DEFAULT_CLIENT_HOST,
                  "Address the client listener binds; 0.0.0.0 for every interface. Clients are configured with an "
                      + "address that reaches it."),
              new Setting(
                  CLIENT_PORT,
                  Integer.toString(RepeaterSettings.DEFAULT_CLIENT_PORT),
                  "Port clients connect to (0..65535); 0 picks a free port, printed at start. Give a deployment a fixed "
                      + "port: clients are configured with it."),
              new Setting(
                  BASE_PATH,
                  RepeaterSettings.DEFAULT_BASE_PATH,
                  "Base path of Zoolander's znodes in every duplicate; equal to the servers' zoolander.basePath."),
              new Setting(
                  LOG_CAPACITY,
                  Integer.toString(RepeaterSettings.DEFAULT_LOG_CAPACITY_MESSAGES),
                  "Retransmission log capacity in messages (1.."
                      + RepeaterSettings.MAX_LOG_CAPACITY_MESSAGES
                      + "): how "
                      + "far a duplicate may fall behind (or stay down) and still catch up from the log; beyond it the "
                      + "duplicate is fenced."),
              new Setting(
                  SESSION_TIMEOUT_MS,
                  Integer.toString(RepeaterSettings.DEFAULT_SESSION_TIMEOUT_MILLIS),
                  "ZooKeeper session timeout of the repeater's sessions with the ensembles, in ms (1.."
                      + MAX_TIMEOUT_MS
                      + "); the servers clamp it to 2..20 ticks."),
              new Setting(
                  START_TIMEOUT_MS,
                  Long.toString(RepeaterSettings.DEFAULT_START_TIMEOUT_MILLIS),
                  "How long start-up waits to read every duplicate's bookkeeping state, in ms (1.."
                      + MAX_TIMEOUT_MS
                      + "). Every duplicate must answer: a missed one could hold a higher epoch or seq."),
              new Setting(
                  EPOCH,
                  "(the highest epoch found plus one)",
                  "A fixed epoch (>= 1) instead; start-up fails unless it is above every duplicate's. Each repeater start "
                      + "takes a new, higher epoch, which fences off any older repeater."),
              new Setting(
                  CLIENT_IO_THREADS,
                  Integer.toString(RepeaterSettings.DEFAULT_CLIENT_IO_THREADS),
                  "Threads reading client connections (1.."
                      + MAX_CLIENT_IO_THREADS
                      + "); sequencing runs on one more, "
                      + "dedicated thread."),
              new Setting(
                  JUTE_MAX_BUFFER,
                  Integer.toString(RepeaterSettings.DEFAULT_JUTE_MAX_BUFFER_BYTES),
                  "The duplicates' jute.maxbuffer in bytes ("
                      + RepeaterSettings.MIN_JUTE_MAX_BUFFER_BYTES
                      + ".."
                      + Integer.MAX_VALUE
                      + "; ZooKeeper's default unless the servers set it): a write too large for one "
                      + "ZooKeeper request of this size is refused with ERROR TOO_LARGE before it is sequenced."),
              new Setting(
                  BATCHING,
                  "adaptive",
                  "How long sequenced writes are held before they go to the duplicates, each of which applies the writes "
                      + "it receives together as one ZooKeeper multi: 'adaptive' (the interval follows the write latency, "
                      + "0.."
                      + BatchingPolicy.DEFAULT_ADAPTIVE_MAX_INTERVAL_MICROS
                      + " us), 'none' (flush at once), or a "
                      + "fixed interval in microseconds (0.."
                      + BatchingPolicy.MAX_INTERVAL_MICROS
                      + ")."),
              new Setting(
                  AUTO_REJOIN,
                  Boolean.toString(RepeaterSettings.DEFAULT_AUTO_REJOIN),
                  "Whether a duplicate that comes back needing writes the log no longer holds (or whose plugin reports "
                      + "itself fenced) rejoins by state transfer by itself; 'false' leaves it fenced until an operator "
                      + "rejoins it (JMX console or Repeater.rejoin).")));

  /**
   * {@code base}, then the security settings: TLS, who may write, the credential shown to plugins.
   */
  private static List<Setting> withSecurity(List<Setting> base) {
    List<Setting> all = new ArrayList<>(base);
    all.addAll(AdmissionKeys.SETTINGS);
    SecurityKeys.TLS.forEach(k -> all.add(setting(k)));
    all.add(setting(SecurityKeys.SECRETS_FILE));
    all.add(
        new Setting(
            SecurityKeys.AUTH_ALLOW_CLIENT,
            "(anyone may write)",
            "Comma-separated principals allowed to "
                + "write: when set, a client must authenticate (shared secret from "
                + SecurityKeys.AUTH_SECRETS_FILE
                + ", or its TLS certificate's CN) before its WRITEs are sequenced."));
    SecurityKeys.CREDENTIAL.forEach(k -> all.add(setting(k)));
    all.add(
        new Setting(
            ZOOKEEPER_USER,
            "(none)",
            "The plugins' ZooKeeper digest user (their "
                + "zoolander.zookeeper.user): with ZooKeeper ACLs on, only it may write Zoolander's znodes, and the repeater "
                + "claims its epoch in every state znode at start. Goes with "
                + ZOOKEEPER_PASSWORD_FILE
                + "."));
    all.add(
        new Setting(
            ZOOKEEPER_PASSWORD_FILE,
            "(none)",
            "File holding that user's password (the plugins' "
                + "zoolander.zookeeper.passwordFile)."));
    return List.copyOf(all);
  }

  private static Setting setting(SecurityKeys.Key key) {
    return new Setting(key.key(), key.defaultValue(), key.meaning());
  }

  RepeaterConfig {
    duplicates = Collections.unmodifiableMap(new LinkedHashMap<>(duplicates));
    security = Map.copyOf(security);
  }

  /**
   * Reads and validates a repeater properties file.
   *
   * @throws CliException with one line if the file cannot be read or any line is invalid
   */
  static RepeaterConfig read(Path file) {
    List<String> lines;
    try {
      lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      throw new CliException("repeater config " + file + " does not exist");
    } catch (MalformedInputException e) {
      throw new CliException("repeater config " + file + " is not UTF-8 text");
    } catch (IOException e) {
      throw new CliException("cannot read repeater config " + file + ": " + e.getMessage());
    }
    return parse(lines, file.toString());
  }

  /**
   * Validates the lines of a repeater properties file.
   *
   * @param source the file name, for messages
   * @throws CliException with one line naming the first invalid line and its key
   */
  static RepeaterConfig parse(List<String> lines, String source) {
    Map<String, Integer> lineOf = new HashMap<>();
    Map<String, String> values = new LinkedHashMap<>();
    for (int i = 0; i < lines.size(); i++) {
      int number = i + 1;
      String line = lines.get(i).strip();
      if (line.isEmpty() || line.startsWith("#") || line.startsWith("!")) {
        continue;
      }
      int eq = line.indexOf('=');
      if (eq < 0) {
        throw new CliException(where(source, number) + "expected key=value, got '" + line + "'");
      }
      String key = line.substring(0, eq).strip();
      String value = line.substring(eq + 1).strip();
      if (key.isEmpty()) {
        throw new CliException(
            where(source, number) + "a line starts with '=': the key is missing");
      }
      if (!isKnown(key)) {
        throw new CliException(
            where(source, number) + "unknown key '" + key + "' (known: " + knownKeys() + ")");
      }
      Integer earlier = lineOf.putIfAbsent(key, number);
      if (earlier != null) {
        throw new CliException(where(source, number) + key + " is already set on line " + earlier);
      }
      if (value.isEmpty()) {
        throw new CliException(where(source, number) + key + " has no value");
      }
      values.put(key, value);
    }
    Parser p = new Parser(source, lineOf, values);
    String clientHost = values.getOrDefault(CLIENT_HOST, RepeaterSettings.DEFAULT_CLIENT_HOST);
    int clientPort = (int) p.integer(CLIENT_PORT, RepeaterSettings.DEFAULT_CLIENT_PORT, 0, 65_535);
    String basePath = values.getOrDefault(BASE_PATH, RepeaterSettings.DEFAULT_BASE_PATH);
    try {
      new Znodes(basePath);
    } catch (IllegalArgumentException e) {
      throw p.error(BASE_PATH, "must be an absolute path like /zoolander, was '" + basePath + "'");
    }
    int logCapacity =
        (int)
            p.integer(
                LOG_CAPACITY,
                RepeaterSettings.DEFAULT_LOG_CAPACITY_MESSAGES,
                1,
                RepeaterSettings.MAX_LOG_CAPACITY_MESSAGES);
    int sessionTimeoutMs =
        (int)
            p.integer(
                SESSION_TIMEOUT_MS,
                RepeaterSettings.DEFAULT_SESSION_TIMEOUT_MILLIS,
                1,
                MAX_TIMEOUT_MS);
    long startTimeoutMs =
        p.integer(
            START_TIMEOUT_MS, RepeaterSettings.DEFAULT_START_TIMEOUT_MILLIS, 1, MAX_TIMEOUT_MS);
    OptionalLong epoch =
        values.containsKey(EPOCH)
            ? OptionalLong.of(p.integer(EPOCH, 0, 1, Long.MAX_VALUE))
            : OptionalLong.empty();
    int clientIoThreads =
        (int)
            p.integer(
                CLIENT_IO_THREADS,
                RepeaterSettings.DEFAULT_CLIENT_IO_THREADS,
                1,
                MAX_CLIENT_IO_THREADS);
    int juteMaxBuffer =
        (int)
            p.integer(
                JUTE_MAX_BUFFER,
                RepeaterSettings.DEFAULT_JUTE_MAX_BUFFER_BYTES,
                RepeaterSettings.MIN_JUTE_MAX_BUFFER_BYTES,
                Integer.MAX_VALUE);
    BatchingPolicy batching = BatchingPolicy.adaptive();
    if (values.containsKey(BATCHING)) {
      try {
        batching = BatchingPolicy.parse(values.get(BATCHING));
      } catch (IllegalArgumentException e) {
        throw p.error(BATCHING, e.getMessage());
      }
    }
    boolean autoRejoin = RepeaterSettings.DEFAULT_AUTO_REJOIN;
    if (values.containsKey(AUTO_REJOIN)) {
      String value = values.get(AUTO_REJOIN);
      if (!value.equals("true") && !value.equals("false")) {
        throw p.error(AUTO_REJOIN, "must be true or false, was '" + value + "'");
      }
      autoRejoin = Boolean.parseBoolean(value);
    }
    Map<Integer, String> duplicates = new LinkedHashMap<>();
    for (Map.Entry<String, String> e : values.entrySet()) {
      if (e.getKey().startsWith(DUPLICATE_PREFIX)) {
        int id = p.duplicateId(e.getKey());
        if (duplicates.containsKey(id)) {
          throw p.error(
              e.getKey(),
              "duplicate "
                  + id
                  + " is already configured (ids are integers: "
                  + DUPLICATE_PREFIX
                  + id
                  + " and "
                  + e.getKey()
                  + " are the same)");
        }
        duplicates.put(id, p.connectString(e.getKey(), e.getValue()));
      }
    }
    if (duplicates.isEmpty()) {
      throw new CliException(
          source
              + ": no "
              + DUPLICATE_PREFIX
              + "<id>=<connect string> line: a repeater needs at"
              + " least one duplicate");
    }
    Map<String, String> security = new LinkedHashMap<>();
    values.forEach(
        (key, value) -> {
          if (key.startsWith("tls.") || key.startsWith("auth.") || key.startsWith("zookeeper.")) {
            security.put(key, value);
          }
        });
    try {
      security(security);
    } catch (IllegalArgumentException e) {
      throw new CliException(source + ": " + e.getMessage());
    }
    AdmissionSettings admission = AdmissionKeys.parse(values, p::error);
    return new RepeaterConfig(
        clientHost,
        clientPort,
        duplicates,
        basePath,
        logCapacity,
        sessionTimeoutMs,
        startTimeoutMs,
        epoch,
        clientIoThreads,
        juteMaxBuffer,
        batching,
        autoRejoin,
        security,
        admission);
  }

  /**
   * TLS, who may write and the repeater's credential, from the security entries.
   *
   * @throws IllegalArgumentException naming every invalid entry
   */
  private static LinkSecurity security(Map<String, String> values) {
    List<String> errors = new ArrayList<>();
    TlsSettings tls = SecurityKeys.tls(values, "", errors);
    AccessControl access =
        SecurityKeys.access(
            values, "", Map.of(SecurityKeys.AUTH_ALLOW_CLIENT, Role.CLIENT), errors);
    Credential credential = SecurityKeys.credential(values, "", tls, errors);
    if (tls != null && !tls.hasKey()) {
      errors.add(
          "TLS needs the repeater's key and certificate ("
              + SecurityKeys.TLS_CERTIFICATE
              + " or "
              + SecurityKeys.TLS_KEY_STORE
              + ")");
    }
    zooKeeperIdentity(values, errors);
    if (!errors.isEmpty()) {
      throw new IllegalArgumentException(String.join("; ", errors));
    }
    return new LinkSecurity(tls, access, credential);
  }

  /** Checks the ZooKeeper identity entries: both or neither, a readable password. */
  private static void zooKeeperIdentity(Map<String, String> values, List<String> errors) {
    String user = values.get(ZOOKEEPER_USER);
    String passwordFile = values.get(ZOOKEEPER_PASSWORD_FILE);
    if ((user == null) != (passwordFile == null)) {
      errors.add(ZOOKEEPER_USER + " and " + ZOOKEEPER_PASSWORD_FILE + " go together");
    } else if (user != null) {
      try {
        java.util.Arrays.fill(PluginSecurity.digestAuth(user, Path.of(passwordFile)), (byte) 0);
      } catch (IllegalArgumentException e) {
        errors.add(ZOOKEEPER_PASSWORD_FILE + ": " + e.getMessage());
      }
    }
  }

  /** A repeater builder with these settings (no listener). */
  Repeater.Builder toBuilder() {
    Repeater.Builder builder =
        Repeater.builder()
            .clientListen(clientHost, clientPort)
            .basePath(basePath)
            .logCapacity(logCapacity)
            .sessionTimeout(Duration.ofMillis(sessionTimeoutMs))
            .startTimeout(Duration.ofMillis(startTimeoutMs))
            .clientIoThreads(clientIoThreads)
            .juteMaxBuffer(juteMaxBuffer)
            .batching(batching)
            .autoRejoin(autoRejoin);
    epoch.ifPresent(builder::epoch);
    duplicates.forEach(builder::duplicate);
    if (admission != null) {
      builder.admission(admission);
    }
    LinkSecurity link = security(security);
    if (link.tls() != null) {
      builder.tls(link.tls());
    }
    builder.access(link.access());
    if (link.credential() != null) {
      builder.credential(link.credential());
    }
    if (security.containsKey(ZOOKEEPER_USER)) {
      builder.zooKeeperIdentity(
          security.get(ZOOKEEPER_USER), Path.of(security.get(ZOOKEEPER_PASSWORD_FILE)));
    }
    return builder;
  }

  private static boolean isKnown(String key) {
    if (key.startsWith(DUPLICATE_PREFIX)) {
      return true; // the id is checked with the value
    }
    return SETTINGS.stream().anyMatch(s -> s.key().equals(key));
  }

  private static String knownKeys() {
    return SETTINGS.stream()
            .map(Setting::key)
            .filter(
                k ->
                    !k.startsWith("tls.")
                        && !k.startsWith("auth.")
                        && !k.startsWith("zookeeper.")
                        && !k.startsWith(AdmissionKeys.PREFIX))
            .collect(Collectors.joining(", "))
        + ", and the security keys tls.*, auth.*, zookeeper.* and the admission "
        + "control keys admission.* (--help lists them)";
  }

  private static String where(String source, int line) {
    return source + " line " + line + ": ";
  }

  /**
   * Turns values into settings, every failure a one-line {@link CliException} naming the key and
   * its line.
   */
  private record Parser(String source, Map<String, Integer> lineOf, Map<String, String> values) {

    long integer(String key, long defaultValue, long min, long max) {
      String value = values.get(key);
      if (value == null) {
        return defaultValue;
      }
      long parsed;
      try {
        parsed = Long.parseLong(value);
      } catch (NumberFormatException e) {
        throw error(key, "not an integer: '" + value + "'");
      }
      if (parsed < min || parsed > max) {
        throw error(key, "must be in " + min + ".." + max + ", was " + parsed);
      }
      return parsed;
    }

    int duplicateId(String key) {
      String id = key.substring(DUPLICATE_PREFIX.length());
      try {
        int parsed = Integer.parseInt(id);
        if (parsed >= 0) {
          return parsed;
        }
      } catch (NumberFormatException e) {
        // reported below
      }
      throw error(
          key,
          "the duplicate id '"
              + id
              + "' is not an integer >= 0 (write "
              + DUPLICATE_PREFIX
              + "<id>=<connect string>, <id> as the ensemble's zoolander.duplicateId)");
    }

    String connectString(String key, String value) {
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
      throw error(
          key,
          "not a ZooKeeper connect string (host:port,host:port,...): '"
              + value
              + "' ("
              + problem
              + ")");
    }

    CliException error(String key, String problem) {
      return new CliException(where(source, lineOf.get(key)) + key + ": " + problem);
    }
  }
}
