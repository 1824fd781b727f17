package io.zoolander.testcontainers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zoolander.client.NodeData;
import io.zoolander.client.PartitionedClient;
import io.zoolander.client.Partitioning;
import io.zoolander.client.ReadPolicy;
import io.zoolander.client.WriteResult;
import io.zoolander.client.ZoolanderException;
import io.zoolander.server.testing.TreeDigest;
import io.zoolander.testsupport.Docker;
import io.zoolander.wire.ErrorCode;
import io.zoolander.wire.Op;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.containers.output.Slf4jLogConsumer;
import org.testcontainers.junit.jupiter.Testcontainers;

/**
 * A partitioned deployment in containers built from docker/ and this build's jar: two partitions of
 * two one-server duplicates each, every partition its own repeater. Writes through one {@link
 * PartitionedClient} land in their own partition's duplicates and in no other's, read from each
 * ensemble. Skips without a Docker engine (.ci/docker-up starts one here).
 */
@Testcontainers(disabledWithoutDocker = true)
@Docker
class ZoolanderContainerPartitionsTest {
  private static final Logger LOG = LoggerFactory.getLogger(ZoolanderContainerPartitionsTest.class);

  private static final Duration CONVERGE_TIMEOUT = Duration.ofSeconds(60);

  /** {@code orders} in partition 1; {@code users} and every unrouted name in 0, the default. */
  private static final Partitioning PARTITIONING =
      Partitioning.builder().partitions(2).route("orders", 1).route("users", 0).build();

  private static ZoolanderContainerPartitions deployment;

  @BeforeAll
  static void startDeployment() {
    ZoolanderImages images = TestImages.fromSource();
    deployment =
        ZoolanderContainerPartitions.builder()
            .images(images)
            .partitioning(PARTITIONING)
            .eachPartition(
                (partition, cluster) ->
                    cluster
                        .duplicates(2)
                        .serversPerDuplicate(1)
                        .logConsumer(
                            new Slf4jLogConsumer(
                                LoggerFactory.getLogger("container.partition-" + partition))))
            .build();
    long t0 = System.nanoTime();
    deployment.start();
    LOG.info(
        "2 partitions of 2 duplicates and a repeater each started in {} ms (images included)",
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
  }

  @AfterAll
  static void stopDeployment() {
    if (deployment != null) {
      deployment.stop();
    }
  }

  @Test
  void eachWriteLandsInItsPartitionsDuplicatesOnly() throws Exception {
    // The paths each partition must hold once the writes are applied: its top-level names'
    // subtrees, and the data root itself ("/").
    List<Set<String>> expected = List.of(new TreeSet<>(Set.of("/")), new TreeSet<>(Set.of("/")));
    long[] lastSeq = new long[2];
    try (PartitionedClient client =
        deployment.newClient((partition, builder) -> builder.readPolicy(ReadPolicy.all()))) {
      List<String> paths = new ArrayList<>(List.of("/orders", "/users", "/audit"));
      for (int i = 0; i < 10; i++) {
        paths.add("/orders/o" + i);
        paths.add("/users/u" + i);
        paths.add("/audit/a" + i); // unrouted: the default partition
      }
      for (String path : paths) {
        int partition = PARTITIONING.partitionOf(path);
        WriteResult written = client.create(path, bytes(path)).get(30, TimeUnit.SECONDS);
        assertThat(written.succeeded()).as(path).isTrue();
        assertThat(written.seq())
            .as("partition %d sequences its own writes in issue order: %s", partition, path)
            .isGreaterThan(lastSeq[partition]);
        lastSeq[partition] = written.seq();
        expected.get(partition).add(path);
      }
      assertThat(expected.get(1)).contains("/orders/o9").doesNotContain("/users", "/audit");
      assertThat(expected.get(0)).contains("/users/u9", "/audit/a9").doesNotContain("/orders");

      // A multi across the two partitions is refused before it is sent: applied nowhere, which the
      // digests below check too (neither path is expected anywhere).
      assertThatThrownBy(
              () ->
                  client
                      .write(
                          List.of(
                              Op.create("/orders/both", new byte[0]),
                              Op.create("/users/both", new byte[0])))
                      .get(30, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .cause()
          .isInstanceOfSatisfying(
              ZoolanderException.class,
              e -> {
                assertThat(e.code()).isEqualTo(KeeperException.Code.BADARGUMENTS);
                assertThat(e.errorCode()).contains(ErrorCode.CROSS_PARTITION);
              });

      for (String path : List.of("/orders/o3", "/users/u3", "/audit/a3")) {
        NodeData read = client.getData(path).get(30, TimeUnit.SECONDS);
        assertThat(new String(read.data(), StandardCharsets.UTF_8)).isEqualTo(path);
      }
      assertThat(client.getChildren("/").get(30, TimeUnit.SECONDS))
          .as("the root lists every partition's top-level names")
          .containsExactly("audit", "orders", "users");
    }

    // Read from each duplicate's own ensemble: every duplicate of a partition holds exactly that
    // partition's paths, none of the other partition's.
    for (int p = 0; p < 2; p++) {
      Map<Integer, TreeDigest> digests =
          deployment.partition(p).awaitConverged(lastSeq[p], CONVERGE_TIMEOUT);
      assertThat(digests).hasSize(2);
      for (Map.Entry<Integer, TreeDigest> d : digests.entrySet()) {
        assertThat(d.getValue().entries().keySet())
            .as("partition %d, duplicate %d", p, d.getKey())
            .containsExactlyElementsOf(expected.get(p));
      }
    }
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
