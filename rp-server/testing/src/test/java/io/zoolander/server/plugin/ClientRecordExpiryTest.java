package io.zoolander.server.plugin;

import static io.zoolander.testsupport.Await.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.zoolander.client.ZoolanderClient;
import io.zoolander.server.testing.EmbeddedCluster;
import io.zoolander.server.testing.ServerMode;
import io.zoolander.server.testing.TreeDigest;
import io.zoolander.testsupport.ZooKeepers;
import io.zoolander.wire.Op;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A client that stops writing loses its record on every duplicate once the retention has passed
 * (here the shortest, 1 s), and a later write of the same client id is applied alike everywhere.
 * Two in-process duplicates with a repeater.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class ClientRecordExpiryTest {
  private static final Duration WAIT = Duration.ofSeconds(60);

  @Test
  void theRecordOfAClientGoneLongerThanTheRetentionIsDeletedEverywhere() throws Exception {
    try (EmbeddedCluster cluster =
        EmbeddedCluster.builder()
            .duplicates(2)
            .serverMode(ServerMode.IN_PROCESS)
            .duplicateProperty(1, ZoolanderPluginConfig.CLIENT_RECORD_RETENTION_MS_KEY, "1000")
            .duplicateProperty(2, ZoolanderPluginConfig.CLIENT_RECORD_RETENTION_MS_KEY, "1000")
            .start()) {
      long clientId;
      try (ZoolanderClient client = cluster.newClient()) {
        clientId = client.clientId();
        assertThat(
                client
                    .writeAll(List.of(Op.create("/a", new byte[0])))
                    .get(30, TimeUnit.SECONDS)
                    .succeeded())
            .isTrue();
      }
      String record = cluster.znodes().client(clientId);
      for (int id : cluster.duplicateIds()) {
        ZooKeeper zk = ZooKeepers.connect(cluster.duplicate(id).connectString());
        try {
          await(WAIT, "duplicate " + id + " deleted the record", () -> absent(zk, record));
        } finally {
          zk.close();
        }
      }
      try (ZoolanderClient again = cluster.clientBuilder().clientId(clientId).build()) {
        assertThat(again.create("/b", new byte[0]).get(30, TimeUnit.SECONDS).succeeded()).isTrue();
      }
      Map<Integer, TreeDigest> digests = cluster.awaitConverged(WAIT);
      assertThat(digests.get(2)).isEqualTo(digests.get(1));
      assertThat(digests.get(1).entries()).containsKeys("/a", "/b");
    }
  }

  private static boolean absent(ZooKeeper zk, String path) {
    try {
      return zk.exists(path, false) == null;
    } catch (KeeperException e) {
      throw new IllegalStateException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
