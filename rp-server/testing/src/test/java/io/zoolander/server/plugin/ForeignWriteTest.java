package io.zoolander.server.plugin;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.zoolander.client.ReadPolicy;
import io.zoolander.client.ZoolanderClient;
import io.zoolander.server.jmx.MeterNames;
import io.zoolander.server.repeater.DuplicateView;
import io.zoolander.server.repeater.Rejoin;
import io.zoolander.server.repeater.RepeaterListener;
import io.zoolander.server.testing.EmbeddedCluster;
import io.zoolander.server.testing.ServerMode;
import io.zoolander.server.testing.TreeDigest;
import io.zoolander.testsupport.Await;
import io.zoolander.testsupport.ZooKeepers;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs.Ids;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A plain ZooKeeper client writes a duplicate's data root behind Zoolander's back (issue 19, item
 * 11): the plugin on that duplicate's leader sees the write, counts it and fences the duplicate, so
 * that it serves no stale or foreign data, and the repeater repairs it by state transfer: the
 * duplicates hold the same tree again, without the foreign write.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class ForeignWriteTest {
  private static final Duration WAIT = Duration.ofSeconds(60);

  private final List<String> fenced = new CopyOnWriteArrayList<>();
  private final List<Integer> rejoined = new CopyOnWriteArrayList<>();
  private final List<String> failures = new CopyOnWriteArrayList<>();
  private final RepeaterListener listener =
      new RepeaterListener() {
        @Override
        public void duplicateFenced(DuplicateView duplicate, String reason) {
          fenced.add(duplicate.id() + ": " + reason);
        }

        @Override
        public void duplicateRejoined(Rejoin rejoin) {
          rejoined.add(rejoin.duplicateId());
        }

        @Override
        public void rejoinFailed(int duplicateId, String reason) {
          failures.add(duplicateId + ": " + reason);
        }
      };

  @Test
  void aWriteOutsideTheStreamFencesTheDuplicateAndATransferRepairsIt() throws Exception {
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    Metrics.addRegistry(meters);
    try (EmbeddedCluster cluster = twoDuplicates();
        ZoolanderClient client = startRepeaterAndConnect(cluster)) {
      assertThat(client.create("/config", "v1".getBytes(UTF_8)).get(30, TimeUnit.SECONDS).seq())
          .isPositive();
      client.barrier().get(30, TimeUnit.SECONDS);
      double before = counted();
      String dataRoot = cluster.znodes().dataRoot();
      try (ZooKeeper plain = ZooKeepers.connect(cluster.duplicate(1).connectString())) {
        plain.setData(dataRoot + "/config", "behind its back".getBytes(UTF_8), -1);
      }

      Await.await(
          WAIT,
          "the foreign write seen, and duplicate 1 fenced and rejoined",
          () -> counted() > before && !fenced.isEmpty() && rejoined.contains(1),
          () -> fenced + " " + rejoined + " " + cluster.repeater().duplicates());
      assertThat(counted() - before).as("foreign writes counted").isEqualTo(1);
      assertThat(fenced).as("only duplicate 1 fenced").allMatch(f -> f.startsWith("1: "));
      // The repeater rejoins it by state transfer: both hold duplicate 2's tree again.
      client.setData("/config", "v2".getBytes(UTF_8), -1).get(30, TimeUnit.SECONDS);
      Await.await(
          WAIT,
          "duplicate 1 repaired and streaming",
          () -> {
            DuplicateView d = cluster.repeater().duplicate(1);
            return !d.fenced() && d.ackedSeq() >= cluster.repeater().nextSeq() - 1;
          },
          () -> cluster.repeater().duplicates().toString());
      Map<Integer, TreeDigest> digests = cluster.awaitConverged(WAIT);
      assertThat(new HashSet<>(digests.values())).hasSize(1);
      try (ZooKeeper plain = ZooKeepers.connect(cluster.duplicate(1).connectString())) {
        assertThat(new String(plain.getData(dataRoot + "/config", false, null), UTF_8))
            .isEqualTo("v2");
      }
    } finally {
      Metrics.removeRegistry(meters);
    }
  }

  /**
   * The foreign write fences duplicate 1 while duplicate 2 is down: the automatic rejoin has no
   * source and fails. It is tried again until duplicate 2 is back, and then repairs duplicate 1
   * (before the retry, duplicate 1 stayed fenced for good).
   */
  @Test
  void anAutomaticRejoinWithoutASourceIsTriedAgainUntilOneIsBack() throws Exception {
    try (EmbeddedCluster cluster = twoDuplicates();
        ZoolanderClient client = startRepeaterAndConnect(cluster)) {
      client.create("/config", "v1".getBytes(UTF_8)).get(30, TimeUnit.SECONDS);
      cluster.awaitConverged(WAIT);
      cluster.killDuplicate(2);
      try (ZooKeeper plain = ZooKeepers.connect(cluster.duplicate(1).connectString())) {
        plain.setData(
            cluster.znodes().dataRoot() + "/config", "behind its back".getBytes(UTF_8), -1);
      }
      Await.await(
          WAIT,
          "duplicate 1's automatic rejoin failed for want of a source",
          () -> failures.stream().anyMatch(f -> f.startsWith("1: ")),
          () -> failures + " " + cluster.repeater().duplicates());
      assertThat(rejoined).isEmpty();

      cluster.duplicate(2).start();
      Await.await(
          WAIT,
          "duplicate 1 rejoined from duplicate 2 once it was back",
          () -> rejoined.contains(1) && !cluster.repeater().duplicate(1).fenced(),
          () -> failures + " " + rejoined + " " + cluster.repeater().duplicates());
      Map<Integer, TreeDigest> digests = cluster.awaitConverged(WAIT);
      assertThat(new HashSet<>(digests.values())).hasSize(1);
      try (ZooKeeper plain = ZooKeepers.connect(cluster.duplicate(1).connectString())) {
        assertThat(
                new String(
                    plain.getData(cluster.znodes().dataRoot() + "/config", false, null), UTF_8))
            .isEqualTo("v1");
      }
    }
  }

  /**
   * Chaos seed 1086: a foreign write fenced duplicate 1, its leader died before a state transfer
   * repaired it, and the next plugin knew nothing of the fence; the next repeater (a failover)
   * resumed it at its applied seq and the foreign znode stayed for good. The fence is now recorded
   * in the duplicate's ensemble: after a restart the plugin starts fenced, the next repeater
   * repairs it by state transfer, and the transfer removes the record. (The first repeater does not
   * rejoin by itself here, so that the fence is still there when duplicate 1 restarts.)
   */
  @Test
  void aFenceOutlivesARestartOfTheDuplicateUntilATransferRepairsIt() throws Exception {
    try (EmbeddedCluster cluster =
        EmbeddedCluster.builder()
            .duplicates(3)
            .serverMode(ServerMode.IN_PROCESS)
            .startRepeater(false)
            .start()) {
      cluster.startRepeater(b -> b.autoRejoin(false).listener(listener));
      String dataRoot = cluster.znodes().dataRoot();
      try (ZoolanderClient client = cluster.clientBuilder().readPolicy(ReadPolicy.all()).build()) {
        client.create("/config", "v1".getBytes(UTF_8)).get(30, TimeUnit.SECONDS);
        cluster.awaitConverged(WAIT);
        try (ZooKeeper plain = ZooKeepers.connect(cluster.duplicate(1).connectString())) {
          plain.create(
              dataRoot + "/behind-its-back",
              new byte[0],
              Ids.OPEN_ACL_UNSAFE,
              CreateMode.PERSISTENT);
        }
        Await.await(
            WAIT,
            "duplicate 1 fenced, and its fence recorded",
            () -> cluster.repeater().duplicate(1).fenced() && fenceRecord(cluster) != null,
            () -> fenced + " " + cluster.repeater().duplicates());
        assertThat(fenceRecord(cluster)).contains("behind-its-back");
      }

      cluster.killRepeater();
      cluster.restartDuplicate(1);
      cluster.startRepeater(b -> b.listener(listener));
      try (ZoolanderClient client = cluster.clientBuilder().readPolicy(ReadPolicy.all()).build()) {
        client.setData("/config", "v2".getBytes(UTF_8), -1).get(30, TimeUnit.SECONDS);
        Await.await(
            WAIT,
            "duplicate 1 repaired by the new repeater and streaming",
            () -> {
              DuplicateView d = cluster.repeater().duplicate(1);
              return rejoined.contains(1)
                  && !d.fenced()
                  && d.ackedSeq() >= cluster.repeater().nextSeq() - 1;
            },
            () -> fenced + " " + rejoined + " " + cluster.repeater().duplicates());
        Map<Integer, TreeDigest> digests = cluster.awaitConverged(WAIT);
        assertThat(new HashSet<>(digests.values())).hasSize(1);
        assertThat(fenceRecord(cluster)).as("the record, after the repair").isNull();
        try (ZooKeeper plain = ZooKeepers.connect(cluster.duplicate(1).connectString())) {
          assertThat(plain.exists(dataRoot + "/behind-its-back", false)).isNull();
          assertThat(new String(plain.getData(dataRoot + "/config", false, null), UTF_8))
              .isEqualTo("v2");
        }
      }
    }
  }

  /** Duplicate 1's fence record, or null. */
  private static String fenceRecord(EmbeddedCluster cluster) {
    try (ZooKeeper plain = ZooKeepers.connect(cluster.duplicate(1).connectString())) {
      return new String(plain.getData(cluster.znodes().fenceRecord(), false, null), UTF_8);
    } catch (KeeperException.NoNodeException e) {
      return null;
    } catch (Exception e) {
      throw new IllegalStateException("cannot read duplicate 1's fence record", e);
    }
  }

  private static EmbeddedCluster twoDuplicates() throws Exception {
    return EmbeddedCluster.builder()
        .duplicates(2)
        .serverMode(ServerMode.IN_PROCESS)
        .startRepeater(false)
        .start();
  }

  private ZoolanderClient startRepeaterAndConnect(EmbeddedCluster cluster) throws Exception {
    cluster.startRepeater(b -> b.listener(listener));
    return cluster.clientBuilder().readPolicy(ReadPolicy.all()).build();
  }

  private static double counted() {
    return Metrics.globalRegistry.find(MeterNames.PLUGIN_WRITES_FOREIGN).functionCounters().stream()
        .mapToDouble(FunctionCounter::count)
        .sum();
  }
}
