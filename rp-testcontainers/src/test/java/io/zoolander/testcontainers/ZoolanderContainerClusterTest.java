package io.zoolander.testcontainers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.zoolander.client.NodeData;
import io.zoolander.client.ReadPolicy;
import io.zoolander.client.ReplyEvent;
import io.zoolander.client.WriteResult;
import io.zoolander.client.ZoolanderClient;
import io.zoolander.server.cli.ZoolanderCommand;
import io.zoolander.server.testing.TreeDigest;
import io.zoolander.testsupport.Docker;
import io.zoolander.wire.Znodes;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import javax.management.MBeanServerConnection;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.containers.output.Slf4jLogConsumer;
import org.testcontainers.junit.jupiter.Testcontainers;

/**
 * A 3-duplicate deployment (one-server duplicates, to keep the suite's cost modest;
 * docker/compose.yaml runs 3x3) in containers built from docker/ and this build's jar: first-reply
 * reads and sequenced writes through the SDK, a duplicate's container killed under writes with the
 * invariants holding, the repeater's JMX console, and the safe set-up (the plugins' ZooKeeper
 * identity, so a plain ZooKeeper client cannot write Zoolander's znodes). Skips without a Docker
 * engine (.ci/docker-up starts one here).
 */
@Testcontainers(disabledWithoutDocker = true)
@Docker
class ZoolanderContainerClusterTest {
  private static final Logger LOG = LoggerFactory.getLogger(ZoolanderContainerClusterTest.class);

  private static final Duration CONVERGE_TIMEOUT = Duration.ofSeconds(60);

  /**
   * Whether this build's `zoolander repeater` has the JMX console's --jmx-port (the JMX console's
   * contract).
   */
  private static final boolean JMX_CONSOLE = repeaterHasJmxPort();

  private static ZoolanderContainerCluster cluster;

  @BeforeAll
  static void startCluster() throws Exception {
    ZoolanderImages images = TestImages.fromSource();
    long t0 = System.nanoTime();
    images.server().get();
    images.repeater().get();
    long t1 = System.nanoTime();
    cluster =
        ZoolanderContainerCluster.builder()
            .images(images)
            .duplicates(3)
            .serversPerDuplicate(1)
            .repeaterJmx(JMX_CONSOLE)
            .zooKeeperIdentity("zoolander", "container-test-password") // the safe set-up
            .logConsumer(new Slf4jLogConsumer(LoggerFactory.getLogger("container")))
            .build();
    cluster.start();
    long t2 = System.nanoTime();
    LOG.info(
        "images built in {} ms; 3 duplicates and a repeater started in {} ms",
        TimeUnit.NANOSECONDS.toMillis(t1 - t0),
        TimeUnit.NANOSECONDS.toMillis(t2 - t1));
  }

  @AfterAll
  static void stopCluster() {
    if (cluster != null) {
      cluster.stop();
    }
  }

  @Test
  void servesFirstReplyReadsAndSequencedWritesThroughTheSdk() throws Exception {
    List<ReplyEvent> readReplies = new CopyOnWriteArrayList<>();
    try (ZoolanderClient client = cluster.clientBuilder().readPolicy(ReadPolicy.all()).build()) {
      client.addReplyListener(
          e -> {
            if (!e.write()) {
              readReplies.add(e);
            }
          });
      client.create("/rw", new byte[0]).get(30, TimeUnit.SECONDS);
      long lastSeq = 0;
      for (int i = 0; i < 20; i++) {
        WriteResult written = client.create("/rw/n" + i, bytes("v" + i)).get(30, TimeUnit.SECONDS);
        assertThat(written.seq())
            .as("one client's writes are sequenced in issue order")
            .isGreaterThan(lastSeq);
        lastSeq = written.seq();
      }
      for (int i = 0; i < 20; i++) {
        NodeData read = client.getData("/rw/n" + i).get(30, TimeUnit.SECONDS);
        assertThat(new String(read.data(), StandardCharsets.UTF_8)).isEqualTo("v" + i);
        assertThat(read.appliedSeq()).as("read-your-writes").isGreaterThanOrEqualTo(lastSeq);
      }
      // Every read went to all three duplicates; exactly one reply per read completed it.
      awaitCondition(
          () ->
              readReplies.stream()
                  .map(ReplyEvent::duplicateIndex)
                  .collect(Collectors.toSet())
                  .equals(Set.of(0, 1, 2)),
          "read replies from every duplicate: " + readReplies);
      Map<Long, Long> firsts =
          readReplies.stream()
              .filter(ReplyEvent::first)
              .collect(Collectors.groupingBy(ReplyEvent::requestId, Collectors.counting()));
      assertThat(firsts).hasSize(20).allSatisfy((request, count) -> assertThat(count).isEqualTo(1));

      // Each duplicate applied every write: identical trees at the same applied seq, read from each
      // ensemble.
      Map<Integer, TreeDigest> digests = cluster.awaitConverged(lastSeq, CONVERGE_TIMEOUT);
      digests.values().forEach(d -> assertThat(d.entries()).containsKeys("/rw/n0", "/rw/n19"));
    }
  }

