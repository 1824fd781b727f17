package io.zoolander.server.testing;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.zoolander.client.ZoolanderClient;
import io.zoolander.wire.Op;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The examples of docs/getting-started.md, written here as the page shows them (with JUnit's own
 * assertions, as a user's test would): when one of them changes, change the page too.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class GettingStartedTest {

  @RegisterExtension
  static final ZoolanderClusterExtension CLUSTER =
      ZoolanderClusterExtension.builder().duplicates(2).serverMode(ServerMode.IN_PROCESS).build();

  @Test
  void readsItsOwnWrite(ZoolanderClient client) {
    client.create("/greeting", "hello".getBytes(UTF_8)).join();
    assertArrayEquals("hello".getBytes(UTF_8), client.getData("/greeting").join().data());
  }

  @Test
  void everyDuplicateHoldsTheSameTree(EmbeddedCluster cluster, ZoolanderClient client)
      throws Exception {
    client.create("/config", "v1".getBytes(UTF_8)).join();
    client
        .writeAll(List.of(Op.setData("/config", "v2".getBytes(UTF_8), -1)))
        .join(); // applied everywhere
    Map<Integer, TreeDigest> digests = cluster.awaitConverged(Duration.ofSeconds(30));
    assertEquals(2, digests.size());
    assertEquals(1, new HashSet<>(digests.values()).size());
  }

  @Test
  void anEmbeddedClusterWithoutTheExtension() throws Exception {
    try (EmbeddedCluster cluster =
            EmbeddedCluster.builder().duplicates(2).serverMode(ServerMode.IN_PROCESS).start();
        ZoolanderClient client = cluster.newClient()) {
      client.create("/x", new byte[] {1}).join();
      cluster.killDuplicate(2); // every server of duplicate 2, abruptly
      client.setData("/x", new byte[] {2}, -1).join(); // answered by duplicate 1
      cluster.restartDuplicate(2); // catches up from the repeater's log
      cluster.awaitConverged(Duration.ofSeconds(30)); // both hold the same tree again
      assertArrayEquals(new byte[] {2}, client.getData("/x").join().data());
    }
  }
}
