package io.zoolander.server.jmx;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.zoolander.client.ZoolanderClient;
import io.zoolander.model.Admission;
import io.zoolander.model.EmpiricalLatency;
import io.zoolander.model.SlaEngine;
import io.zoolander.model.Strategy;
import io.zoolander.server.repeater.AdmissionSettings;
import io.zoolander.server.repeater.ControllerSettings;
import io.zoolander.server.repeater.Repeater;
import io.zoolander.server.testing.EmbeddedCluster;
import io.zoolander.server.testing.ServerMode;
import io.zoolander.testsupport.Await;
import io.zoolander.testsupport.ProjectRoot;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import javax.management.MBeanServer;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.RuntimeMBeanException;
import javax.management.openmbean.CompositeData;
import javax.management.openmbean.TabularData;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The JMX console through a real RMI connector on 127.0.0.1: a two-duplicate in-process cluster
 * with its repeater's MBeans and the plugins' in the platform MBean server, read and called the way
 * JConsole does (open types only), and the documented meter names checked against the meters the
 * repeater, the plugins and a client register.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class JmxConsoleTest {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final int WRITES = 30;

  @Test
  // BanJNDI: the point of the test is a JMX client connecting by URL to the local connector it
  // started (RMI over loopback); no user input is looked up.
  @SuppressWarnings("BanJNDI")
  void readsAttributesCallsOperationsAndSeesTheClusterChange() throws Exception {
    MBeanServer platform = ManagementFactory.getPlatformMBeanServer();
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    Metrics.addRegistry(meters); // the plugins meter into the global registry
    try (EmbeddedCluster cluster =
            EmbeddedCluster.builder()
                .duplicates(2)
                .serverMode(ServerMode.IN_PROCESS)
                .startRepeater(false)
                .start();
        JmxConsole console = JmxConsole.builder().port(0).build().start()) {
      // Admission control on, with a target so loose it never limits: its MBean and meters are part
      // of the console.
      Repeater repeater =
          cluster.startRepeater(
              b ->
                  b.meterRegistry(meters)
                      .mbeanServer(platform)
                      .admission(
                          AdmissionSettings.builder().targetSla(0.01).tauMs(10_000).build()));
      assertThat(console.serviceUrl().toString())
          .matches("service:jmx:rmi://127\\.0\\.0\\.1:\\d+/jndi/rmi://127\\.0\\.0\\.1:\\d+/jmxrmi");
      try (JMXConnector connector = JMXConnectorFactory.connect(console.serviceUrl());
          ZoolanderClient client = cluster.clientBuilder().meterRegistry(meters).build()) {
        MBeanServerConnection jmx = connector.getMBeanServerConnection();
        ObjectName r = ZoolanderJmx.REPEATER;
        ObjectName p = ZoolanderJmx.PREDICTOR;
        assertThat((Long) jmx.getAttribute(r, "Epoch")).isEqualTo(repeater.epoch()).isPositive();
        assertThat((String) jmx.getAttribute(r, "ClientAddress"))
            .isEqualTo("127.0.0.1:" + repeater.boundAddress().getPort());
        assertThat((Boolean) jmx.getAttribute(r, "Deposed")).isFalse();
        Await.await(
            WAIT,
            "both duplicates streaming",
            () -> Arrays.stream(rows(jmx)).allMatch(row -> row.get("state").equals("STREAMING")),
            () -> Arrays.toString(rows(jmx)));
        long firstSeq = (Long) jmx.getAttribute(r, "NextSeq");

        for (int i = 0; i < WRITES; i++) {
          assertThat(
                  client
                      .create("/jmx-" + i, new byte[] {(byte) i})
                      .get(30, TimeUnit.SECONDS)
                      .succeeded())
              .isTrue();
        }
        cluster.awaitConverged(WAIT);
        long lastSeq = firstSeq + WRITES - 1;
        assertThat((Long) jmx.getAttribute(r, "NextSeq")).isEqualTo(lastSeq + 1);
        Await.await(
            WAIT,
            "both duplicates acknowledged seq " + lastSeq,
            () ->
                Arrays.stream(rows(jmx))
                    .allMatch(
                        row ->
                            (Long) row.get("appliedSeq") == lastSeq && (Long) row.get("lag") == 0),
            () -> Arrays.toString(rows(jmx)));
        assertThat((Integer) jmx.getAttribute(r, "LogSize")).isZero(); // trimmed at the lowest ACK
        // Rates come once a 10-second window completed: none yet, but the attribute is there.
        assertThat(jmx.getAttribute(r, "NameWriteRates")).isInstanceOf(String[].class);
        assertThat(jmx.getAttribute(r, "NameWriteRatesPerSec")).isInstanceOf(TabularData.class);
        CompositeData[] rows = rows(jmx);
        assertThat(Arrays.stream(rows).map(row -> row.get("id"))).containsExactly(1, 2);
        for (CompositeData row : rows) {
          int id = (Integer) row.get("id");
          assertThat(row.get("connectString")).isEqualTo(cluster.duplicate(id).connectString());
          assertThat(row.get("fenceReason")).isEqualTo("");
          ObjectName plugin = pluginOf(jmx, id);
          assertThat(jmx.getAttribute(plugin, "Endpoint")).isEqualTo(row.get("endpoint"));
          assertThat(jmx.getAttribute(plugin, "AppliedSeq")).isEqualTo(lastSeq);
          assertThat(jmx.getAttribute(plugin, "State")).isEqualTo("ACTIVE");
          assertThat(jmx.getAttribute(plugin, "Epoch")).isEqualTo(repeater.epoch());
          assertThat(jmx.getAttribute(plugin, "DuplicateId")).isEqualTo(id);
        }

        // The predictor: its answers are rp-model's, from the samples it shows.
        double[] s1 =
            (double[])
                jmx.invoke(p, "serviceTimeSamplesMs", new Object[] {1}, new String[] {"int"});
        double[] s2 =
            (double[])
                jmx.invoke(p, "serviceTimeSamplesMs", new Object[] {2}, new String[] {"int"});
        assertThat(s1).isNotEmpty();
        assertThat(Arrays.stream(s1).min().orElseThrow()).isPositive();
        assertThat(s2).isNotEmpty();
        assertThat(Arrays.stream(s2).min().orElseThrow()).isPositive();
        double tau = (Double) jmx.getAttribute(p, "TauMs");
        assertThat(tau).isEqualTo(5.0);
        assertThat((Integer) jmx.getAttribute(p, "LiveDuplicates")).isEqualTo(2);
        double two =
            (Double)
                jmx.invoke(
                    p, "predictSla", new Object[] {2, 100.0}, new String[] {"int", "double"});
        assertThat(two).isCloseTo(model(tau, 100, 2, s1, s2), within(1e-12)).isBetween(0.0, 1.0);
        double three =
            (Double)
                jmx.invoke(
                    p, "predictSla", new Object[] {3, 100.0}, new String[] {"int", "double"});
        assertThat(three)
            .isCloseTo(model(tau, 100, 3, s1, s2), within(1e-12))
            .isGreaterThanOrEqualTo(two);
        double tight =
            (Double)
                jmx.invoke(
                    p,
                    "predictSlaAt",
                    new Object[] {2, 100.0, 0.01},
                    new String[] {"int", "double", "double"});
        assertThat(tight)
            .isCloseTo(model(0.01, 100, 2, s1, s2), within(1e-12))
            .isLessThanOrEqualTo(two);
        // How many writes per second the partition can take at a target: the admission engine's
        // bisection over the same samples; below it the target is met.
        double capacity =
            (Double)
                jmx.invoke(
                    p,
                    "writeCapacityPerSec",
                    new Object[] {0.5, tau},
                    new String[] {"double", "double"});
        assertThat(capacity).isCloseTo(capacity(0.5, tau, 2, s1, s2), within(1e-9)).isPositive();
        assertThat(model(tau, capacity / 2, 2, s1, s2)).isGreaterThanOrEqualTo(0.5);
        assertThatThrownBy(
                () ->
                    jmx.invoke(
                        p,
                        "writeCapacityPerSec",
                        new Object[] {1.0, tau},
                        new String[] {"double", "double"}))
            .isInstanceOf(RuntimeMBeanException.class)
            .cause()
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("targetSla");
        assertThatThrownBy(
                () ->
                    jmx.invoke(
                        p, "predictSla", new Object[] {0, 100.0}, new String[] {"int", "double"}))
            .isInstanceOf(RuntimeMBeanException.class)
            .cause()
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("duplicates");
        double predicted = (Double) jmx.getAttribute(p, "PredictedSla");
        assertThat(predicted).isBetween(0.0, 1.0);
        assertThat((Double) jmx.getAttribute(p, "PredictedSlaLow")).isLessThanOrEqualTo(predicted);
        assertThat((Double) jmx.getAttribute(p, "PredictedSlaHigh"))
            .isGreaterThanOrEqualTo(predicted);
        assertThat((Integer) jmx.getAttribute(p, "SamplesUsed")).isEqualTo(s1.length + s2.length);
        assertThat((Long) jmx.getAttribute(p, "SampleMaxAgeMs")).isEqualTo(60_000L);
        assertThat(jmx.getMBeanInfo(p).getOperations())
            .anySatisfy(
                op -> {
                  assertThat(op.getName()).isEqualTo("predictSla");
                  assertThat(op.getSignature()[0].getName())
                      .isEqualTo("duplicates"); // what JConsole labels the field
                });

        // Admission control: its state as of the last control period, and a new target from the
        // next one on.
        ObjectName a = ZoolanderJmx.ADMISSION;
        assertThat((Double) jmx.getAttribute(a, "TargetSla")).isEqualTo(0.01);
        assertThat((Double) jmx.getAttribute(a, "TauMs")).isEqualTo(10_000.0);
        assertThat((Boolean) jmx.getAttribute(a, "Limiting")).isFalse();
        assertThat((Long) jmx.getAttribute(a, "Shed")).isZero();
        Await.await(
            WAIT,
            "admission counted the writes",
            () -> attribute(jmx, a, "Admitted") instanceof Long n && n >= WRITES,
            () -> "admitted " + attribute(jmx, a, "Admitted"));
        jmx.invoke(a, "setTarget", new Object[] {0.5, 2_000.0}, new String[] {"double", "double"});
        Await.await(
            WAIT,
            "the new target in effect",
            () ->
                Double.valueOf(0.5).equals(attribute(jmx, a, "TargetSla"))
                    && Double.valueOf(2_000.0).equals(attribute(jmx, a, "TauMs")),
            () -> "target " + attribute(jmx, a, "TargetSla"));
        assertThat(repeater.admission().orElseThrow().targetSla()).isEqualTo(0.5);
        assertThatThrownBy(
                () ->
                    jmx.invoke(
                        a,
                        "setTarget",
                        new Object[] {1.5, 2_000.0},
                        new String[] {"double", "double"}))
            .isInstanceOf(RuntimeMBeanException.class)
            .cause()
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("targetSla");
        assertThat((Double) jmx.getAttribute(a, "TargetSla")).isEqualTo(0.5);
        assertThat(jmx.getMBeanInfo(a).getOperations())
            .anySatisfy(
                op -> {
                  assertThat(op.getName()).isEqualTo("setTarget");
                  assertThat(op.getSignature()[0].getName()).isEqualTo("targetSla");
                });

        // A duplicate down: its lag and the log grow with every write, its plugin MBean is gone;
        // back, it catches up.
        cluster.killDuplicate(2);
        Await.await(
            WAIT, "duplicate 2's plugin MBean gone", () -> pluginNames(jmx, 2).isEmpty(), () -> "");
        assertThat(
                meters
                    .find(MeterNames.PLUGIN_APPLIED_SEQ)
                    .tag(MeterNames.TAG_DUPLICATE, "2")
                    .gauges())
            .as("a stopped plugin's meters are removed, so its successor's replace them")
            .isEmpty();
        assertThat(
                meters
                    .find(MeterNames.PLUGIN_APPLIED_SEQ)
                    .tag(MeterNames.TAG_DUPLICATE, "1")
                    .gauges())
            .hasSize(1);
        for (int i = 0; i < 5; i++) {
          assertThat(
                  client
                      .create("/jmx-down-" + i, new byte[0])
                      .get(30, TimeUnit.SECONDS)
                      .succeeded())
              .isTrue();
        }
        Await.await(
            WAIT,
            "duplicate 1 acknowledged the writes while 2 was down",
            () -> (Long) row(jmx, 1).get("appliedSeq") == lastSeq + 5,
            () -> Arrays.toString(rows(jmx)));
        assertThat(row(jmx, 2).get("appliedSeq")).isEqualTo(lastSeq);
        assertThat(row(jmx, 2).get("lag")).isEqualTo(5L);
        assertThat(row(jmx, 2).get("state")).isNotEqualTo("STREAMING");
        assertThat((Integer) jmx.getAttribute(r, "LogSize")).isEqualTo(5);
        assertThat(
                meters
                    .get(MeterNames.REPEATER_LAG)
                    .tag(MeterNames.TAG_DUPLICATE, "2")
                    .gauge()
                    .value())
            .isEqualTo(5);
        assertThat(meters.get(MeterNames.REPEATER_LOG_SIZE).gauge().value()).isEqualTo(5);
        cluster.restartDuplicate(2);
        Await.await(
            WAIT,
            "duplicate 2 caught up",
            () -> (Long) row(jmx, 2).get("lag") == 0 && logSize(jmx) == 0,
            () -> Arrays.toString(rows(jmx)));
        assertThat(jmx.getAttribute(pluginOf(jmx, 2), "AppliedSeq")).isEqualTo(lastSeq + 5);
        assertThat(
                meters
                    .get(MeterNames.PLUGIN_APPLIED_SEQ)
                    .tag(MeterNames.TAG_DUPLICATE, "2")
                    .gauge()
                    .value())
            .isEqualTo((double) (lastSeq + 5));

        // The meters behind the same numbers, and the documented names (docs and code must not
        // drift).
        assertThat(
                meters
                    .get(MeterNames.REPEATER_APPLIED_SEQ)
                    .tag(MeterNames.TAG_DUPLICATE, "2")
                    .gauge()
                    .value())
            .isEqualTo((double) (lastSeq + 5));
        assertThat(
                meters
                    .get(MeterNames.REPEATER_ACK_LATENCY)
                    .tag(MeterNames.TAG_DUPLICATE, "1")
                    .timer()
                    .count())
            .isGreaterThanOrEqualTo(s1.length);
        assertThat(
                meters
                    .get(MeterNames.PLUGIN_APPLY_LATENCY)
                    .tag(MeterNames.TAG_DUPLICATE, "1")
                    .timer()
                    .count())
            .isGreaterThanOrEqualTo(WRITES + 5);
        assertThat(meters.get(MeterNames.REPEATER_WRITES).functionCounter().count())
            .isEqualTo(WRITES + 5);
        assertThat(meters.get(MeterNames.CLIENT_WRITE_LATENCY).timer().count())
            .isEqualTo(WRITES + 5);
        Set<String> registered =
            meters.getMeters().stream()
                .map(m -> m.getId().getName())
                .filter(name -> name.startsWith("zoolander."))
                .collect(Collectors.toCollection(TreeSet::new));
        // The load controller cannot run with admission control: its meters come from a repeater
        // built with it (not started), and together the two cover the reference.
        registered.addAll(controllerMeters());
        assertThat(registered).isEqualTo(documentedMeters());
        assertThat(constants()).isEqualTo(documentedMeters());

        // Fence, unfence (waits for the state transfer) and rejoin (returns at once), as an
        // operator would.
        jmx.invoke(r, "fence", new Object[] {2}, new String[] {"int"});
        assertThat(row(jmx, 2).get("state")).isEqualTo("FENCED");
        assertThat((String) row(jmx, 2).get("fenceReason")).isNotEmpty();
        assertThat((Integer) jmx.getAttribute(r, "FencedDuplicates")).isEqualTo(1);
        Await.await(
            WAIT,
            "duplicate 2's plugin fenced",
            () -> "FENCED".equals(pluginState(jmx, 2)),
            () -> "plugin state " + pluginState(jmx, 2));
        assertThat(client.create("/jmx-fenced", new byte[0]).get(30, TimeUnit.SECONDS).succeeded())
            .isTrue();
        long fencedSeq = lastSeq + 6;
        assertThat(row(jmx, 2).get("appliedSeq"))
            .isEqualTo(lastSeq + 5); // sent nothing while fenced
        // The log no longer waits for it. Duplicate 1 replies to the client before its ack
        // reaches the repeater, so the trim can lag the reply by a moment: await it.
        Await.await(
            WAIT,
            "the log trimmed without duplicate 2's ack",
            () -> Integer.valueOf(0).equals(attribute(jmx, r, "LogSize")),
            () -> "log size " + attribute(jmx, r, "LogSize"));
        String unfenced = (String) jmx.invoke(r, "unfence", new Object[] {2}, new String[] {"int"});
        assertThat(unfenced).contains("rejoined");
        assertThat(row(jmx, 2).get("state")).isEqualTo("STREAMING");
        assertThat((Integer) jmx.getAttribute(r, "FencedDuplicates")).isZero();
        Await.await(
            WAIT,
            "duplicate 2 applied the write made while it was fenced",
            () -> Long.valueOf(fencedSeq).equals(pluginApplied(jmx, 2)),
            () -> "applied " + pluginApplied(jmx, 2));
        jmx.invoke(r, "fence", new Object[] {2}, new String[] {"int"});
        assertThat((String) jmx.invoke(r, "rejoin", new Object[] {2}, new String[] {"int"}))
            .contains("started");
        Await.await(
            WAIT,
            "duplicate 2 streaming again after rejoin",
            () -> "STREAMING".equals(row(jmx, 2).get("state")),
            () -> Arrays.toString(rows(jmx)));
        cluster.awaitConverged(WAIT);
        assertThatThrownBy(() -> jmx.invoke(r, "fence", new Object[] {9}, new String[] {"int"}))
            .isInstanceOf(RuntimeMBeanException.class)
            .cause()
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("no duplicate 9");
        assertThat(jmx.getMBeanInfo(r).getOperations())
            .extracting(op -> op.getName())
            .containsExactlyInAnyOrder(
                "fence", "unfence", "rejoin", "addDuplicate", "retireDuplicate", "setReadFanOut");
      } finally {
        Metrics.removeRegistry(meters);
      }
      repeater.close();
      assertThat(platform.isRegistered(ZoolanderJmx.REPEATER)).isFalse();
      assertThat(platform.isRegistered(ZoolanderJmx.PREDICTOR)).isFalse();
      assertThat(platform.isRegistered(ZoolanderJmx.ADMISSION)).isFalse();
      assertThat(meters.getMeters().stream().map(Meter::getId).map(Meter.Id::getName))
          .noneMatch(name -> name.startsWith("zoolander.repeater."));
    }
    assertThat(platform.queryNames(new ObjectName(ZoolanderJmx.DOMAIN + ":type=Plugin,*"), null))
        .isEmpty();
  }

  /** The engine's SLA of {@code duplicates} alike duplicates whose samples are pooled. */
  private static double capacity(
      double targetSla, double tauMs, int duplicates, double[]... samples) {
    return Admission.builder()
        .engine(SlaEngine.builder().bootstrapReplicates(0))
        .targetSla(targetSla)
        .tauMs(tauMs)
        .duplicates(duplicates)
        .build()
        .decide(
            EmpiricalLatency.of(Arrays.stream(samples).flatMapToDouble(Arrays::stream).toArray()),
            0)
        .maxArrivalRatePerSec();
  }

  private static double model(double tauMs, double rate, int duplicates, double[]... samples) {
    return SlaEngine.builder()
        .strategy(Strategy.predictability(duplicates))
        .serviceTime(
            EmpiricalLatency.of(Arrays.stream(samples).flatMapToDouble(Arrays::stream).toArray()))
        .writeFraction(1)
        .arrivalRatePerSec(rate)
        .build()
        .predict(tauMs)
        .sla();
  }

  private static Object pluginState(MBeanServerConnection jmx, int duplicateId) {
    try {
      return attribute(jmx, pluginOf(jmx, duplicateId), "State");
    } catch (InterruptedException e) {
      throw new IllegalStateException(e);
    }
  }

  private static Object pluginApplied(MBeanServerConnection jmx, int duplicateId) {
    try {
      return attribute(jmx, pluginOf(jmx, duplicateId), "AppliedSeq");
    } catch (InterruptedException e) {
      throw new IllegalStateException(e);
    }
  }

  private static Object attribute(MBeanServerConnection jmx, ObjectName name, String attribute) {
    try {
      return jmx.getAttribute(name, attribute);
    } catch (Exception e) {
      return e.toString();
    }
  }

  private static CompositeData[] rows(MBeanServerConnection jmx) {
    try {
      return (CompositeData[]) jmx.getAttribute(ZoolanderJmx.REPEATER, "Duplicates");
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static int logSize(MBeanServerConnection jmx) {
    try {
      return (Integer) jmx.getAttribute(ZoolanderJmx.REPEATER, "LogSize");
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static CompositeData row(MBeanServerConnection jmx, int id) {
    return Arrays.stream(rows(jmx))
        .filter(row -> (Integer) row.get("id") == id)
        .findFirst()
        .orElseThrow();
  }

  private static Set<ObjectName> pluginNames(MBeanServerConnection jmx, int duplicateId) {
    try {
      return jmx.queryNames(
          new ObjectName(ZoolanderJmx.DOMAIN + ":type=Plugin,duplicate=" + duplicateId + ",*"),
          null);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static ObjectName pluginOf(MBeanServerConnection jmx, int duplicateId)
      throws InterruptedException {
    Await.await(
        WAIT,
        "one plugin MBean of duplicate " + duplicateId,
        () -> pluginNames(jmx, duplicateId).size() == 1,
        () -> pluginNames(jmx, duplicateId).toString());
    return pluginNames(jmx, duplicateId).iterator().next();
  }

  /**
   * The meter names of docs/operations.md's meter reference, reserved prefixes ({@code .*}) left
   * out.
   */
  static Set<String> documentedMeters() throws Exception {
    String docs =
        Files.readString(ProjectRoot.find().resolve("docs/operations.md"), StandardCharsets.UTF_8);
    int from = docs.indexOf("### Meter reference");
    assertThat(from).as("the meter reference in docs/operations.md").isPositive();
    int to = docs.indexOf("\n## ", from);
    docs = docs.substring(from, to < 0 ? docs.length() : to);
    Matcher m = Pattern.compile("(?m)^\\| `(zoolander\\.[a-z.]+[a-z])` \\|").matcher(docs);
    Set<String> names = new TreeSet<>();
    while (m.find()) {
      names.add(m.group(1));
    }
    assertThat(names).as("meter rows in docs/operations.md").hasSizeGreaterThan(20);
    return names;
  }

  /** The names of the meters a repeater with the load controller on adds to the others. */
  private static Set<String> controllerMeters() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    Repeater withController =
        Repeater.builder()
            .duplicate(1, "127.0.0.1:1")
            .meterRegistry(registry)
            .controller(ControllerSettings.builder().spare(2, "127.0.0.1:2").build())
            .build();
    try {
      return registry.getMeters().stream()
          .map(m -> m.getId().getName())
          .filter(name -> name.startsWith(MeterNames.REPEATER_CONTROLLER_PREFIX))
          .collect(Collectors.toCollection(TreeSet::new));
    } finally {
      withController.close();
    }
  }

  /** The names {@link MeterNames} holds. */
  private static Set<String> constants() throws IllegalAccessException {
    Set<String> names = new TreeSet<>();
    for (Field f : MeterNames.class.getFields()) {
      if (Modifier.isStatic(f.getModifiers())
          && !f.getName().startsWith("TAG_")
          && !f.getName().endsWith("_PREFIX")) {
        names.add((String) f.get(null));
      }
    }
    return names;
  }
}
