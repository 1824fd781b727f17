package io.zoolander.server.cli;

import io.zoolander.server.internal.security.ConnectionLimits;
import io.zoolander.server.internal.security.LinkSecurity;
import io.zoolander.server.internal.security.SecurityKeys;
import io.zoolander.server.repeater.AdmissionKeys;
import io.zoolander.server.repeater.AdmissionSettings;
import io.zoolander.server.repeater.BatchingPolicy;
import io.zoolander.server.repeater.ControllerKeys;
import io.zoolander.server.repeater.ControllerSettings;
import io.zoolander.server.repeater.FailoverSettings;
import io.zoolander.server.repeater.Repeater;
import io.zoolander.server.repeater.RepeaterKeys;
import io.zoolander.server.security.PluginSecurity;
import io.zoolander.server.settings.Setting;
import io.zoolander.server.settings.SettingException;
import io.zoolander.wire.AccessControl;
import io.zoolander.wire.Credential;
import io.zoolander.wire.Role;
import io.zoolander.wire.TlsSettings;
import java.io.IOException;
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

/**
 * The settings of {@code zoolander repeater}, read from a properties file and validated into a
 * {@link Repeater.Builder}. One {@code key=value} per line; blank lines and lines starting with
 * {@code #} or {@code !} are skipped; keys are case-sensitive, and a key given twice or unknown is
 * an error (so that a typo cannot silently leave a default in force). Values are trimmed; no
 * escapes or continuation lines.
 *
 * <p>The keys are the repeater's descriptors, {@link RepeaterKeys#ALL} (with {@link AdmissionKeys},
 * {@link ControllerKeys} and the security keys): this class only reads the file, finds each key's
 * line and builds; {@code zoolander repeater --help} prints the descriptors. Every problem is a
 * {@link CliException} with one line naming the file, the line and the key; for an unknown key its
 * {@linkplain CliException#hint() hint} names the nearest known key.
 *
 * @param clientHost address the client listener binds
 * @param clientPort port the client listener binds, 0 for a free one
 * @param duplicates connect string of every duplicate's ensemble, by duplicate id, in file order
 * @param basePath base path of Zoolander's znodes
 * @param logCapacity retransmission log capacity, in messages
 * @param logCapacityBytes retransmission log capacity, in bytes
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
 * @param connectionLimits what the client port allows a connection ({@code handshakeTimeoutMs},
 *     {@code frameIdleTimeoutMs}, {@code maxConnections})
 * @param missingDuplicateGraceMs how long a takeover still waits for the other duplicates once a
 *     majority has answered
 * @param epochCheckMs how often the state znodes are read for a newer epoch, 0 for never
 * @param failover automatic failover from the {@code failover*} entries; null when off (the
 *     repeater takes over at once)
 * @param controller the controller that follows the load, from the {@code controller.*} entries
 *     ({@link ControllerKeys}); null when off
 */
