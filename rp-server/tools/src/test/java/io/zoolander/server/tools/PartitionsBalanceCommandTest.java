package io.zoolander.server.tools;

import static org.assertj.core.api.Assertions.assertThat;

import io.zoolander.client.PartitionedClient;
import io.zoolander.client.Partitioning;
import io.zoolander.client.WriteResult;
import io.zoolander.server.jmx.JmxConsole;
import io.zoolander.server.testing.EmbeddedCluster;
import io.zoolander.server.testing.EmbeddedPartitions;
import io.zoolander.testsupport.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.management.MBeanServer;
import javax.management.MBeanServerFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code zoolander partitions balance} against two embedded partitions, each repeater with a JMX
 * console of its own (a real RMI connector on loopback): the command reads the rates and the
 * model's capacities through them and drains the lighter partition into the other while a client
 * writes both names.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class PartitionsBalanceCommandTest {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final int MAX_TICKS = 3_000;

  private static EmbeddedPartitions deployment;
  private static final List<JmxConsole> consoles = new ArrayList<>();
  private ScheduledExecutorService ticks;

  @BeforeAll
  static void start() throws Exception {
    deployment =
        EmbeddedPartitions.builder()
            .partitions(2)
            .eachPartition(b -> b.duplicates(1).startRepeater(false))
            .start();
    for (int p = 0; p < 2; p++) {
      MBeanServer server = MBeanServerFactory.newMBeanServer(); // one repeater's MBeans each
      consoles.add(JmxConsole.builder().port(0).mbeanServer(server).build().start());
      deployment
          .partition(p)
          .startRepeater(b -> b.mbeanServer(server).nameWriteRates(Duration.ofSeconds(1), 1));
    }
  }

  @BeforeEach
  void startTicks() {
    ticks = Executors.newSingleThreadScheduledExecutor();
  }

  @AfterEach
  void stopTicks() {
    ticks.shutdownNow();
  }

  @AfterAll
  static void stop() {
    consoles.forEach(JmxConsole::close);
    if (deployment != null) {
      deployment.close();
    }
  }

  @Test
  void drainsTheLighterPartitionIntoTheOtherAndSaysWhereTheNameLives() throws Exception {
    PartitionedClient writer =
        deployment.newClient(
            Partitioning.builder().partitions(2).route("a", 0).route("b", 1).build());
    writer.create("/a", new byte[0]).get(30, TimeUnit.SECONDS);
    writer.create("/b", new byte[0]).get(30, TimeUnit.SECONDS);
    List<CompletableFuture<WriteResult>> writes = new CopyOnWriteArrayList<>();
    AtomicInteger tick = new AtomicInteger();
    ticks.scheduleAtFixedRate(
        () -> {
          int t = tick.getAndIncrement();
          if (t < MAX_TICKS) { // /a 10 writes/s, /b 20
            if (t % 2 == 0) {
              writes.add(writer.create("/a/w" + t, new byte[0]));
            }
            writes.add(writer.create("/b/w" + t, new byte[0]));
          }
        },
        0,
        50,
        TimeUnit.MILLISECONDS);
    for (int p = 0; p < 2; p++) {
      EmbeddedCluster partition = deployment.partition(p);
      String name = p == 0 ? "a" : "b";
      Await.await(
          WAIT,
          "partition " + p + "'s rates show /" + name,
          () -> partition.repeater().nameWriteRates().containsKey(name));
    }

    // The model's capacity, read through the consoles: at a target not even an idle partition
    // meets, it is 0, so both partitions are over their high mark and neither has room.
    CliRun crowded =
        CliRun.run(
            args(
                "--route", "a=0",
                "--route", "b=1",
                "--target-sla", "0.999999",
                "--tau-ms", "0.001",
                "--periods", "1"));
    assertThat(crowded.exit()).as(crowded.toString()).isZero();
    assertThat(crowded.out())
        .contains("hold (overloaded_no_room): partition 0 at ")
        .contains(" of 0.0 writes/s");
    assertThat(crowded.out()).doesNotContain("lives in partition");

    // A measured capacity instead of the model's (which the cold JVMs' first writes make small
    // and uneven here): partition 0's rate fits under half of partition 1's.
    CliRun run =
        CliRun.run(
            args(
                "--route", "a=0",
                "--route", "b=1",
                "--capacity-per-sec", "1000",
                "--consolidate-periods", "1",
                "--cooldown-ms", "0",
                "--periods", "1"));
    assertThat(run.exit()).as(run.toString()).isZero();
    assertThat(run.out())
        .containsPattern("move /a \\([0-9.]+ writes/s\\) \\(consolidate\\): partition 0 at ")
        .contains("/a lives in partition 1");
    assertThat(writer.getData("/a").get(30, TimeUnit.SECONDS)).isNotNull();
    ticks.shutdownNow();
    ticks.awaitTermination(30, TimeUnit.SECONDS);
    for (CompletableFuture<WriteResult> w : writes) {
      assertThat(w.get(30, TimeUnit.SECONDS).succeeded()).isTrue();
    }
    assertThat(writer.partitionOf("/a")).isEqualTo(1);
  }

  @Test
  void everyPartitionNeedsAConsoleAndTheSettingsAreChecked() {
    String[] onlyOne = args("--periods", "1");
    List<String> withoutOne = new ArrayList<>(List.of(onlyOne));
    int at = withoutOne.indexOf("--jmx");
    withoutOne.remove(at);
    withoutOne.remove(at);
    assertThat(CliRun.run(withoutOne.toArray(String[]::new)).usageError())
        .contains("partition 0 needs a --jmx");
    assertThat(CliRun.run(args("--low-mark", "0.9")).usageError())
        .contains("lowMark (0.9) must be below highMark (0.8)");
    assertThat(CliRun.run(args("--route", "a=x")).usageError()).contains("--route must be NAME=P");
    assertThat(CliRun.run(args("--target-sla", "1")).usageError()).contains("--target-sla");
    assertThat(CliRun.run(args("--capacity-per-sec", "0")).usageError())
        .contains("--capacity-per-sec must be positive");
    assertThat(CliRun.run(args("--max-serving-partitions", "0")).usageError())
        .contains("maxServingPartitions must be >= 1");
  }

  /** {@code zoolander partitions balance} with both partitions and their consoles, then more. */
  private static String[] args(String... more) {
    List<String> args = new ArrayList<>(List.of("partitions", "balance"));
    for (int p = 0; p < 2; p++) {
      EmbeddedCluster partition = deployment.partition(p);
      args.add("--duplicate");
      args.add(p + "=" + partition.duplicate(partition.duplicateIds().get(0)).connectString());
      args.add("--repeater");
      args.add(p + "=127.0.0.1:" + partition.repeater().boundAddress().getPort());
      args.add("--jmx");
      String url = consoles.get(p).serviceUrl().toString();
      args.add(p + "=127.0.0.1:" + url.substring(url.lastIndexOf(':') + 1, url.indexOf("/jmxrmi")));
    }
    args.addAll(List.of(more));
    return args.toArray(String[]::new);
  }
}
