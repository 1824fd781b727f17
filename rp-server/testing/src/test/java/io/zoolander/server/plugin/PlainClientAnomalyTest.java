package io.zoolander.server.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import io.zoolander.client.ZoolanderClient;
import io.zoolander.server.testing.EmbeddedCluster;
import io.zoolander.testsupport.ZooKeepers;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The anomaly injector slows plain ZooKeeper clients of a duplicate too (so the benchmark compares
 * like with like), on a real one-server duplicate: a plain read is held as long as the injector
 * says, and not at all when it is off; a session's pipelined requests still come back in order;
 * Zoolander's own reads are slowed once, not twice.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class PlainClientAnomalyTest {

  /** The injected delay: far above a loopback read, so "held" and "not held" cannot be confused. */
  private static final long DELAY_MS = 1_500;

  private static EmbeddedCluster cluster;
  private static ZooKeeper zk;

  @BeforeAll
  static void start() throws Exception {
    cluster = EmbeddedCluster.builder().duplicates(1).start();
    zk =
        ZooKeepers.connect(
            cluster.duplicate(1).connectString(), Duration.ofSeconds(30), Duration.ofSeconds(30));
    zk.create(
        "/plain",
        "v".getBytes(StandardCharsets.UTF_8),
        ZooDefs.Ids.OPEN_ACL_UNSAFE,
        CreateMode.PERSISTENT);
  }

  @AfterAll
  static void stop() throws InterruptedException {
    if (zk != null) {
      zk.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  /**
   * @return milliseconds one synchronous plain read of {@code /plain} took
   */
  private static long plainReadMs() throws Exception {
    long t0 = System.nanoTime();
    zk.getData("/plain", false, null);
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
  }

  /**
   * Waits until the plugin follows the record just written (its watch is asynchronous): a plain
   * read is held at least {@code delayMs}.
   */
  private static void awaitHeldRead(long delayMs) throws Exception {
    for (int attempt = 0; attempt < 30; attempt++) {
      if (plainReadMs() >= delayMs) {
        return;
      }
      Thread.sleep(50);
    }
    throw new AssertionError(
        "no plain read was held within 30 attempts after turning the injector on");
  }

  /**
   * Asserts that, once the plugin follows the injector's removal, five reads in a row are not held.
   */
  private static void assertReadsNotHeld() throws Exception {
    int inARow = 0;
    for (int attempt = 0; attempt < 30 && inARow < 5; attempt++) {
      inARow = plainReadMs() < DELAY_MS ? inARow + 1 : 0;
    }
    assertThat(inARow).as("plain reads in a row not held with the injector off").isEqualTo(5);
  }

  @BeforeEach
  void injectorOff() throws Exception {
    cluster.clearAnomaly(1);
    assertReadsNotHeld();
  }

  @Test
  void plainReadsAreHeldWhileTheInjectorSaysSoAndOnlyThen() throws Exception {
    try (ZoolanderClient client = cluster.newClient()) {
      client.create("/rp", "v".getBytes(StandardCharsets.UTF_8)).get(30, TimeUnit.SECONDS);
      client
          .getData("/rp")
          .get(30, TimeUnit.SECONDS); // connected to the plugin before the injector is on

      cluster.injectAnomaly(1, "probability=1;delayMs=" + DELAY_MS + ";applies=reads");
      awaitHeldRead(DELAY_MS);
      for (int i = 0; i < 3; i++) {
        assertThat(plainReadMs()).as("injector on").isGreaterThanOrEqualTo(DELAY_MS);
      }
      long t0 = System.nanoTime();
      zk.setData("/plain", "w".getBytes(StandardCharsets.UTF_8), -1);
      assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0))
          .as("a write, when only reads are slowed")
          .isLessThan(DELAY_MS);

      // The plugin holds its READ_REPLY once; its own ZooKeeper session must not be held a second
      // time.
      t0 = System.nanoTime();
      client.getData("/rp").get(30, TimeUnit.SECONDS);
      assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0))
          .as("a Zoolander read")
          .isBetween(DELAY_MS, 2 * DELAY_MS - 1);
    }
    cluster.clearAnomaly(1);
    assertReadsNotHeld();
  }

  @Test
  void aSessionsPipelinedRequestsStillComeBackInOrderWhenSomeAreHeld() throws Exception {
    long delayMs = 300;
    cluster.injectAnomaly(1, "probability=0.5;delayMs=" + delayMs);
    awaitHeldRead(delayMs);
    long t0 = System.nanoTime();
    List<CompletableFuture<Integer>> replies = new ArrayList<>();
    List<Integer> order = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      CompletableFuture<Integer> reply = new CompletableFuture<>();
      replies.add(reply);
      int n = i;
      if (i % 4 == 0) {
        zk.setData(
            "/plain",
            new byte[] {(byte) i},
            -1,
            (rc, path, ctx, stat) -> {
              synchronized (order) {
                order.add(n);
              }
              reply.complete(rc);
            },
            null);
      } else {
        zk.getData(
            "/plain",
            false,
            (rc, path, ctx, data, stat) -> {
              synchronized (order) {
                order.add(n);
              }
              reply.complete(rc);
            },
            null);
      }
    }
    CompletableFuture.allOf(replies.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0))
        .as("some were held")
        .isGreaterThanOrEqualTo(delayMs);
    // A reply out of order would have made the client drop the connection: CONNECTIONLOSS for the
    // rest.
    assertThat(replies).allSatisfy(r -> assertThat(r.join()).isEqualTo(Code.OK.intValue()));
    synchronized (order) {
      assertThat(order).isSorted().hasSize(40);
    }
  }
}
