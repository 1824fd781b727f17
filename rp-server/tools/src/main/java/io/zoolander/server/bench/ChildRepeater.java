package io.zoolander.server.bench;

import io.zoolander.server.internal.testing.Ports;
import io.zoolander.server.internal.testing.RepeaterChildMain;
import io.zoolander.server.internal.testing.ThisClassPath;
import io.zoolander.server.repeater.RepeaterKeys;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

/**
 * The repeater as a deployment runs it: {@code zoolander repeater} in its own JVM, so that its heap
 * can be measured apart from the client's (through JMX on a loopback port) and its pauses are its
 * own. It exits with this JVM, even when this one is killed ({@link RepeaterChildMain}).
 */
final class ChildRepeater implements AutoCloseable {
  /**
   * The repeater's JVM: like the duplicates' ({@code ZooKeeperEnsemble}), with room for a full
   * retransmission log.
   */
  static final List<String> JVM_ARGS =
      List.of("-Xms32m", "-Xmx512m", "-XX:+UseSerialGC", "-Djava.net.preferIPv4Stack=true");

  private static final Pattern LISTENING =
      Pattern.compile("repeater listening on ([^:\\s]+):(\\d+), epoch (\\d+)");
  private static final long START_TIMEOUT_MS = 60_000;

  private final Process process;
  private final String host;
  private final int port;
  private final long epoch;
  private final JMXConnector jmx;
  private final MemoryMXBean memory;

  private ChildRepeater(
      Process process, String host, int port, long epoch, JMXConnector jmx, MemoryMXBean memory) {
    this.process = process;
    this.host = host;
    this.port = port;
    this.epoch = epoch;
    this.jmx = jmx;
    this.memory = memory;
  }

  /**
   * Settings of repeater.properties the bench writes itself: {@link #checkSettings} refuses them.
   */
  private static final Set<String> BENCH_OWNED = Set.of("clientHost", "clientPort", "basePath");

  /**
   * Checks settings given for the repeater's properties file ({@code --repeater-setting}): each a
   * key of {@link RepeaterKeys#ALL} that the bench does not set itself.
   *
   * @throws IllegalArgumentException naming the first bad key
   */
  static Map<String, String> checkSettings(Map<String, String> settings) {
    for (String key : settings.keySet()) {
      if (BENCH_OWNED.contains(key) || key.startsWith("duplicate.")) {
        throw new IllegalArgumentException(
            "repeater setting " + key + " is set by the bench itself and cannot be given");
      }
      if (!RepeaterKeys.ALL.isKnown(key)) {
        throw new IllegalArgumentException(
            "unknown repeater setting "
                + key
                + RepeaterKeys.ALL.nearestKey(key).map(k -> " (did you mean " + k + "?)").orElse("")
                + "; `zoolander repeater --help` lists them");
      }
    }
    return Map.copyOf(settings);
  }

  /**
   * Starts a repeater for {@code duplicates} (id to connect string) and waits until it serves.
   *
   * @param settings further entries of its properties file ({@link #checkSettings})
   * @param jvmArgs further arguments of its JVM (after {@link #JVM_ARGS})
   * @param dir where its properties file and its output go
   */
  static ChildRepeater start(
      Map<Integer, String> duplicates,
      String basePath,
      Map<String, String> settings,
      List<String> jvmArgs,
      Path dir)
      throws IOException, InterruptedException, TimeoutException {
    Files.createDirectories(dir);
    Path config = dir.resolve("repeater.properties");
    StringBuilder props =
        new StringBuilder("clientHost=127.0.0.1\nclientPort=0\nbasePath=" + basePath + "\n");
    duplicates.forEach(
        (id, connect) ->
            props.append("duplicate.").append(id).append('=').append(connect).append('\n'));
    checkSettings(settings)
        .forEach((key, value) -> props.append(key).append('=').append(value).append('\n'));
    Files.writeString(config, props.toString(), StandardCharsets.UTF_8);
    int jmxPort = Ports.next();
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(JVM_ARGS);
    command.addAll(jvmArgs);
    command.addAll(
        List.of(
            "-Dcom.sun.management.jmxremote.port=" + jmxPort,
            "-Dcom.sun.management.jmxremote.rmi.port=" + jmxPort,
            "-Dcom.sun.management.jmxremote.host=127.0.0.1",
            "-Djava.rmi.server.hostname=127.0.0.1",
            "-Dcom.sun.management.jmxremote.authenticate=false",
            "-Dcom.sun.management.jmxremote.ssl=false",
            "-cp",
            ThisClassPath.absolute(),
            RepeaterChildMain.class.getName(),
            "repeater",
            "--config",
            config.toString()));
    Path stdout = dir.resolve("repeater.out");
    Process process =
        new ProcessBuilder(command)
            .redirectOutput(stdout.toFile())
            .redirectError(dir.resolve("repeater.log").toFile())
            .redirectInput(
                ProcessBuilder.Redirect
                    .PIPE) // never written: the child exits when it reaches end-of-file
            .start();
    try {
      Matcher m = awaitListening(process, stdout);
      String host = m.group(1);
      // A JMX client for the child's own connector on loopback, the port we chose: no user input.
      @SuppressWarnings("BanJNDI")
      JMXConnector jmx =
          JMXConnectorFactory.connect(
              new JMXServiceURL("service:jmx:rmi:///jndi/rmi://127.0.0.1:" + jmxPort + "/jmxrmi"));
      MemoryMXBean memory =
          ManagementFactory.newPlatformMXBeanProxy(
              jmx.getMBeanServerConnection(),
              ManagementFactory.MEMORY_MXBEAN_NAME,
              MemoryMXBean.class);
      return new ChildRepeater(
          process, host, Integer.parseInt(m.group(2)), Long.parseLong(m.group(3)), jmx, memory);
    } catch (IOException | InterruptedException | TimeoutException | RuntimeException e) {
      process.destroyForcibly();
      throw e;
    }
  }

  private static Matcher awaitListening(Process process, Path stdout)
      throws IOException, InterruptedException, TimeoutException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(START_TIMEOUT_MS);
    while (true) {
      Matcher m = LISTENING.matcher(Files.readString(stdout, StandardCharsets.UTF_8));
      if (m.find()) {
        return m;
      }
      if (!process.isAlive()) {
        throw new IOException(
            "the repeater exited with status "
                + process.exitValue()
                + " before serving; see "
                + stdout.resolveSibling("repeater.log"));
      }
      if (System.nanoTime() - deadline > 0) {
        throw new TimeoutException(
            "the repeater did not serve within "
                + START_TIMEOUT_MS
                + " ms; see "
                + stdout.resolveSibling("repeater.log"));
      }
      Thread.sleep(50);
    }
  }

  String host() {
    return host;
  }

  /** The repeater JVM's process id. */
  long pid() {
    return process.pid();
  }

  int port() {
    return port;
  }

  long epoch() {
    return epoch;
  }

  /** Collects the repeater's garbage, then returns its used heap in bytes: what it holds on to. */
  long heapUsedAfterGc() {
    memory.gc();
    return memory.getHeapMemoryUsage().getUsed();
  }

  @Override
  public void close() {
    try {
      jmx.close();
    } catch (IOException e) {
      // the process goes anyway
    }
    process.destroy(); // SIGTERM: the repeater closes its connections
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }
}