  @Test
  void aPlainZooKeeperClientMayReadZoolandersZnodesButNotWriteThem() throws Exception {
    WriteResult written;
    try (ZoolanderClient client = cluster.clientBuilder().build()) {
      written = client.create("/guarded", bytes("by the plugins")).get(30, TimeUnit.SECONDS);
    }
    cluster.awaitConverged(written.seq(), CONVERGE_TIMEOUT);
    Znodes znodes = Znodes.defaults();
    String guarded = znodes.toZnode("/guarded");
    CountDownLatch connected = new CountDownLatch(1);
    ZooKeeper plain =
        new ZooKeeper(
            cluster.connectString(1),
            10_000,
            e -> {
              if (e.getState() == Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
              }
            });
    try {
      assertThat(connected.await(30, TimeUnit.SECONDS)).as("connected").isTrue();
      assertThat(new String(plain.getData(guarded, false, null), StandardCharsets.UTF_8))
          .isEqualTo("by the plugins");
      assertThatThrownBy(() -> plain.setData(guarded, bytes("behind its back"), -1))
          .isInstanceOf(KeeperException.NoAuthException.class);
      assertThatThrownBy(
              () ->
                  plain.create(
                      znodes.dataRoot() + "/rogue",
                      new byte[0],
                      ZooDefs.Ids.OPEN_ACL_UNSAFE,
                      CreateMode.PERSISTENT))
          .isInstanceOf(KeeperException.NoAuthException.class);
      assertThatThrownBy(() -> plain.setData(znodes.state(), new byte[1], -1))
          .isInstanceOf(KeeperException.NoAuthException.class);
    } finally {
      plain.close();
    }
  }

  @Test
  void aKilledDuplicateLosesNoAcknowledgedWriteAndConvergesAfterRestart() throws Exception {
    Map<String, String> acked = new LinkedHashMap<>();
    long lastSeq = 0;
    try (ZoolanderClient client = cluster.clientBuilder().readPolicy(ReadPolicy.all()).build()) {
      client.create("/kill", new byte[0]).get(30, TimeUnit.SECONDS);
      for (int i = 0; i < 60; i++) {
        if (i == 20) {
          cluster.killDuplicate(2); // docker kill: SIGKILL to its only server
          assertThat(cluster.servers(2).get(0).isRunning()).isFalse();
        } else if (i == 40) {
          cluster.restartDuplicate(
              2); // same container, data and ports; catches up from the repeater's log
          assertThat(cluster.servers(2).get(0).isHealthy()).isTrue();
        }
        String path = "/kill/n" + i;
        WriteResult written = client.create(path, bytes("v" + i)).get(30, TimeUnit.SECONDS);
        assertThat(written.seq()).isGreaterThan(lastSeq);
        lastSeq = written.seq();
        acked.put(path, "v" + i);
        if (i >= 20 && i < 40) {
          assertThat(written.duplicateId())
              .as("acked by a live duplicate while 2 is down")
              .isNotEqualTo(2);
        }
      }
      // Invariant 4 with 5: once writes stop, all three hold the same tree, including every
      // acknowledged write.
      Map<Integer, TreeDigest> digests = cluster.awaitConverged(lastSeq, CONVERGE_TIMEOUT);
      for (TreeDigest digest : digests.values()) {
        assertThat(digest.entries()).containsKeys(acked.keySet().toArray(String[]::new));
        assertThat(digest.state().appliedSeq()).isEqualTo(lastSeq);
      }
      for (Map.Entry<String, String> e : acked.entrySet()) {
        NodeData read = client.getData(e.getKey()).get(30, TimeUnit.SECONDS);
        assertThat(new String(read.data(), StandardCharsets.UTF_8)).isEqualTo(e.getValue());
      }
    }
  }

  @Test
  // BanJNDI: the point of the test is a JMX client connecting by URL to the local connector the
  // container publishes (RMI on the host's loopback); no user input is looked up.
  @SuppressWarnings("BanJNDI")
  void theRepeatersJmxConsoleIsReachable() throws Exception {
    assumeTrue(
        JMX_CONSOLE, "this build's `zoolander repeater` has no --jmx-port yet (the JMX console)");
    int port = cluster.repeater().jmxPort().orElseThrow();
    JMXServiceURL url =
        new JMXServiceURL("service:jmx:rmi:///jndi/rmi://127.0.0.1:" + port + "/jmxrmi");
    try (JMXConnector connector = JMXConnectorFactory.connect(url)) {
      MBeanServerConnection mbeans = connector.getMBeanServerConnection();
      assertThat(new TreeSet<>(List.of(mbeans.getDomains()))).contains("io.zoolander");
    }
  }

  private static boolean repeaterHasJmxPort() {
    StringWriter help = new StringWriter();
    ZoolanderCommand.execute(
        new String[] {"repeater", "--help"},
        new PrintWriter(help),
        new PrintWriter(new StringWriter()));
    return help.toString().contains("--jmx-port");
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static void awaitCondition(BooleanSupplier condition, String what) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("not within 30 s: " + what);
      }
      Thread.sleep(20);
    }
  }
}
