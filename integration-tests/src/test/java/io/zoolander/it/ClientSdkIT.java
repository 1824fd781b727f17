package io.zoolander.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.zoolander.client.InconsistencyEvent;
import io.zoolander.client.NodeData;
import io.zoolander.client.ReadPolicy;
import io.zoolander.client.WriteResult;
import io.zoolander.client.ZoolanderClient;
import io.zoolander.server.testing.EmbeddedCluster;
import io.zoolander.testsupport.ZooKeepers;
import io.zoolander.wire.BookkeepingState;
import io.zoolander.wire.Op;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The client SDK on real ZooKeeper ensembles with the plugin and a real repeater. Slowness is
 * injected on the server side with the anomaly injector (the {@code <base>/anomaly} znode of a
 * duplicate), so the client measures it like a real anomaly. Every test uses its own paths on one
 * shared deployment of three single-server duplicates.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class ClientSdkIT {
  private static EmbeddedCluster cluster;

  @BeforeAll
  static void startCluster() throws Exception {
    // Duplicate 2 only logs a write behind Zoolander's back instead of fencing itself, so that the
    // divergence the next test injects there reaches the client's own detection (ForeignWriteTest
    // shows the default: fenced and repaired).
    cluster =
        EmbeddedCluster.builder()
            .duplicates(3)
            .duplicateProperty(2, "zoolander.plugin.fenceOnForeignWrite", "false")
            .start();
  }

  @AfterAll
  static void stopCluster() {
    cluster.close();
  }

  @AfterEach
  void calm() throws Exception {
    for (int id : cluster.duplicateIds()) {
      setAnomaly(id, null);
    }
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static ZooKeeper connect(int duplicate) throws Exception {
    ZooKeeper zk =
        ZooKeepers.connect(
            cluster.duplicate(duplicate).connectString(),
            Duration.ofSeconds(30),
            Duration.ofSeconds(30));
    return zk;
  }

  /** Sets (or with null, clears) a duplicate's anomaly injector through its znode. */
  private static void setAnomaly(int duplicate, String settings) throws Exception {
    if (settings == null) {
      cluster.clearAnomaly(duplicate);
    } else {
      cluster.injectAnomaly(duplicate, settings);
    }
  }

  private static long appliedSeq(int duplicate) throws Exception {
    try (ZooKeeper zk = connect(duplicate)) {
      return BookkeepingState.decode(zk.getData(cluster.znodes().state(), false, null))
          .appliedSeq();
    }
  }

  @Test
  void readYourWritesHoldsWhileOneDuplicateLagsBehind() throws Exception {
    try (ZoolanderClient client = cluster.clientBuilder().readPolicy(ReadPolicy.all()).build()) {
      client.create("/ryw", utf8("0")).get(30, TimeUnit.SECONDS);
      setAnomaly(2, "probability=1;delayMs=300;distribution=fixed;applies=writes");
      for (int i = 1; i <= 20; i++) {
        WriteResult w =
            client.setData("/ryw", utf8(Integer.toString(i)), -1).get(30, TimeUnit.SECONDS);
        NodeData read = client.getData("/ryw").get(30, TimeUnit.SECONDS);
        assertThat(new String(read.data(), StandardCharsets.UTF_8))
            .as("read after write %d", i)
            .isEqualTo(Integer.toString(i));
        assertThat(read.appliedSeq()).isGreaterThanOrEqualTo(w.seq());
      }
      // The scenario really happened: duplicate 2 (each write stalled 300 ms) is still behind what
      // the client read.
      assertThat(appliedSeq(2)).isLessThan(client.lastSeenSeq());
    }
  }

  @Test
  void aReadIsAnsweredByAFastDuplicateWhileAnotherIsSlow() throws Exception {
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    try (ZoolanderClient client =
        cluster.clientBuilder().readPolicy(ReadPolicy.all()).meterRegistry(meters).build()) {
      client.writeAll(List.of(Op.create("/fast", utf8("v")))).get(30, TimeUnit.SECONDS);
      setAnomaly(1, "probability=1;delayMs=1000;distribution=fixed;applies=reads");
      for (int i = 0; i < 20; i++) {
        NodeData read = client.getData("/fast").get(30, TimeUnit.SECONDS);
        assertThat(read.duplicateId()).as("read %d answered by", i).isNotEqualTo(1);
      }
      assertThat(meters.get("zoolander.client.read.wins").tag("duplicate", "0").counter().count())
          .isZero();
    }
  }

  @Test
  void writeAllReturnsOnlyOnceEveryDuplicateApplied() throws Exception {
    try (ZoolanderClient client = cluster.newClient()) {
      setAnomaly(3, "probability=1;delayMs=300;distribution=fixed;applies=writes");
      WriteResult w =
          client.writeAll(List.of(Op.create("/all", utf8("x")))).get(30, TimeUnit.SECONDS);
      for (int id : cluster.duplicateIds()) {
        assertThat(appliedSeq(id)).as("duplicate %d", id).isGreaterThanOrEqualTo(w.seq());
      }
    }
  }

  @Test
  void anInjectedDivergenceIsDetectedAndReported() throws Exception {
    List<InconsistencyEvent> events = new CopyOnWriteArrayList<>();
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    try (ZoolanderClient client =
        cluster.clientBuilder().readPolicy(ReadPolicy.all()).meterRegistry(meters).build()) {
      client.addInconsistencyListener(events::add);
      client.writeAll(List.of(Op.create("/diverged", utf8("same")))).get(30, TimeUnit.SECONDS);
      try (ZooKeeper zk = connect(2)) { // a write made around Zoolander, on one duplicate only
        zk.setData(cluster.znodes().toZnode("/diverged"), utf8("different"), -1);
      }
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (events.isEmpty() && System.nanoTime() < deadline) {
        client.getData("/diverged").get(30, TimeUnit.SECONDS);
        Thread.sleep(20); // losing replies arrive after the first one completes the read
      }
      assertThat(events).isNotEmpty();
      assertThat(events.get(0).what()).isEqualTo("/diverged");
      assertThat(events.get(0).duplicateIds()).contains(2);
      assertThat(meters.counter("zoolander.client.inconsistencies").count()).isPositive();
    }
  }

  @Test
  void aWriteRetriedAfterItsReplyWasLateIsAppliedOnce() throws Exception {
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    try (ZoolanderClient client =
        cluster
            .clientBuilder()
            .writeRetryDelay(Duration.ofMillis(200))
            .meterRegistry(meters)
            .build()) {
      client.writeAll(List.of(Op.create("/once", utf8("0")))).get(30, TimeUnit.SECONDS);
      for (int id : cluster.duplicateIds()) {
        setAnomaly(id, "probability=1;delayMs=700;distribution=fixed;applies=writes");
      }
      WriteResult w = client.setData("/once", utf8("1"), -1).get(30, TimeUnit.SECONDS);
      assertThat(w.succeeded()).isTrue();
      assertThat(meters.get("zoolander.client.retries").tag("op", "write").counter().count())
          .isPositive();
      for (int id : cluster.duplicateIds()) {
        setAnomaly(id, null);
      }
      client.barrier(cluster.repeater().nextSeq() - 1).get(30, TimeUnit.SECONDS);
      for (int id : cluster.duplicateIds()) {
        try (ZooKeeper zk = connect(id)) {
          Stat stat = new Stat();
          zk.getData(cluster.znodes().toZnode("/once"), false, stat);
          assertThat(stat.getVersion())
              .as("duplicate %d: the retried setData applied once", id)
              .isEqualTo(1);
        }
      }
    }
  }

  @Test
  void adaptiveConcurrencyRisesUnderInjectedVariationAndFallsWhenItStops() throws Exception {
    try (ZoolanderClient client =
        cluster
            .clientBuilder()
            .readPolicy(
                ReadPolicy.adaptiveBuilder()
                    .windowReads(20)
                    .raiseAt(0.05, 5)
                    .lowerBelow(0.01, 3)
                    .build())
            .build()) {
      client.writeAll(List.of(Op.create("/adaptive", utf8("v")))).get(30, TimeUnit.SECONDS);
      assertThat(client.readConcurrency()).isEqualTo(1);
      for (int id : cluster.duplicateIds()) {
        setAnomaly(id, "probability=0.3;delayMs=30;distribution=fixed;applies=reads;seed=" + id);
      }
      int reads = 0;
      while (client.readConcurrency() < 3 && reads < 2_000) {
        client.getData("/adaptive").get(30, TimeUnit.SECONDS);
        reads++;
      }
      assertThat(client.readConcurrency())
          .as("C after %d reads with variation", reads)
          .isEqualTo(3);
      for (int id : cluster.duplicateIds()) {
        setAnomaly(id, null);
      }
      reads = 0;
      while (client.readConcurrency() > 1 && reads < 2_000) {
        client.getData("/adaptive").get(30, TimeUnit.SECONDS);
        reads++;
      }
      assertThat(client.readConcurrency()).as("C after %d calm reads", reads).isEqualTo(1);
    }
  }
}