record RepeaterConfig(
    String clientHost,
    int clientPort,
    Map<Integer, String> duplicates,
    String basePath,
    int logCapacity,
    long logCapacityBytes,
    int sessionTimeoutMs,
    long startTimeoutMs,
    OptionalLong epoch,
    int clientIoThreads,
    int juteMaxBuffer,
    BatchingPolicy batching,
    boolean autoRejoin,
    Map<String, String> security,
    AdmissionSettings admission,
    ConnectionLimits connectionLimits,
    long missingDuplicateGraceMs,
    long epochCheckMs,
    FailoverSettings failover,
    ControllerSettings controller) {

  private static final String FAILOVER_PREFIX = RepeaterKeys.FAILOVER.key() + ".";

  static final String ZOOKEEPER_USER = RepeaterKeys.ZOOKEEPER_USER.key();
  static final String ZOOKEEPER_PASSWORD_FILE = RepeaterKeys.ZOOKEEPER_PASSWORD_FILE.key();

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
      if (!RepeaterKeys.ALL.isKnown(key)) {
        throw new CliException(
            where(source, number) + "unknown key '" + key + "' (known: " + knownKeys() + ")",
            RepeaterKeys.ALL.nearestKey(key).map(k -> "did you mean " + k + "?").orElse(null));
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
    String clientHost = p.get(RepeaterKeys.CLIENT_HOST);
    int clientPort = p.get(RepeaterKeys.CLIENT_PORT).intValue();
    String basePath = p.get(RepeaterKeys.BASE_PATH);
    int logCapacity = p.get(RepeaterKeys.LOG_CAPACITY).intValue();
    long logCapacityBytes = p.get(RepeaterKeys.LOG_CAPACITY_BYTES);
    int sessionTimeoutMs = p.get(RepeaterKeys.SESSION_TIMEOUT_MS).intValue();
    long startTimeoutMs = p.get(RepeaterKeys.START_TIMEOUT_MS);
    Long fixedEpoch = p.get(RepeaterKeys.EPOCH);
    OptionalLong epoch = fixedEpoch == null ? OptionalLong.empty() : OptionalLong.of(fixedEpoch);
    int clientIoThreads = p.get(RepeaterKeys.CLIENT_IO_THREADS).intValue();
    ConnectionLimits connectionLimits =
        new ConnectionLimits(
            p.get(RepeaterKeys.HANDSHAKE_TIMEOUT_MS),
            p.get(RepeaterKeys.FRAME_IDLE_TIMEOUT_MS),
            p.get(RepeaterKeys.FRAME_TIMEOUT_MS),
            p.get(RepeaterKeys.MAX_CONNECTIONS).intValue());
    int juteMaxBuffer = p.get(RepeaterKeys.JUTE_MAX_BUFFER).intValue();
    BatchingPolicy batching = p.get(RepeaterKeys.BATCHING);
    boolean autoRejoin = p.get(RepeaterKeys.AUTO_REJOIN);
    long missingDuplicateGraceMs = p.get(RepeaterKeys.MISSING_DUPLICATE_GRACE_MS);
    long epochCheckMs = p.get(RepeaterKeys.EPOCH_CHECK_MS);
    Map<Integer, String> duplicates = new LinkedHashMap<>();
    for (Map.Entry<String, String> e : values.entrySet()) {
      if (RepeaterKeys.DUPLICATE.matches(e.getKey())) {
        int id = p.duplicateId(e.getKey());
        if (duplicates.containsKey(id)) {
          throw p.error(
              e.getKey(),
              "duplicate "
                  + id
                  + " is already configured (ids are integers: "
                  + RepeaterKeys.DUPLICATE_PREFIX
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
              + RepeaterKeys.DUPLICATE_PREFIX
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
    AdmissionSettings admission = p.admission();
    FailoverSettings failoverSettings = p.failover(); // validated even when off: no silent typo
    FailoverSettings failover = p.get(RepeaterKeys.FAILOVER) ? failoverSettings : null;
    ControllerSettings controller = p.controller(duplicates, admission != null);
    return new RepeaterConfig(
        clientHost,
        clientPort,
        duplicates,
        basePath,
        logCapacity,
        logCapacityBytes,
        sessionTimeoutMs,
        startTimeoutMs,
        epoch,
        clientIoThreads,
        juteMaxBuffer,
        batching,
        autoRejoin,
        security,
        admission,
        connectionLimits,
        missingDuplicateGraceMs,
        epochCheckMs,
        failover,
        controller);
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
            .logCapacityBytes(logCapacityBytes)
            .sessionTimeout(Duration.ofMillis(sessionTimeoutMs))
            .startTimeout(Duration.ofMillis(startTimeoutMs))
            .clientIoThreads(clientIoThreads)
            .clientConnectionLimits(
                Duration.ofMillis(connectionLimits.handshakeTimeoutMs()),
                Duration.ofMillis(connectionLimits.frameIdleTimeoutMs()),
                Duration.ofMillis(connectionLimits.frameTimeoutMs()),
                connectionLimits.maxConnections())
            .juteMaxBuffer(juteMaxBuffer)
            .batching(batching)
            .autoRejoin(autoRejoin)
            .missingDuplicateGrace(Duration.ofMillis(missingDuplicateGraceMs))
            .epochCheckInterval(Duration.ofMillis(epochCheckMs));
    epoch.ifPresent(builder::epoch);
    duplicates.forEach(builder::duplicate);
    if (admission != null) {
      builder.admission(admission);
    }
    if (controller != null) {
      builder.controller(controller);
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

  /** The keys an unknown-key message lists: the plain ones, then the families by prefix. */
  private static String knownKeys() {
    return RepeaterKeys.ALL.settings().stream()
            .map(Setting::key)
            .filter(
                k ->
                    !k.startsWith("tls.")
                        && !k.startsWith("auth.")
                        && !k.startsWith("zookeeper.")
                        && !k.startsWith(AdmissionKeys.PREFIX)
                        && !k.startsWith(ControllerKeys.PREFIX)
                        && !k.startsWith(FAILOVER_PREFIX))
            .collect(Collectors.joining(", "))
        + ", and the failover keys failover.*, the security keys tls.*, auth.*, zookeeper.*, the"
        + " admission control keys admission.* and the load controller keys controller.* (--help"
        + " lists them)";
  }

  private static String where(String source, int line) {
    return source + " line " + line + ": ";
  }

  /**
   * Turns values into settings, every failure a one-line {@link CliException} naming the key and
   * its line.
   */
  private record Parser(String source, Map<String, Integer> lineOf, Map<String, String> values) {

    /** The value of a setting (its default when absent), checked by its descriptor. */
    <T> T get(Setting<T> setting) {
      try {
        return setting.valueIn(values);
      } catch (SettingException e) {
        throw error(e.key(), e.problem());
      }
    }

    /** The {@code failover.*} entries, validated. */
    FailoverSettings failover() {
      long interval = get(RepeaterKeys.FAILOVER_HEARTBEAT_INTERVAL_MS);
      long timeout = get(RepeaterKeys.FAILOVER_HEARTBEAT_TIMEOUT_MS);
      if (timeout < 2 * interval) {
        String key =
            lineOf.containsKey(RepeaterKeys.FAILOVER_HEARTBEAT_TIMEOUT_MS.key())
                ? RepeaterKeys.FAILOVER_HEARTBEAT_TIMEOUT_MS.key()
                : RepeaterKeys.FAILOVER_HEARTBEAT_INTERVAL_MS.key();
        throw error(
            key,
            RepeaterKeys.FAILOVER_HEARTBEAT_TIMEOUT_MS.key()
                + " must be at least twice "
                + RepeaterKeys.FAILOVER_HEARTBEAT_INTERVAL_MS.key()
                + " ("
                + 2 * interval
                + "), was "
                + timeout);
      }
      FailoverSettings.Builder failover =
          FailoverSettings.builder()
              .heartbeatPort(get(RepeaterKeys.FAILOVER_HEARTBEAT_PORT).intValue())
              .heartbeatIntervalMillis(interval)
              .heartbeatTimeoutMillis(timeout);
      String advertised = get(RepeaterKeys.FAILOVER_ADVERTISED_HOST);
      if (advertised != null) {
        failover.advertisedHost(advertised);
      }
      try {
        return failover.build();
      } catch (IllegalArgumentException e) {
        throw error(RepeaterKeys.FAILOVER_ADVERTISED_HOST.key(), e.getMessage());
      }
    }

    int duplicateId(String key) {
      try {
        return RepeaterKeys.duplicateId(key);
      } catch (SettingException e) {
        throw error(e.key(), e.problem());
      }
    }

    String connectString(String key, String value) {
      try {
        return RepeaterKeys.DUPLICATE.parse(key, value);
      } catch (SettingException e) {
        throw error(e.key(), e.problem());
      }
    }

    AdmissionSettings admission() {
      try {
        return AdmissionKeys.parse(values);
      } catch (SettingException e) {
        throw error(e.key(), e.problem());
      }
    }

    /**
     * The {@code controller.*} entries, validated, and checked against the rest: not with admission
     * control, a spare that is a configured duplicate at the same connect string, a budget of at
     * least the minimum (what {@link Repeater.Builder#controller} would refuse, named by line).
     */
    ControllerSettings controller(Map<Integer, String> duplicates, boolean admission) {
      ControllerSettings settings;
      try {
        settings = ControllerKeys.parse(values);
      } catch (SettingException e) {
        throw error(e.key(), e.problem());
      }
      if (settings == null) {
        return null;
      }
      if (admission) {
        throw error(
            ControllerKeys.ENABLED.key(),
            "the load controller and admission control cannot be on together (membership changes"
                + " are refused while admission control is on)");
      }
      int notConfigured = 0;
      for (Map.Entry<Integer, String> spare : settings.spares().entrySet()) {
        String configured = duplicates.get(spare.getKey());
        if (configured == null) {
          notConfigured++;
        } else if (!configured.equals(spare.getValue())) {
          throw error(
              spareKey(spare.getKey()),
              "duplicate."
                  + spare.getKey()
                  + " is configured at "
                  + configured
                  + ": a spare that is configured needs the same connect string");
        }
      }
      int budget = settings.maxDuplicates().orElse(duplicates.size() + notConfigured);
      if (budget < settings.minDuplicates()) {
        throw error(
            lineOf.containsKey(ControllerKeys.MIN_DUPLICATES.key())
                ? ControllerKeys.MIN_DUPLICATES.key()
                : ControllerKeys.ENABLED.key(),
            ControllerKeys.MIN_DUPLICATES.key()
                + " must be at most the budget of "
                + budget
                + " duplicates (the configured ones plus the spares), was "
                + settings.minDuplicates());
      }
      return settings;
    }

    /** The key of spare {@code id}'s line as written ({@code controller.spare.03} is spare 3). */
    private String spareKey(int id) {
      for (String key : values.keySet()) {
        if (ControllerKeys.SPARE.matches(key)) {
          try {
            if (Integer.parseInt(key.substring(ControllerKeys.SPARE_PREFIX.length())) == id) {
              return key;
            }
          } catch (NumberFormatException e) {
            // not this one: parse() refused such keys already
          }
        }
      }
      return ControllerKeys.ENABLED.key();
    }

    CliException error(String key, String problem) {
      return new CliException(where(source, lineOf.get(key)) + key + ": " + problem);
    }
  }
}
