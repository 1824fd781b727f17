package io.zoolander.server.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.zoolander.client.ReadPolicy;
import io.zoolander.client.ZoolanderClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An embedded cluster whose ZooKeeper servers run in the test JVM: the same deployment as with
 * child JVMs (plugin on each duplicate's leader, repeater, clients), a whole duplicate killed and
 * restarted, convergence, and a close that leaves neither files nor threads that would keep a JVM
 * alive.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class EmbeddedClusterInProcessTest {

  private static final Duration WAIT = Duration.ofSeconds(60);

  @Test
  void twoInProcessDuplicatesServeSurviveADuplicateKillAndConverge() throws Exception {
    Set<Thread> threadsBefore = NonDaemonThreads.now();
    Path baseDir;
    long startNanos = System.nanoTime();
    try (EmbeddedCluster cluster =
        EmbeddedCluster.builder().duplicates(2).serverMode(ServerMode.IN_PROCESS).start()) {
      System.out.printf(
          "2-duplicate in-process cluster started in %d ms%n",
          TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos));
      baseDir = cluster.duplicate(1).baseDir().getParent();
      assertThat(cluster.serverMode()).isEqualTo(ServerMode.IN_PROCESS);
      assertThat(cluster.duplicate(2).serverMode()).isEqualTo(ServerMode.IN_PROCESS);
      ZoolanderClient client = cluster.clientBuilder().readPolicy(ReadPolicy.fixed(2)).build();
      try {
        assertThat(
                client
                    .create("/in-process", new byte[] {1, 2})
                    .get(30, TimeUnit.SECONDS)
                    .succeeded())
            .isTrue();
        assertThat(client.getData("/in-process").get(30, TimeUnit.SECONDS).data())
            .containsExactly(1, 2);

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
        assertThat(client.getData("/while-2-was-down-19").get(30, TimeUnit.SECONDS).data())
            .containsExactly(19);

        cluster.restartDuplicate(2);
        Map<Integer, TreeDigest> digests = cluster.awaitConverged(WAIT);
        assertThat(digests).containsOnlyKeys(1, 2);
        assertThat(digests.get(2)).isEqualTo(digests.get(1));
        assertThat(digests.get(2).state().appliedSeq()).isEqualTo(cluster.repeater().nextSeq() - 1);
        assertThat(digests.get(2).entries()).containsKeys("/in-process", "/while-2-was-down-19");
      } finally {
        client.close();
      }
    }
    assertThat(baseDir).as("the cluster's temporary directory").doesNotExist();
    NonDaemonThreads.awaitNoneBut(threadsBefore, Duration.ofSeconds(30));
  }
}
