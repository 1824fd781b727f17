package io.zoolander.server.tools;

import static org.assertj.core.api.Assertions.assertThat;

import io.zoolander.client.PartitionedClient;
import io.zoolander.client.Partitioning;
import io.zoolander.server.testing.EmbeddedCluster;
import io.zoolander.server.testing.EmbeddedPartitions;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code zoolander partitions} against an embedded deployment of two partitions of one duplicate
 * each: the route records before and after a move, the move itself, a refused move and the usage
 * errors.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class PartitionsCommandTest {
  private static EmbeddedPartitions deployment;
  private static PartitionedClient client;

  @BeforeAll
  static void start() throws Exception {
    deployment =
        EmbeddedPartitions.builder().partitions(2).eachPartition(b -> b.duplicates(1)).start();
    client = deployment.newClient(Partitioning.builder().partitions(2).build());
    client.create("/orders", bytes("o")).get(30, TimeUnit.SECONDS);
    client.create("/orders/1", bytes("book")).get(30, TimeUnit.SECONDS);
    client.partition(0).create("/both", bytes("0")).get(30, TimeUnit.SECONDS);
    client.partition(1).create("/both", bytes("1")).get(30, TimeUnit.SECONDS);
  }

  @AfterAll
  static void stop() {
    if (deployment != null) {
      deployment.close();
    }
  }

  @Test
  void movesANameAndShowsTheRouteRecords() throws Exception {
    CliRun before = CliRun.run(args("routes"));
    assertThat(before.exit()).as(before.toString()).isZero();
    assertThat(before.out())
        .contains("partition 0: every name is served here")
        .contains("partition 1: every name is served here");

    CliRun move = CliRun.run(args("move", "--name", "orders", "--from", "0", "--to", "1"));
    assertThat(move.exit()).as(move.toString()).isZero();
    assertThat(move.out()).contains("/orders lives in partition 1");
    assertThat(client.partition(1).getData("/orders/1").get(30, TimeUnit.SECONDS).data())
        .isEqualTo(bytes("book"));

    CliRun after = CliRun.run(args("routes"));
    assertThat(after.out())
        .contains("partition 0: /orders moved to partition 1")
        .contains("partition 1: every name is served here");

    CliRun recover = CliRun.run(args("recover", "--name", "orders"));
    assertThat(recover.exit()).as(recover.toString()).isZero();
    assertThat(recover.out()).contains("no move of /orders was left unfinished");
  }

  @Test
  void aMoveOntoHeldDataFailsOnOneLine() {
    CliRun refused = CliRun.run(args("move", "--name", "both", "--from", "0", "--to", "1"));
    assertThat(refused.exit()).as(refused.toString()).isEqualTo(1);
    assertThat(refused.err().strip().split("\n"))
        .hasSize(1)
        .allMatch(line -> line.contains("partition 1 holds /both already"));
  }

  @Test
  void badPartitionsAreUsageErrors() {
    String port1 = connectString(deployment.partition(1));
    assertThat(CliRun.run("partitions", "routes", "--duplicate", "1=" + port1).usageError())
        .contains("partition 0 has no --duplicate");
    assertThat(CliRun.run("partitions", "routes", "--duplicate", "x=" + port1).usageError())
        .contains("--duplicate must be P=VALUE");
    assertThat(
            CliRun.run("partitions", "routes", "--duplicate", "0=" + port1, "--repeater", "0=host")
                .usageError())
        .contains("--repeater must be P=HOST:PORT");
    assertThat(
            CliRun.run(
                    "partitions",
                    "move",
                    "--duplicate",
                    "0=" + port1,
                    "--name",
                    "a",
                    "--from",
                    "0",
                    "--to",
                    "3")
                .usageError())
        .contains("--to 3 is not one of the 1 partitions");
  }

  /** {@code zoolander partitions SUBCOMMAND} with both partitions, then {@code more}. */
  private static String[] args(String subcommand, String... more) {
    List<String> args = new ArrayList<>(List.of("partitions", subcommand));
    for (int p = 0; p < 2; p++) {
      EmbeddedCluster partition = deployment.partition(p);
      args.add("--duplicate");
      args.add(p + "=" + connectString(partition));
      args.add("--repeater");
      args.add(p + "=127.0.0.1:" + partition.repeater().boundAddress().getPort());
    }
    args.addAll(List.of(more));
    return args.toArray(String[]::new);
  }

  private static String connectString(EmbeddedCluster partition) {
    return partition.duplicate(partition.duplicateIds().get(0)).connectString();
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
