package io.zoolander.server.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zoolander.client.WriteResult;
import io.zoolander.client.ZoolanderClient;
import io.zoolander.server.jmx.ZoolanderJmx;
import io.zoolander.server.repeater.Repeater;
import io.zoolander.server.testing.ZooKeeperEnsemble;
import io.zoolander.testsupport.Await;
import io.zoolander.wire.Znodes;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.MBeanServer;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code zoolander repeater} run through {@link ZoolanderCommand#execute} against a real one-server
 * duplicate.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class RepeaterCommandTest {
  private static final Pattern STARTED =
      Pattern.compile(
          "repeater listening on 127\\.0\\.0\\.1:(\\d+), epoch (\\d+), next seq (\\d+), duplicates 1=(.*)");
  private static final Pattern JMX_STARTED =
      Pattern.compile(
          "JMX console at (service:jmx:rmi://127\\.0\\.0\\.1:(\\d+)/jndi/rmi://127\\.0\\.0\\.1:(\\d+)/jmxrmi)\n"
              + STARTED.pattern());

  private static ZooKeeperEnsemble ensemble;

  @TempDir Path dir;

  @BeforeAll
  static void startDuplicate() throws Exception {
    ensemble =
        ZooKeeperEnsemble.builder()
            .servers(1)
            .zoolanderDuplicate(1, Znodes.DEFAULT_BASE_PATH)
            .start();
  }

  @AfterAll
  static void stopDuplicate() {
    if (ensemble != null) {
      ensemble.close();
    }
  }

  /** The command running on its own thread, as {@code main} would run it. */
  private static final class Running {
    final StringWriter out = new StringWriter();
    final StringWriter err = new StringWriter();
    final AtomicInteger exit = new AtomicInteger(-1);
    final Thread thread;

    Running(Path config, String... more) {
      String[] args = new String[3 + more.length];
      args[0] = "repeater";
      args[1] = "--config";
      args[2] = config.toString();
      System.arraycopy(more, 0, args, 3, more.length);
      thread =
          new Thread(
              () ->
                  exit.set(
                      ZoolanderCommand.execute(
                          args, new PrintWriter(out, true), new PrintWriter(err, true))),
              "repeater-command");
      thread.start();
    }

    /** Waits for the start line and returns its match. */
    Matcher awaitStarted() throws InterruptedException {
      return awaitStarted(STARTED);
    }

    /** Waits until the whole output matches {@code expected} and returns the match. */
    Matcher awaitStarted(Pattern expected) throws InterruptedException {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (System.nanoTime() < deadline) {
        Matcher m = expected.matcher(out.toString().strip());
        if (m.matches()) {
          return m;
        }
        assertThat(thread.isAlive())
            .as("the command ended early: out %s, err %s", out, err)
            .isTrue();
        Thread.sleep(20);
      }
      throw new AssertionError("no start line within 60 s: out " + out + ", err " + err);
    }

    int awaitExit() throws InterruptedException {
      thread.join(TimeUnit.SECONDS.toMillis(30));
      assertThat(thread.isAlive()).as("the command still runs").isFalse();
      return exit.get();
    }
  }

  private Path config() throws Exception {
    Path file = dir.resolve("repeater.properties");
    Files.writeString(
        file,
        "# the test's duplicate\nduplicate.1="
            + ensemble.connectString()
            + "\nclientPort=0\n"
            + "startTimeoutMs=20000\n");
    return file;
  }

  @Test
  void servesWritesUntilStopped() throws Exception {
    Running command = new Running(config());
    Matcher started = command.awaitStarted();
    assertThat(started.group(4)).isEqualTo(ensemble.connectString());
    long epoch = Long.parseLong(started.group(2));
    assertThat(epoch).isPositive();
    try (ZoolanderClient client =
        ZoolanderClient.builder()
            .repeater("127.0.0.1", Integer.parseInt(started.group(1)))
            .duplicate(ensemble.connectString())
            .build()) {
      WriteResult created =
          client.create("/through-the-command", new byte[] {7}).get(30, TimeUnit.SECONDS);
      assertThat(created.succeeded()).isTrue();
      assertThat(created.seq()).isEqualTo(Long.parseLong(started.group(3)));
      assertThat(client.getData("/through-the-command").get(30, TimeUnit.SECONDS).data())
          .containsExactly(7);
    }
    command.thread.interrupt(); // what SIGTERM does to the real command: close the repeater, end
    assertThat(command.awaitExit()).isZero();
    assertThat(command.out.toString()).endsWith("repeater stopped\n");
    assertThat(command.err.toString()).isEmpty();
  }

  @Test
  // BanJNDI: the point of the test is a JMX client connecting by URL to the local connector it
  // started (RMI over loopback); no user input is looked up.
  @SuppressWarnings("BanJNDI")
  void servesJmxOnTheJmxPort() throws Exception {
    Running command = new Running(config(), "--jmx-port", "0");
    Matcher started = command.awaitStarted(JMX_STARTED);
    long epoch = Long.parseLong(started.group(5));
    JMXServiceURL url = new JMXServiceURL(started.group(1));
    ObjectName appliedSeq =
        new ObjectName(
            ZoolanderJmx.DOMAIN
                + ":name=zoolander.repeater.duplicate.applied.seq.duplicate.1,type=gauges");
    try (JMXConnector connector = JMXConnectorFactory.connect(url);
        ZoolanderClient client =
            ZoolanderClient.builder()
                .repeater("127.0.0.1", Integer.parseInt(started.group(4)))
                .duplicate(ensemble.connectString())
                .build()) {
      MBeanServerConnection jmx = connector.getMBeanServerConnection();
      assertThat(jmx.getAttribute(ZoolanderJmx.REPEATER, "Epoch")).isEqualTo(epoch);
      assertThat(
              jmx.getAttribute(
                  new ObjectName(
                      ZoolanderJmx.DOMAIN + ":name=zoolander.repeater.epoch,type=gauges"),
                  "Value"))
          .isEqualTo((double) epoch);
      WriteResult created = client.create("/through-jmx", new byte[] {1}).get(30, TimeUnit.SECONDS);
      assertThat(created.succeeded()).isTrue();
      Await.await(
          Duration.ofSeconds(30),
          "the applied-seq meter shows seq " + created.seq(),
          () -> value(jmx, appliedSeq).equals((double) created.seq()),
          () -> "");
      assertThat(jmx.getAttribute(ZoolanderJmx.REPEATER, "NextSeq")).isEqualTo(created.seq() + 1);
    }
    command.thread.interrupt();
    assertThat(command.awaitExit()).isZero();
    MBeanServer platform = ManagementFactory.getPlatformMBeanServer();
    assertThat(platform.isRegistered(ZoolanderJmx.REPEATER)).isFalse();
    assertThat(platform.isRegistered(appliedSeq)).isFalse();
    assertThatThrownBy(() -> JMXConnectorFactory.connect(url).close())
        .isInstanceOf(IOException.class);
  }

  private static Object value(MBeanServerConnection jmx, ObjectName gauge) {
    try {
      return jmx.getAttribute(gauge, "Value");
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void exitsWithOneLineWhenANewerRepeaterDeposesIt() throws Exception {
    Running command = new Running(config());
    long epoch = Long.parseLong(command.awaitStarted().group(2));
    // A second repeater takes a higher epoch; once a duplicate applies one of its writes, the
    // plugin tells the first.
    try (Repeater newer =
            Repeater.builder()
                .duplicate(1, ensemble.connectString())
                .epoch(epoch + 1)
                .build()
                .start();
        ZoolanderClient client =
            ZoolanderClient.builder()
                .repeater("127.0.0.1", newer.boundAddress().getPort())
                .duplicate(ensemble.connectString())
                .build()) {
      assertThat(newer.epoch()).isGreaterThan(epoch);
      assertThat(client.create("/newer", new byte[0]).get(30, TimeUnit.SECONDS).succeeded())
          .isTrue();
      assertThat(command.awaitExit()).isEqualTo(1);
    }
    String err = command.err.toString();
    assertThat(err)
        .startsWith(
            "zoolander: repeater epoch " + epoch + " deposed by a newer repeater: duplicate 1 ")
        .endsWith("\n");
    assertThat(err.strip()).doesNotContain("\n");
  }
}
