package io.zoolander.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.zoolander.server.jmx.ZoolanderJmx;
import io.zoolander.server.plugin.ZoolanderPluginFactory;
import io.zoolander.testsupport.Await;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code zoolander server --jmx-port 0} in a child JVM, as an operator (or the Docker image) runs
 * it: the printed URL reaches its plugin's MBean and meters once the server leads its one-server
 * duplicate.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class ServerCommandJmxTest {
  private static final Pattern JMX_LINE =
      Pattern.compile(
          "JMX console at (service:jmx:rmi://127\\.0\\.0\\.1:\\d+/jndi/rmi://127\\.0\\.0\\.1:\\d+/jmxrmi)");
  private static final Duration WAIT = Duration.ofSeconds(60);

  @TempDir Path dir;

  @Test
  // BanJNDI: the point of the test is a JMX client connecting by URL to the local connector it
  // started (RMI over loopback); no user input is looked up.
  @SuppressWarnings("BanJNDI")
  void servesThePluginsMBeanAndMetersOnTheJmxPort() throws Exception {
    Path data = Files.createDirectories(dir.resolve("data"));
    Files.writeString(data.resolve("myid"), "1\n");
    Path cfg = dir.resolve("zoo.cfg");
    Files.writeString(
        cfg,
        String.join(
                "\n",
                "tickTime=500",
                "initLimit=10",
                "syncLimit=5",
                "dataDir=" + data,
                "clientPort=" + freePort(),
                "clientPortAddress=127.0.0.1",
                "admin.enableServer=false",
                "standaloneEnabled=false",
                "server.1=127.0.0.1:" + freePort() + ":" + freePort(),
                "zoolander.pluginFactory=" + ZoolanderPluginFactory.class.getName(),
                "zoolander.duplicateId=7")
            + "\n");
    Process server =
        new ProcessBuilder(
                List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-XX:TieredStopAtLevel=1",
                    "-cp",
                    System.getProperty("java.class.path"),
                    ZoolanderCommand.class.getName(),
                    "server",
                    "--config",
                    cfg.toString(),
                    "--jmx-port",
                    "0"))
            .redirectError(dir.resolve("server.log").toFile())
            .start();
    try (BufferedReader out =
        new BufferedReader(
            new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8))) {
      String first = out.readLine();
      assertThat(first).as("first line; log: %s", log()).isNotNull();
      Matcher m = JMX_LINE.matcher(first);
      assertThat(m.matches()).as("first line %s", first).isTrue();
      assertThat(out.readLine()).startsWith("zoolander server 1 of duplicate 7 starting");
      try (JMXConnector connector = JMXConnectorFactory.connect(new JMXServiceURL(m.group(1)))) {
        MBeanServerConnection jmx = connector.getMBeanServerConnection();
        ObjectName plugin = ZoolanderJmx.plugin(7, 1);
        Await.await(
            WAIT,
            "the plugin MBean reports ACTIVE",
            () -> "ACTIVE".equals(attribute(jmx, plugin, "State")),
            this::log);
        assertThat(attribute(jmx, plugin, "AppliedSeq")).isEqualTo(0L);
        assertThat((String) attribute(jmx, plugin, "Endpoint")).startsWith("127.0.0.1:");
        ObjectName appliedSeq =
            new ObjectName(
                ZoolanderJmx.DOMAIN
                    + ":name=zoolander.plugin.applied.seq.duplicate.7.server.1,type=gauges");
        assertThat(attribute(jmx, appliedSeq, "Value")).isEqualTo(0.0);
      }
    } finally {
      server.destroy(); // SIGTERM, as an operator stops it
      assertThat(server.waitFor(30, TimeUnit.SECONDS)).as("the server stops on SIGTERM").isTrue();
    }
  }

  private static Object attribute(MBeanServerConnection jmx, ObjectName name, String attribute) {
    try {
      return jmx.getAttribute(name, attribute);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private String log() {
    try {
      return Files.readString(dir.resolve("server.log"));
    } catch (IOException e) {
      return e.toString();
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }
}
