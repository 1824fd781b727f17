package io.zoolander.testcontainers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zoolander.client.Partitioning;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.testcontainers.utility.DockerImageName;

/** What the containers and the cluster are configured with, checked without a Docker engine. */
class ZoolanderContainerSettingsTest {
  private static final ZoolanderImages IMAGES =
      ZoolanderImages.of(
          DockerImageName.parse("zoolander/server"), DockerImageName.parse("zoolander/repeater"));

  @Test
  void aClusterWiresEachDuplicatesServersTogetherAndTheRepeaterToEveryDuplicate() {
    ZoolanderContainerCluster cluster =
        ZoolanderContainerCluster.builder()
            .images(IMAGES)
            .duplicates(2)
            .serversPerDuplicate(3)
            .build();

    assertThat(cluster.duplicateIds()).containsExactly(1, 2);
    Set<String> ports = new HashSet<>();
    for (int id : cluster.duplicateIds()) {
      List<ZoolanderServerContainer> servers = cluster.servers(id);
      assertThat(servers).hasSize(3);
      String serverLines = servers.get(0).getEnvMap().get("ZOO_SERVERS");
      assertThat(serverLines.split(" "))
          .hasSize(3)
          .allMatch(l -> l.matches("server\\.[123]=127\\.0\\.0\\.1:\\d+:\\d+"));
      for (ZoolanderServerContainer server : servers) {
        assertThat(server.getNetworkMode()).isEqualTo("host");
        assertThat(server.getEnvMap())
            .containsEntry("ZOOLANDER_DUPLICATE_ID", Integer.toString(id))
            .containsEntry("ZOO_SERVERS", serverLines)
            .containsEntry("ZOO_MY_ID", Integer.toString(server.serverId()))
            .containsEntry("ZOO_CLIENT_PORT_ADDRESS", "127.0.0.1")
            .containsEntry("ZOOLANDER_PLUGIN_HOST", "127.0.0.1");
        ports.add(server.getEnvMap().get("ZOO_CLIENT_PORT"));
      }
      for (String line : serverLines.split(" ", -1)) {
        if (line.isEmpty()) {
          continue; // split(" ") dropped trailing empty strings; other empty ones fail above
        }
        String[] hostPorts = line.substring(line.indexOf('=') + 1).split(":", -1);
        ports.add(hostPorts[1]);
        ports.add(hostPorts[2]);
      }
      assertThat(cluster.connectString(id).split(","))
          .hasSize(3)
          .allMatch(a -> a.matches("127\\.0\\.0\\.1:\\d+"));
    }
    ZoolanderRepeaterContainer repeater = cluster.repeater();
    ports.add(Integer.toString(repeater.clientPort()));
    assertThat(ports)
        .as("every port distinct: 2 x 3 servers x 3 ports + the repeater's")
        .hasSize(19);
    assertThat(repeater.getNetworkMode()).isEqualTo("host");
    assertThat(repeater.getEnvMap())
        .containsEntry(
            "ZOOLANDER_DUPLICATES",
            "1=" + cluster.connectString(1) + " 2=" + cluster.connectString(2))
        .containsEntry("ZOOLANDER_CLIENT_HOST", "127.0.0.1")
        .doesNotContainKey("ZOOLANDER_JMX_PORT");
    assertThat(repeater.jmxPort()).isEmpty();
  }

  @Test
  void theRepeatersJmxConsoleGetsAFreePortWhenAsked() {
    ZoolanderContainerCluster cluster =
        ZoolanderContainerCluster.builder().images(IMAGES).duplicates(1).repeaterJmx(true).build();

    int jmxPort = cluster.repeater().jmxPort().orElseThrow();
    assertThat(cluster.repeater().getEnvMap())
        .containsEntry("ZOOLANDER_JMX_PORT", Integer.toString(jmxPort));
    assertThat(jmxPort).isNotEqualTo(cluster.repeater().clientPort());
  }

