package io.zoolander.server.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.zoolander.client.PartitionedClient;
import io.zoolander.client.Partitioning;
import io.zoolander.client.WriteResult;
import io.zoolander.client.balance.BalanceDecision;
import io.zoolander.client.balance.BalancerSettings;
import io.zoolander.client.balance.PartitionBalancer;
import io.zoolander.client.balance.PartitionLoad;
import io.zoolander.testsupport.Await;
import io.zoolander.testsupport.ZooKeepers;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The partition balancer on two real partitions, from the rates their repeaters measure: a write
 * load that outgrows partition 0 moves one of its names to partition 1, and a lull drains the
 * lighter partition into the other. Meanwhile another client writes every name through the moves,
 * and every write is applied once, in the partition the name lives in at the end.
 *
 * <p>The capacity is fixed by the test (60 writes/s a partition), so that its thresholds sit where
 * the test's load puts them; the capacity the model gives ({@code writeCapacityPerSec}) is checked
 * against rp-model in {@code JmxConsoleTest}, and read here once through the embedded probe.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class PartitionBalancerTest {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final double CAPACITY = 60;
  private static final long TICK_MS = 100;
  private static final int MAX_TICKS = 3_000; // five minutes of ticks: the test's bound
  private static final Partitioning STATIC =
      Partitioning.builder()
          .partitions(2)
          .route("hot", 0)
          .route("warm", 0)
          .route("cold", 1)
          .build();

  private EmbeddedPartitions deployment;
  private ScheduledExecutorService ticks;

  @BeforeEach
  void start() throws Exception {
    deployment =
        EmbeddedPartitions.builder()
            .partitions(2)
            .eachPartition(b -> b.duplicates(1).startRepeater(false))
            .start();
    for (int p = 0; p < 2; p++) {
      // Rates over 1 s windows, every write counted: the test's load is light and its phases short.
      deployment.partition(p).startRepeater(b -> b.nameWriteRates(Duration.ofSeconds(1), 1));
    }
    ticks = Executors.newSingleThreadScheduledExecutor();
  }

  @AfterEach
  void stop() {
    if (ticks != null) {
      ticks.shutdownNow();
    }
    if (deployment != null) {
      deployment.close();
    }
  }

  @Test
  void aNameMovesOffAnOverloadedPartitionAndALullConsolidatesWithEveryWriteAppliedOnce()
      throws Exception {
    PartitionedClient writer = deployment.newClient(STATIC);
    for (String name : List.of("hot", "warm", "cold")) {
      writer.create("/" + name, new byte[0]).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    }
    // Writes per tick of 100 ms to each name: phase 1 is 30 + 30 writes/s in partition 0 (above
    // 0.8 x 60) and 5 in partition 1.
    Map<String, AtomicInteger> perTick =
        Map.of("hot", new AtomicInteger(3), "warm", new AtomicInteger(3));
    Map<String, List<CompletableFuture<WriteResult>>> writes =
        Map.of(
            "hot", new CopyOnWriteArrayList<>(),
            "warm", new CopyOnWriteArrayList<>(),
            "cold", new CopyOnWriteArrayList<>());
    AtomicInteger tick = new AtomicInteger();
    ticks.scheduleAtFixedRate(
        () -> {
          int t = tick.getAndIncrement();
          if (t >= MAX_TICKS) {
            return;
          }
          perTick.forEach(
              (name, count) -> {
                for (int i = 0; i < count.get(); i++) {
                  writes.get(name).add(writer.create("/" + name + "/w" + t + "-" + i, new byte[0]));
                }
              });
          if (t % 2 == 0) {
            writes.get("cold").add(writer.create("/cold/w" + t, new byte[0]));
          }
        },
        0,
        TICK_MS,
        TimeUnit.MILLISECONDS);

    PartitionedClient mover = deployment.newClient(STATIC);
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    PartitionBalancer.Builder builder =
        PartitionBalancer.builder(mover)
            .settings(
                BalancerSettings.builder()
                    .highMark(0.8)
                    .lowMark(0.5)
                    .periodMs(500)
                    .cooldownMs(3_000)
                    .consolidatePeriods(3)
                    .build())
            .meterRegistry(meters);
    for (int p = 0; p < 2; p++) {
      EmbeddedCluster partition = deployment.partition(p);
      builder.probe(p, () -> new PartitionLoad(partition.repeater().nameWriteRates(), CAPACITY));
    }
    // Started once a whole window shows the load: a partial first window could look like a lull.
    Await.await(
        WAIT,
        "partition 0's rates show the writes",
        () -> {
          Map<String, Double> rates = deployment.partition(0).repeater().nameWriteRates();
          return rates.getOrDefault("hot", 0.0) + rates.getOrDefault("warm", 0.0) >= 50;
        });
    try (PartitionBalancer balancer = builder.build().start()) {
      Supplier<Object> lastDecision = () -> balancer.lastDecision().map(BalanceDecision::describe);

      // Phase 1: partition 0 above its high mark sheds its busier name (the two are equally busy:
      // either) into partition 1, which has room.
      Await.await(
          WAIT,
          "/hot or /warm moved to partition 1",
          () -> mover.partitionOf("/hot") == 1 || mover.partitionOf("/warm") == 1,
          lastDecision);
      String shed = mover.partitionOf("/hot") == 1 ? "hot" : "warm";
      String kept = shed.equals("hot") ? "warm" : "hot";
      Await.await(WAIT, "the move ended", () -> balancer.moveUnderWay().isEmpty());
      assertThat(moves(meters, "overloaded")).isEqualTo(1);
      assertThat(mover.partitionOf("/" + kept)).isZero();
      // Both are now below the high mark and too busy to share one partition: nothing more moves,
      // over more than a cooldown (6 periods) of periods.
      double after = periods(meters);
      Await.await(WAIT, "eight more periods", () -> periods(meters) >= after + 8);
      assertThat(moves(meters, "overloaded") + moves(meters, "consolidate")).isEqualTo(1);
      assertThat(balancer.lastDecision().orElseThrow().reason())
          .isEqualTo(BalanceDecision.Reason.BALANCED);
      assertThat(deployment.probe(1, 0.5, 50).load().capacityPerSec())
          .as("the model's capacity of a partition with writes")
          .isPositive();

      // Phase 2: a lull (the name left in partition 0 at 2 writes/s, then the one moved at 4,
      // /cold 5 as before): partition 0 fits under half of partition 1's capacity, and once that
      // has lasted three periods it is drained into it. Partition 0's name slows first, so that
      // partition 0 is the lighter one all along.
      perTick.get(kept).set(0);
      AtomicInteger lull = new AtomicInteger();
      ticks.scheduleAtFixedRate(
          () -> {
            int l = lull.getAndIncrement();
            if (l < MAX_TICKS) {
              writes.get(kept).add(writer.create("/" + kept + "/l" + l, new byte[0]));
            }
          },
          0,
          500,
          TimeUnit.MILLISECONDS);
      Await.await(
          WAIT,
          "partition 0's rates show /" + kept + "'s lull",
          () -> deployment.partition(0).repeater().nameWriteRates().getOrDefault(kept, 0.0) < 5);
      perTick.get(shed).set(0);
      ticks.scheduleAtFixedRate(
          () -> {
            int l = lull.getAndIncrement();
            if (l < MAX_TICKS) {
              writes.get(shed).add(writer.create("/" + shed + "/l" + l, new byte[0]));
            }
          },
          0,
          250,
          TimeUnit.MILLISECONDS);
      Await.await(
          WAIT,
          "/" + kept + " moved to partition 1",
          () -> mover.partitionOf("/" + kept) == 1,
          lastDecision);
      Await.await(WAIT, "the move ended", () -> balancer.moveUnderWay().isEmpty());
      assertThat(moves(meters, "consolidate")).isEqualTo(1);
      assertThat(moves(meters, "overloaded")).isEqualTo(1);
      assertThat(meters.counter(PartitionBalancer.MOVES_FAILED_METER).count()).isZero();
    }
    ticks.shutdownNow();
    ticks.awaitTermination(WAIT.toMillis(), TimeUnit.MILLISECONDS);

    // Every write succeeded, exactly once, in partition 1 where every name lives now.
    EmbeddedCluster to = deployment.partition(1);
    EmbeddedCluster from = deployment.partition(0);
    to.awaitConverged(WAIT);
    from.awaitConverged(WAIT);
    for (String name : List.of("hot", "warm", "cold")) {
      for (CompletableFuture<WriteResult> w : writes.get(name)) {
        assertThat(w.get(WAIT.toMillis(), TimeUnit.MILLISECONDS).succeeded()).isTrue();
      }
      try (ZooKeeper zk = ZooKeepers.connect(to.duplicate(1).connectString())) {
        List<String> children = zk.getChildren(to.znodes().toZnode("/" + name), false);
        assertThat(children).as("/%s in partition 1", name).hasSize(writes.get(name).size());
      }
      try (ZooKeeper zk = ZooKeepers.connect(from.duplicate(1).connectString())) {
        assertThat(zk.exists(from.znodes().toZnode("/" + name), false))
            .as("/%s in partition 0", name)
            .isNull();
      }
    }
  }

  private static double moves(SimpleMeterRegistry meters, String reason) {
    return meters
        .counter(PartitionBalancer.DECISIONS_METER, "action", "move", "reason", reason)
        .count();
  }

  /** Periods decided so far: the sum of the decision counters. */
  private static double periods(SimpleMeterRegistry meters) {
    return meters.find(PartitionBalancer.DECISIONS_METER).counters().stream()
        .mapToDouble(c -> c.count())
        .sum();
  }
}
