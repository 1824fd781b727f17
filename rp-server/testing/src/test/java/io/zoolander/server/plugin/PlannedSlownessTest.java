package io.zoolander.server.plugin;

import static io.zoolander.server.plugin.PluginTestSupport.awaitEndpoint;
import static org.assertj.core.api.Assertions.assertThat;

import io.zoolander.server.testing.ZooKeeperEnsemble;
import io.zoolander.testsupport.ScriptedPeer;
import io.zoolander.wire.Message;
import io.zoolander.wire.PluginEndpoint;
import io.zoolander.wire.Role;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Planned slowness, plugin side: a duplicate whose ZooKeeper server snapshots every few
 * transactions (a low {@code zookeeper.snapCount}, child JVM) tells its connected clients when each
 * snapshot starts, with the configured maximum, and when it ends.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class PlannedSlownessTest {

  private static final int DUPLICATE_ID = 11;

  @Test
  void thePluginAnnouncesEachSnapshotToItsClientsAndItsEnd() throws Exception {
    ZooKeeperEnsemble ensemble = null;
    ZooKeeper zk = null;
    try {
      ensemble =
          PluginTestSupport.ensemble(1, DUPLICATE_ID)
              .property("zoolander.plugin.plannedSlownessMaxMs", "3000")
              .jvmArgs("-Dzookeeper.snapCount=10")
              .start();
      zk = PluginTestSupport.connect(ensemble.connectString());
      PluginEndpoint endpoint = awaitEndpoint(zk, ensemble, e -> true);
      try (ScriptedPeer client = ScriptedPeer.hello(endpoint, Role.CLIENT, "301")) {
        zk.create("/snapshot-me", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
        for (int i = 0; i < 30; i++) { // 10 is enough for at least one snapshot; bounded
          zk.setData("/snapshot-me", new byte[] {(byte) i}, -1);
        }
        Message.PlannedSlowness start = client.nextOf(Message.PlannedSlowness.class);
        assertThat(start).isEqualTo(new Message.PlannedSlowness(DUPLICATE_ID, 3_000));
        Message.PlannedSlowness end = client.nextOf(Message.PlannedSlowness.class);
        assertThat(end.ended()).isTrue();
        assertThat(end.duplicateId()).isEqualTo(DUPLICATE_ID);
      }
    } finally {
      PluginTestSupport.close(zk, ensemble);
    }
  }
}
