package io.zoolander.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zoolander.client.ReadPolicy;
import io.zoolander.client.ZoolanderClient;
import io.zoolander.client.ZoolanderException;
import io.zoolander.server.testing.EmbeddedCluster;
import io.zoolander.server.testing.TreeDigest;
import io.zoolander.server.testing.ZoolanderClusterExtension;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.LongPredicate;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The testing artifact as a user sees it: {@link ZoolanderClusterExtension} runs one embedded
 * cluster for this class and injects clients; {@link EmbeddedCluster}'s fault injection (a whole
 * duplicate down, anomalies) and {@link EmbeddedCluster#awaitConverged(Duration)}.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ZoolanderClusterExtensionIT {

  @RegisterExtension
  static final ZoolanderClusterExtension CLUSTER =
      ZoolanderClusterExtension.builder()
          .duplicates(2)
          .serversPerDuplicate(1)
          .client(b -> b.readPolicy(ReadPolicy.fixed(2)))
          .build();

  private static ZoolanderClient firstTestsClient;

  @Test
  @Order(1)
  void anInjectedClientWritesAndReads(ZoolanderClient client) throws Exception {
    firstTestsClient = client;
    assertThat(client.create("/extension", new byte[] {1, 2}).get(30, TimeUnit.SECONDS).succeeded())
        .isTrue();
    assertThat(client.getData("/extension").get(30, TimeUnit.SECONDS).data()).containsExactly(1, 2);
    assertThat(client.readConcurrency()).as("the builder's client settings apply").isEqualTo(2);
  }

  @Test
  @Order(2)
  void theLastTestsClientIsClosedAndTheClusterIsShared(EmbeddedCluster cluster) {
    assertThat(cluster).isSameAs(CLUSTER.cluster());
    assertThat(firstTestsClient).isNotNull();
    assertThatThrownBy(
            () -> firstTestsClient.create("/after", new byte[0]).get(30, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOf(ZoolanderException.class)
        .satisfies(
            e ->
                assertThat(((ZoolanderException) e).code())
                    .isEqualTo(KeeperException.Code.CONNECTIONLOSS));
  }

  @Test
  @Order(3)
  void aDuplicateKilledWholeCatchesUpOnRestartAndTheDuplicatesConverge(ZoolanderClient client)
      throws Exception {
    EmbeddedCluster cluster = CLUSTER.cluster();
    cluster.killDuplicate(2);
    assertThat(cluster.duplicate(2).isRunning(1)).isFalse();
    for (int i = 0; i < 20; i++) {
      assertThat(
              client
                  .create("/while-2-was-down-" + i, new byte[] {(byte) i})
                  .get(30, TimeUnit.SECONDS)
                  .succeeded())
          .isTrue();
    }
    cluster.restartDuplicate(2);
    Map<Integer, TreeDigest> digests = cluster.awaitConverged(Duration.ofSeconds(60));
    assertThat(digests).containsOnlyKeys(1, 2);
    assertThat(digests.get(2)).isEqualTo(digests.get(1));
    assertThat(digests.get(2).state().appliedSeq()).isEqualTo(cluster.repeater().nextSeq() - 1);
    assertThat(digests.get(2).entries()).containsKey("/while-2-was-down-19");
  }

  @Test
  @Order(4)
  void anomaliesAreInjectedAndCleared(ZoolanderClient client) throws Exception {
    EmbeddedCluster cluster = CLUSTER.cluster();
    assertThatThrownBy(() -> cluster.injectAnomaly(1, "probability=2"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(cluster.anomaly(1)).isEmpty();

    cluster.injectAnomaly(1, "probability=0.5;delayMs=5");
    assertThat(cluster.anomaly(1)).contains("probability=0.5;delayMs=5");
    assertThat(cluster.anomaly(2)).isEmpty();
    cluster.clearAnomaly(1);
    assertThat(cluster.anomaly(1)).isEmpty();

    // Every read slowed by 300 ms on both duplicates: a first-reply read cannot be faster.
    String slowReads = "probability=1;delayMs=300;applies=reads";
    cluster.injectAnomalyEverywhere(slowReads);
    assertThat(cluster.anomaly(1)).contains(slowReads);
    assertThat(cluster.anomaly(2)).contains(slowReads);
    assertThat(awaitReadTime(client, ms -> ms >= 300)).isGreaterThanOrEqualTo(300);
    cluster.clearAnomalyEverywhere();
    assertThat(cluster.anomaly(1)).isEqualTo(Optional.empty());
    assertThat(cluster.anomaly(2)).isEqualTo(Optional.empty());
    assertThat(awaitReadTime(client, ms -> ms < 300)).isLessThan(300);
  }

  /**
   * Reads until one read's time satisfies {@code until} (the plugins follow the anomaly znode
   * asynchronously).
   */
  private static long awaitReadTime(ZoolanderClient client, LongPredicate until) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (true) {
      long start = System.nanoTime();
      client.exists("/extension").get(30, TimeUnit.SECONDS);
      long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      if (until.test(ms) || System.nanoTime() > deadline) {
        return ms;
      }
      Thread.sleep(50);
    }
  }
}
