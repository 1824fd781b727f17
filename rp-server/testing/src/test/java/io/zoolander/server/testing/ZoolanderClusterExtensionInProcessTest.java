package io.zoolander.server.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.zoolander.client.ZoolanderClient;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The JUnit 5 extension hands its server mode to the cluster it runs. */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class ZoolanderClusterExtensionInProcessTest {

  @RegisterExtension
  static final ZoolanderClusterExtension CLUSTER =
      ZoolanderClusterExtension.builder().duplicates(1).serverMode(ServerMode.IN_PROCESS).build();

  @Test
  void runsTheServersInThisJvm(EmbeddedCluster cluster, ZoolanderClient client) throws Exception {
    assertThat(cluster.serverMode()).isEqualTo(ServerMode.IN_PROCESS);
    assertThat(cluster.duplicate(1).pid(1)).as("no child JVM").isEmpty();
    assertThat(cluster.duplicate(1).isRunning(1)).isTrue();
    assertThat(
            client
                .create("/extension-in-process", new byte[] {7})
                .get(30, TimeUnit.SECONDS)
                .succeeded())
        .isTrue();
    assertThat(client.getData("/extension-in-process").get(30, TimeUnit.SECONDS).data())
        .containsExactly(7);
  }
}
