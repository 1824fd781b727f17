package io.zoolander.server.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zoolander.server.internal.security.ConnectionLimits;
import io.zoolander.server.repeater.AdmissionSettings;
import io.zoolander.server.repeater.BatchingPolicy;
import io.zoolander.server.repeater.ControllerSettings;
import io.zoolander.server.repeater.FailoverSettings;
import io.zoolander.server.repeater.RepeaterSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class RepeaterConfigTest {
  @TempDir Path dir;

  private static RepeaterConfig parse(String... lines) {
    return RepeaterConfig.parse(List.of(lines), "r.properties");
  }

  @Test
  void onlyDuplicatesGiveTheRepeaterDefaults() {
    RepeaterConfig c = parse("duplicate.1=127.0.0.1:2181");
    assertThat(c.duplicates()).containsExactly(Map.entry(1, "127.0.0.1:2181"));
    assertThat(c.clientHost()).isEqualTo(RepeaterSettings.DEFAULT_CLIENT_HOST);
    assertThat(c.clientPort()).isEqualTo(RepeaterSettings.DEFAULT_CLIENT_PORT);
    assertThat(c.basePath()).isEqualTo(RepeaterSettings.DEFAULT_BASE_PATH);
    assertThat(c.logCapacity()).isEqualTo(RepeaterSettings.DEFAULT_LOG_CAPACITY_MESSAGES);
    assertThat(c.sessionTimeoutMs()).isEqualTo(RepeaterSettings.DEFAULT_SESSION_TIMEOUT_MILLIS);
    assertThat(c.startTimeoutMs()).isEqualTo(RepeaterSettings.DEFAULT_START_TIMEOUT_MILLIS);
    assertThat(c.epoch()).isEmpty();
    assertThat(c.clientIoThreads()).isEqualTo(RepeaterSettings.DEFAULT_CLIENT_IO_THREADS);
    assertThat(c.toBuilder().build()).isNotNull(); // builds, not started
  }

  @Test
  void everyKeyIsRead() throws Exception {
    Path file = dir.resolve("repeater.properties");
    Files.writeString(
        file,
        """
        # a deployment of three duplicates
        ! also a comment

          clientHost = 0.0.0.0 \s
        clientPort=7000
        duplicate.3=zk-c1:2181,zk-c2:2181,zk-c3:2181
        duplicate.1=zk-a1:2181,zk-a2:2181/chroot
        duplicate.2=[::1]:2182
        basePath=/rp
        logCapacity=1000
        logCapacityBytes=1048576
        sessionTimeoutMs=4000
        startTimeoutMs=9000
        epoch=42
        clientIoThreads=2
        juteMaxBuffer=4194304
        batching=1000
        autoRejoin=false
        handshakeTimeoutMs=5000
        frameIdleTimeoutMs=7000
        frameTimeoutMs=9000
        maxConnections=64
        missingDuplicateGraceMs=1500
        epochCheckMs=250
        failover=true
        failover.advertisedHost=repeater-1.example
        failover.heartbeatPort=7001
        failover.heartbeatIntervalMs=50
        failover.heartbeatTimeoutMs=400
        """);
    RepeaterConfig c = RepeaterConfig.read(file);
    assertThat(c)
        .isEqualTo(
            new RepeaterConfig(
                "0.0.0.0",
                7000,
                Map.of(
                    3,
                    "zk-c1:2181,zk-c2:2181,zk-c3:2181",
                    1,
                    "zk-a1:2181,zk-a2:2181/chroot",
                    2,
                    "[::1]:2182"),
                "/rp",
                1000,
                1_048_576,
                4000,
                9000,
                OptionalLong.of(42),
                2,
                4_194_304,
                BatchingPolicy.fixed(1000),
                false,
                Map.of(),
                null,
                new ConnectionLimits(5_000, 7_000, 9_000, 64),
                1_500,
                250,
                new FailoverSettings("repeater-1.example", 7001, 50, 400),
                null));
    assertThat(c.duplicates().keySet()).containsExactly(3, 1, 2); // file order
    assertThat(c.toBuilder().build()).isNotNull();
  }

  /** A bad second line (after a good duplicate.1 line) and the one-line message it gives. */
  private static final String[][] BAD_LINES = {
    {"clientPort=x", "clientPort: not an integer: 'x'"},
    {"clientPort=70000", "clientPort: must be in 0..65535, was 70000"},
    {"clientPort=-1", "clientPort: must be in 0..65535, was -1"},
    {"logCapacity=0", "logCapacity: must be in 1..16777216, was 0"},
    {"logCapacityBytes=100", "logCapacityBytes: must be in 1024..1099511627776, was 100"},
    {
      "batching=fast",
      "batching: batching must be 'adaptive', 'none' or an interval in microseconds, not 'fast'"
    },
    {"batching=-1", "batching: intervalMicros must be in [0, 100000], was -1"},
    {"logCapacity=1e6", "logCapacity: not an integer: '1e6'"},
    {"sessionTimeoutMs=0", "sessionTimeoutMs: must be in 1..3600000, was 0"},
    {"startTimeoutMs=10s", "startTimeoutMs: not an integer: '10s'"},
    {"epoch=0", "epoch: must be in 1..9223372036854775807, was 0"},
    {"epoch=99999999999999999999", "epoch: not an integer: '99999999999999999999'"},
    {"clientIoThreads=65", "clientIoThreads: must be in 0..64, was 65"},
    {"juteMaxBuffer=1024", "juteMaxBuffer: must be in 65536..2147483647, was 1024"},
    {"basePath=rp", "basePath: must be an absolute path like /zoolander, was 'rp'"},
    {"basePath=/rp/", "basePath: must be an absolute path like /zoolander, was '/rp/'"},
    {
      "clientport=7000",
      "unknown key 'clientport' (known: duplicate.<id>, clientHost, clientPort, basePath,"
          + " logCapacity, logCapacityBytes, sessionTimeoutMs, startTimeoutMs, epoch, clientIoThreads, handshakeTimeoutMs, frameIdleTimeoutMs, frameTimeoutMs, maxConnections, juteMaxBuffer, batching, autoRejoin, missingDuplicateGraceMs, epochCheckMs,"
          + " failover, and the failover keys failover.*, the security keys tls.*, auth.*, zookeeper.*, the admission"
          + " control keys admission.* and the load controller keys controller.* (--help lists them))"
    },
    {"autoRejoin=no", "autoRejoin: must be true or false, was 'no'"},
    {"failover=on", "failover: must be true or false, was 'on'"},
    {
      "failover.heartbeatIntervalMs=1000",
      "failover.heartbeatIntervalMs: failover.heartbeatTimeoutMs must be at least twice"
          + " failover.heartbeatIntervalMs (2000), was 1000"
    },
    {"failover.heartbeatTimeoutMs=10", "failover.heartbeatTimeoutMs: must be in 20..60000, was 10"},
    {
      "failover.advertisedHost=a b",
      "failover.advertisedHost: advertisedHost must be a host name or address, was 'a b'"
    },
    {"admission.enabled=yes", "admission.enabled: must be true or false, was 'yes'"},
    {
      "admission.tauMs=5",
      "admission.tauMs: admission control is off: set admission.enabled=true or remove this line"
    },
    {"clientPort 7000", "expected key=value, got 'clientPort 7000'"},
    {"=7000", "a line starts with '=': the key is missing"},
    {"clientHost=", "clientHost has no value"},
    {
      "duplicate.a=h:1",
      "duplicate.a: the duplicate id 'a' is not an integer >= 0 (write duplicate.<id>=<connect"
          + " string>, <id> as the ensemble's zoolander.duplicateId)"
    },
    {
      "duplicate.-2=h:1",
      "duplicate.-2: the duplicate id '-2' is not an integer >= 0 (write duplicate.<id>=<connect"
          + " string>, <id> as the ensemble's zoolander.duplicateId)"
    },
    {
      "duplicate.01=h:1",
      "duplicate.01: duplicate 1 is already configured (ids are integers: duplicate.1 and"
          + " duplicate.01 are the same)"
    },
    {
      "duplicate.2=h:port",
      "duplicate.2: not a ZooKeeper connect string (host:port,host:port,...): 'h:port'"
          + " (For input string: \"port\")"
    },
    {
      "duplicate.2=h:1,:2",
      "duplicate.2: not a ZooKeeper connect string (host:port,host:port,...): 'h:1,:2'"
          + " (a server has no host)"
    },
    {
      "duplicate.2=h:99999",
      "duplicate.2: not a ZooKeeper connect string (host:port,host:port,...): 'h:99999'"
          + " (port out of range:99999)"
    },
    {"duplicate.1=h:2", "duplicate.1 is already set on line 1"},
  };

  static Stream<Arguments> badLines() {
    return Arrays.stream(BAD_LINES).map(row -> Arguments.of(row[0], row[1]));
  }

  @ParameterizedTest
  @MethodSource("badLines")
  void everyBadLineIsOneMessageNamingItsLineAndKey(String badLine, String message) {
    assertThatThrownBy(() -> parse("duplicate.1=127.0.0.1:2181", badLine))
        .isInstanceOf(CliException.class)
        .hasMessage("r.properties line 2: " + message);
  }

  @Test
  void admissionKeysAreReadAndValidated() {
    RepeaterConfig c =
        parse(
            "duplicate.1=127.0.0.1:2181",
            "admission.enabled=true",
            "admission.targetSla=0.99",
            "admission.tauMs=12.5",
            "admission.controlPeriodMs=50",
            "admission.integralGain=0.25",
            "admission.minRetryAfterMs=5",
            "admission.maxRetryAfterMs=200");
    assertThat(c.admission().targetSla()).isEqualTo(0.99);
    assertThat(c.admission().tauMs()).isEqualTo(12.5);
    assertThat(c.admission().controlPeriodMs()).isEqualTo(50);
    assertThat(c.admission().integralGain()).isEqualTo(0.25);
    assertThat(c.admission().minRetryAfterMs()).isEqualTo(5);
    assertThat(c.admission().maxRetryAfterMs()).isEqualTo(200);
    assertThat(c.admission().slaWindowMs()).isEqualTo(AdmissionSettings.DEFAULT_SLA_WINDOW_MS);
    assertThat(parse("duplicate.1=127.0.0.1:2181").admission()).isNull();
    assertThatThrownBy(
            () ->
                parse(
                    "duplicate.1=127.0.0.1:2181",
                    "admission.enabled=true",
                    "admission.targetSla=1"))
        .isInstanceOf(CliException.class)
        .hasMessage(
            "r.properties line 3: admission.targetSla: targetSla must be in (0, 1), was 1.0");
    assertThatThrownBy(
            () ->
                parse(
                    "duplicate.1=127.0.0.1:2181", "admission.enabled=true", "admission.burstMs=x"))
        .isInstanceOf(CliException.class)
        .hasMessage("r.properties line 3: admission.burstMs: not an integer: 'x'");
  }

  @Test
  void controllerKeysAreReadAndValidated() {
    RepeaterConfig c =
        parse(
            "duplicate.1=127.0.0.1:2181",
            "duplicate.2=127.0.0.1:2281",
            "controller.enabled=true",
            "controller.targetSla=0.995",
            "controller.tauMs=7.5",
            "controller.periodMs=500",
            "controller.cooldownMs=10000",
            "controller.retireMargin=0.002",
            "controller.retirePeriods=4",
            "controller.minDuplicates=2",
            "controller.maxDuplicates=3",
            "controller.minSamples=20",
            "controller.spare.3=127.0.0.1:2381",
            "controller.spare.2=127.0.0.1:2281");
    ControllerSettings s = c.controller();
    assertThat(s.targetSla()).isEqualTo(0.995);
    assertThat(s.tauMs()).isEqualTo(7.5);
    assertThat(s.periodMs()).isEqualTo(500);
    assertThat(s.cooldownMs()).isEqualTo(10_000);
    assertThat(s.retireMargin()).isEqualTo(0.002);
    assertThat(s.retirePeriods()).isEqualTo(4);
    assertThat(s.minDuplicates()).isEqualTo(2);
    assertThat(s.maxDuplicates()).hasValue(3);
    assertThat(s.minSamples()).isEqualTo(20);
    assertThat(s.spares())
        .containsExactly(Map.entry(3, "127.0.0.1:2381"), Map.entry(2, "127.0.0.1:2281"));
    assertThat(c.toBuilder().build()).isNotNull();
    ControllerSettings defaults =
        parse("duplicate.1=127.0.0.1:2181", "controller.enabled=true").controller();
    assertThat(defaults.targetSla()).isEqualTo(ControllerSettings.DEFAULT_TARGET_SLA);
    assertThat(defaults.maxDuplicates()).isEmpty();
    assertThat(defaults.spares()).isEmpty();
    assertThat(parse("duplicate.1=127.0.0.1:2181").controller()).isNull();
  }

  static Stream<Arguments> badControllerLines() {
    return Stream.of(
        Arguments.of(
            "controller.tauMs=5",
            "line 2: controller.tauMs: the controller is off: set controller.enabled=true or remove this line"),
        Arguments.of(
            "controller.enabled=true,controller.targetSla=1",
            "line 3: controller.targetSla: targetSla must be in (0, 1), was 1.0"),
        Arguments.of(
            "controller.enabled=true,controller.cooldownMs=-1",
            "line 3: controller.cooldownMs: cooldownMs must be in [0, 3600000], was -1"),
        Arguments.of(
            "controller.enabled=true,controller.spare.x=h:1",
            "line 3: controller.spare.x: the duplicate id 'x' is not an integer (write controller.spare.<id>=<connect string>, <id> as the ensemble's zoolander.duplicateId)"),
        Arguments.of(
            "controller.enabled=true,controller.spare.0=h:1",
            "line 3: controller.spare.0: spare 0: duplicateId must be >= 1, was 0"),
        Arguments.of(
            "controller.enabled=true,controller.spare.1=h:1",
            "line 3: controller.spare.1: duplicate.1 is configured at 127.0.0.1:2181: a spare that is configured needs the same connect string"),
        Arguments.of(
            "controller.enabled=true,controller.minDuplicates=3,controller.maxDuplicates=2",
            "line 4: controller.maxDuplicates: maxDuplicates must be at least minDuplicates (3), was 2"),
        Arguments.of(
            "controller.enabled=true,controller.minDuplicates=2",
            "line 3: controller.minDuplicates: controller.minDuplicates must be at most the budget of 1 duplicates (the configured ones plus the spares), was 2"),
        Arguments.of(
            "controller.enabled=true,admission.enabled=true",
            "line 2: controller.enabled: the load controller and admission control cannot be on together (membership changes are refused while admission control is on)"));
  }

  @ParameterizedTest
  @MethodSource("badControllerLines")
  void badControllerLinesAreOneMessageNamingTheirLineAndKey(String lines, String message) {
    List<String> file = new java.util.ArrayList<>(List.of("duplicate.1=127.0.0.1:2181"));
    file.addAll(List.of(lines.split(",")));
    assertThatThrownBy(() -> parse(file.toArray(String[]::new)))
        .isInstanceOf(CliException.class)
        .hasMessage("r.properties " + message);
  }

  @Test
  void aMisspelledKeyIsRefusedWithTheNearestKnownKey() {
    assertThatThrownBy(() -> parse("duplicate.1=127.0.0.1:2181", "logCapacty=1000"))
        .isInstanceOf(CliException.class)
        .hasMessageStartingWith("r.properties line 2: unknown key 'logCapacty' (known: ")
        .satisfies(
            e -> {
              CliException c = (CliException) e;
              assertThat(c.hint()).isEqualTo("did you mean logCapacity?");
              assertThat(c.line()).endsWith("(--help lists them)); did you mean logCapacity?");
            });
    assertThatThrownBy(() -> parse("duplicate.1=127.0.0.1:2181", "tls.enable=true"))
        .isInstanceOf(CliException.class)
        .extracting(e -> ((CliException) e).hint())
        .isEqualTo("did you mean tls.enabled?");
    assertThatThrownBy(() -> parse("duplicate.1=127.0.0.1:2181", "admission.tauMS=5"))
        .extracting(e -> ((CliException) e).hint())
        .isEqualTo("did you mean admission.tauMs?");
    assertThatThrownBy(() -> parse("duplicat.2=h:1"))
        .extracting(e -> ((CliException) e).hint())
        .isEqualTo("did you mean duplicate.2?");
    assertThatThrownBy(() -> parse("duplicate.1=127.0.0.1:2181", "somethingElse=1"))
        .extracting(e -> ((CliException) e).hint())
        .isNull();
  }

  @Test
  void aRepeaterNeedsADuplicate() {
    assertThatThrownBy(() -> parse("# nothing", "clientPort=7000"))
        .isInstanceOf(CliException.class)
        .hasMessage(
            "r.properties: no duplicate.<id>=<connect string> line: a repeater needs at least one duplicate");
  }

  @Test
  void aMissingFileIsOneLine() {
    Path missing = dir.resolve("nope.properties");
    assertThatThrownBy(() -> RepeaterConfig.read(missing))
        .isInstanceOf(CliException.class)
        .hasMessage("repeater config " + missing + " does not exist");
  }
}