  @Test
  void buildersRejectBadSettingsNamingTheField() {
    assertThatThrownBy(() -> ZoolanderContainerCluster.builder().build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("images");
    assertThatThrownBy(() -> ZoolanderContainerCluster.builder().duplicates(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("duplicates");
    assertThatThrownBy(() -> ZoolanderContainerCluster.builder().serversPerDuplicate(2))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("serversPerDuplicate");
    assertThatThrownBy(() -> ZoolanderContainerCluster.builder().images(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("images");

    ZoolanderServerContainer server =
        new ZoolanderServerContainer(CompletableFuture.completedFuture("unused"));
    assertThatThrownBy(server::configure)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("duplicateId");
    server
        .withDuplicateId(1)
        .withClientPort(2181)
        .withServerId(2)
        .withServers("server.1=127.0.0.1:1:2");
    assertThatThrownBy(server::configure)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("server.2");
    assertThatThrownBy(() -> server.withClientPort(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("clientPort");

    ZoolanderRepeaterContainer repeater =
        new ZoolanderRepeaterContainer(CompletableFuture.completedFuture("unused"));
    assertThatThrownBy(repeater::configure)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("duplicate");
    assertThatThrownBy(() -> repeater.withDuplicate(1, "a:1 b:2"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("connectString");
  }

  @Test
  void partitionsAreEachAClusterOfTheirOwnOnPortsNoOtherPartitionUses() {
    Partitioning partitioning = Partitioning.builder().partitions(2).route("orders", 1).build();
    List<Integer> customized = new ArrayList<>();
    ZoolanderContainerPartitions deployment =
        ZoolanderContainerPartitions.builder()
            .images(IMAGES)
            .partitioning(partitioning)
            .eachPartition(
                (partition, cluster) -> {
                  customized.add(partition);
                  cluster.duplicates(partition + 1).repeaterJmx(partition == 1);
                })
            .build();

    assertThat(customized).containsExactly(0, 1);
    assertThat(deployment.partitioning()).isSameAs(partitioning);
    assertThat(deployment.partitions()).isEqualTo(2);
    ZoolanderContainerCluster zero = deployment.partition(0);
    ZoolanderContainerCluster one = deployment.partition(1);
    assertThat(zero.duplicateIds()).containsExactly(1);
    assertThat(one.duplicateIds()).containsExactly(1, 2);
    assertThat(zero.repeater().jmxPort()).isEmpty();
    assertThat(one.repeater().jmxPort()).isPresent();
    // Each repeater sequences for its own partition's duplicates only.
    assertThat(zero.repeater().getEnvMap())
        .containsEntry("ZOOLANDER_DUPLICATES", "1=" + zero.connectString(1));
    assertThat(one.repeater().getEnvMap())
        .containsEntry(
            "ZOOLANDER_DUPLICATES", "1=" + one.connectString(1) + " 2=" + one.connectString(2));
    Set<String> ports = new HashSet<>();
    for (ZoolanderContainerCluster cluster : List.of(zero, one)) {
      ports.add(Integer.toString(cluster.repeater().clientPort()));
      for (int id : cluster.duplicateIds()) {
        for (ZoolanderServerContainer server : cluster.servers(id)) {
          ports.add(server.getEnvMap().get("ZOO_CLIENT_PORT"));
          String line = server.getEnvMap().get("ZOO_SERVERS");
          String[] hostPorts = line.substring(line.indexOf('=') + 1).split(":", -1);
          ports.add(hostPorts[1]);
          ports.add(hostPorts[2]);
        }
      }
    }
    assertThat(ports)
        .as("every port distinct: 3 one-server duplicates x 3 ports + 2 repeaters")
        .hasSize(11)
        .doesNotContain(Integer.toString(one.repeater().jmxPort().orElseThrow()));
  }

  @Test
  void thePartitionsBuilderRejectsBadSettingsNamingTheField() {
    Partitioning two = Partitioning.builder().partitions(2).build();
    assertThatThrownBy(() -> ZoolanderContainerPartitions.builder().partitioning(two).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("images");
    assertThatThrownBy(() -> ZoolanderContainerPartitions.builder().images(IMAGES).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("partitioning");
    assertThatThrownBy(() -> ZoolanderContainerPartitions.builder().images(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("images");
    assertThatThrownBy(() -> ZoolanderContainerPartitions.builder().partitioning(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("partitioning");
    assertThatThrownBy(() -> ZoolanderContainerPartitions.builder().eachPartition(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("eachPartition");
    // A partition's own settings are validated by its cluster's builder, naming the field.
    assertThatThrownBy(
            () ->
                ZoolanderContainerPartitions.builder()
                    .images(IMAGES)
                    .partitioning(two)
                    .eachPartition((partition, cluster) -> cluster.duplicates(partition * 10))
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("duplicates");

    ZoolanderContainerPartitions deployment =
        ZoolanderContainerPartitions.builder().images(IMAGES).partitioning(two).build();
    assertThatThrownBy(() -> deployment.partition(2))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("partition 2")
        .hasMessageContaining("0..1");
    assertThatThrownBy(() -> deployment.partition(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("partition -1");
    assertThatThrownBy(() -> deployment.newClient(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("customize");
  }

  @Test
  void imagesFromSourceNeedACheckoutWithDockerFiles(@TempDir Path notACheckout) {
    assertThatThrownBy(() -> ZoolanderImages.fromSource(notACheckout))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("docker/server");
    assertThatThrownBy(() -> ZoolanderImages.fromSource(Path.of(".."), " "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("baseImage");
  }
}
