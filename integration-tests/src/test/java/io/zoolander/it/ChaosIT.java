package io.zoolander.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.zoolander.client.ReadPolicy;
import io.zoolander.client.ZoolanderClient;
import io.zoolander.server.internal.testing.Ports;
import io.zoolander.server.plugin.ZoolanderPluginConfig;
import io.zoolander.server.repeater.DuplicateView;
import io.zoolander.server.repeater.Repeater;
import io.zoolander.server.testing.EmbeddedCluster;
import io.zoolander.server.testing.FaultProxy;
import io.zoolander.server.testing.ZooKeeperEnsemble;
import io.zoolander.testsupport.Slow;
import io.zoolander.testsupport.ZooKeepers;
import io.zoolander.wire.BookkeepingState;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A seeded schedule of faults, one at a time, under steady write and read load, then a check of the
 * recorded history (per-client order, read-your-writes, no acknowledged write lost, none applied
 * twice) and of convergence. The faults: the leader of duplicate 1 killed and restarted (with one
 * server, the whole duplicate down and back with its data; with three, a leader change), the
 * repeater killed and replaced, a newer repeater started while the old one runs, duplicate 2 cut
 * off from the repeater (drop, reset, half-open) or slowed down by the network, duplicate 3 slowed
 * down by injected anomalies, duplicate 3 lost (all its servers killed; every other time with its
 * data, so that it comes back empty and rejoins by state transfer) and, at most once per schedule,
 * a plain ZooKeeper client writing under duplicate 3's data root (which fences it until a state
 * transfer repairs it).
 *
 * <p>System properties (set by Maven, see {@code integration-tests/pom.xml}): {@code
 * chaos.durationSeconds} (default 20: the short version of the default suite; {@code -Pchaos} runs
 * 600), {@code chaos.seed} (a number, or {@code random}; printed, so that a run can be replayed
 * with {@code -Dchaos.seed=...}), {@code chaos.schedules} (how many schedules run back to back,
 * with seeds {@code chaos.seed}, {@code chaos.seed + 1}...; 1 by default), {@code
 * chaos.serversOfFirst} (servers of duplicate 1: 1 by default, to keep the short version light; 3
 * with {@code -Pchaos}) and {@code chaos.failover} (true by default: the repeaters are two child
 * JVMs with automatic failover, and a repeater fault is a {@code kill -9} of the active one, which
 * the standby replaces by itself; a new standby is then started; false runs in-process repeaters
 * that the schedule replaces by hand).
 */
@Timeout(value = 20, unit = TimeUnit.MINUTES)
@Slow
class ChaosIT {
  private static final Duration WAIT = Duration.ofMinutes(2);
  private static final Duration ACK_TIMEOUT = Duration.ofSeconds(3);

  /** What the schedules of this run did, printed once they have all run. */
  private static final ChaosTotals TOTALS = new ChaosTotals();

  @AfterAll
  static void printTotals() {
    System.out.println(TOTALS.describe());
  }

  private enum Fault {
    LEADER_KILL,
    REPEATER_KILL,
    REPEATER_SUPERSEDED,
    DROP,
    RESET,
    HALF_OPEN,
    NETWORK_DELAY,
    SLOW,
    DUPLICATE_LOSS,
    FOREIGN_WRITE
  }

  /** The seeds of the schedules to run back to back: {@code chaos.seed} and the next ones. */
  static LongStream seeds() {
    String seedProperty = System.getProperty("chaos.seed", "1");
    long first = seedProperty.equals("random") ? System.nanoTime() : Long.parseLong(seedProperty);
    return LongStream.range(0, Integer.getInteger("chaos.schedules", 1)).map(i -> first + i);
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void aSeededScheduleOfFaultsKeepsTheHistoryAndConverges(long seed) throws Exception {
    long duration = Long.getLong("chaos.durationSeconds", 20);
    int serversOfFirst = Integer.getInteger("chaos.serversOfFirst", 1);
    boolean failover = Boolean.getBoolean("chaos.failover");
    Random random = new Random(seed);
    System.out.println(
        "CHAOS seed "
            + seed
            + ", "
            + duration
            + " s, duplicate 1 of "
            + serversOfFirst
            + " servers"
            + (failover ? ", repeaters with automatic failover in child JVMs" : "")
            + " (replay with -Dchaos.seed="
            + seed
            + ")");

    int pluginPort = Ports.next();
    // AddressSelection: the IPv4 loopback literal on purpose: clients connect to and verify the
    // host string "127.0.0.1"; getLoopbackAddress() is named "localhost" (and is ::1 when IPv6 is
    // preferred), which would change both.
    @SuppressWarnings("AddressSelection")
    List<InetSocketAddress> repeaters =
        List.of(
            new InetSocketAddress("127.0.0.1", Ports.next()),
            new InetSocketAddress("127.0.0.1", Ports.next()));
    List<String> events = new ArrayList<>();
    List<ZoolanderClient> clients = new ArrayList<>();
    FailoverPair pair = null;
    try (FaultProxy link = FaultProxy.builder().target("127.0.0.1", pluginPort).start();
        EmbeddedCluster cluster =
            EmbeddedCluster.builder()
                .duplicates(3)
                .serversOf(1, serversOfFirst)
                .duplicateProperty(2, ZoolanderPluginConfig.PORT_KEY, Integer.toString(pluginPort))
                .duplicateProperty(
                    2, ZoolanderPluginConfig.ADVERTISED_PORT_KEY, Integer.toString(link.port()))
                .startRepeater(false)
                .start()) {
      try {
        int current = 0;
        Repeater repeater = null;
        if (failover) {
          pair = FailoverPair.start(cluster, WAIT);
          repeaters = pair.addresses();
        } else {
          repeater = startRepeater(cluster, repeaters.get(current));
        }
        for (int i = 0; i < 3; i++) {
          clients.add(
              cluster
                  .clientBuilder(repeaters)
                  .requestTimeout(Duration.ofSeconds(90))
                  .writeRetryDelay(Duration.ofSeconds(1))
                  .readPolicy(i == 0 ? ReadPolicy.all() : ReadPolicy.fixed(1))
                  .build());
        }
        SteadyLoad load =
            new SteadyLoad("/chaos", clients, 8, 1_000_000, Duration.ofSeconds(duration + 120))
                .start();
        long start = System.nanoTime();
        long end = start + TimeUnit.SECONDS.toNanos(duration);
        ZooKeeperEnsemble first = cluster.duplicate(1);
        boolean wroteBehindItsBack = false;
        boolean loseData = false;
        while (System.nanoTime() < end) {
          Fault fault = Fault.values()[random.nextInt(Fault.values().length)];
          if (fault == Fault.FOREIGN_WRITE && wroteBehindItsBack) {
            continue; // once per schedule: each one costs a state transfer
          }
          TOTALS.fault(fault.name());
          long holdMillis = 500L + random.nextInt(2_500);
          long ackedBefore = load.acked();
          long at = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
          switch (fault) {
            case LEADER_KILL -> {
              int leader = first.awaitLeader(WAIT);
              first.kill(leader);
              Thread.sleep(holdMillis);
              first.restart(leader);
            }
            case REPEATER_KILL, REPEATER_SUPERSEDED -> {
              if (pair != null) {
                // kill -9; the standby takes over by itself (a supersession would be a manual
                // start)
                long tookMillis = pair.killActive();
                TOTALS.failover(tookMillis);
                event(events, seed, String.format("%d ms FAILOVER took %d ms", at, tookMillis));
                load.awaitAcked(load.acked() + 50, WAIT);
                continue;
              }
              if (fault == Fault.REPEATER_KILL) {
                repeater.close();
              }
              Thread.sleep(holdMillis / 4);
              current = 1 - current;
              Repeater old = repeater;
              repeater = startRepeater(cluster, repeaters.get(current));
              SteadyLoad.await(
                  "the old repeater deposed or closed",
                  () -> old.isDeposed() || fault == Fault.REPEATER_KILL,
                  WAIT);
              old.close(); // frees its port for a later takeover
            }
            case DROP, RESET, HALF_OPEN, NETWORK_DELAY -> {
              switch (fault) {
                case DROP -> link.drop();
                case RESET -> link.reset();
                case HALF_OPEN -> link.halfOpen();
                default -> link.delay(Duration.ofMillis(20 + random.nextInt(200)));
              }
              Thread.sleep(holdMillis);
              link.pass();
            }
            case SLOW -> {
              cluster.injectAnomaly(
                  3, "probability=1;delayMs=" + (2 + random.nextInt(8)) + ";applies=writes");
              Thread.sleep(holdMillis);
              cluster.clearAnomaly(3);
            }
            case DUPLICATE_LOSS -> {
              cluster.killDuplicate(3);
              if (loseData) {
                cluster.wipeDuplicate(3);
                event(events, seed, String.format("%d ms duplicate 3's data wiped", at));
              }
              loseData = !loseData;
              Thread.sleep(holdMillis);
              cluster.duplicate(3).start();
            }
            case FOREIGN_WRITE -> {
              wroteBehindItsBack = true;
              try (ZooKeeper plain = connect(cluster, 3)) {
                plain.create(
                    cluster.znodes().dataRoot() + "/behind-its-back-" + seed,
                    new byte[] {1},
                    ZooDefs.Ids.OPEN_ACL_UNSAFE,
                    CreateMode.PERSISTENT);
              }
            }
          }
          event(
              events,
              seed,
              String.format(
                  "%d ms %s %d ms (+%d writes)",
                  at, fault, holdMillis, load.acked() - ackedBefore));
          // Some progress between faults, so that each one hits a moving system.
          load.awaitAcked(load.acked() + 50, WAIT);
        }
        load.stop();
        long stopped = System.nanoTime();
        assertThat(load.problems()).as("history; faults: %s", events).isEmpty();
        if (repeater != null) {
          Repeater last = repeater;
          // A duplicate lost or written behind its back is fenced until its state transfer ends.
          SteadyLoad.await(
              "no duplicate fenced; faults: " + events,
              () -> last.duplicates().stream().noneMatch(DuplicateView::fenced),
              WAIT);
          cluster.awaitConverged(last.nextSeq() - 1, WAIT);
        } else {
          // A fenced duplicate would not converge at the highest seq applied anywhere.
          long lastSeq = 0;
          for (int id : cluster.duplicateIds()) {
            try (ZooKeeper zk = connect(cluster, id)) {
              lastSeq =
                  Math.max(
                      lastSeq,
                      BookkeepingState.decode(zk.getData(cluster.znodes().state(), false, null))
                          .appliedSeq());
            }
          }
          cluster.awaitConverged(lastSeq, WAIT);
        }
        for (int id : cluster.duplicateIds()) {
          try (ZooKeeper zk = connect(cluster, id)) {
            assertThat(load.problems(zk, cluster.znodes()))
                .as("duplicate %d; faults: %s", id, events)
                .isEmpty();
          }
        }
        TOTALS.schedule(
            seed,
            load.acked(),
            load.reads(),
            load.readFailures(),
            load.longestAckGap(start, stopped).toMillis());
        System.out.printf(
            "CHAOS seed %d: %d faults in %d s (%s), %d writes and %d reads (%d reads unanswered),"
                + " longest time without a write acknowledged %d ms, longest read %d ms; history and convergence"
                + " checked%n",
            seed,
            events.size(),
            TimeUnit.NANOSECONDS.toSeconds(stopped - start),
            String.join(", ", events),
            load.acked(),
            load.reads(),
            load.readFailures(),
            load.longestAckGap(start, stopped).toMillis(),
            load.longestRead().toMillis());
      } finally {
        // The clients first, while the servers still answer: a ZooKeeper session closed after its
        // server waits for reconnect attempts, about a second per session.
        clients.forEach(ZoolanderClient::close);
        if (pair != null) {
          pair.close(); // before the cluster, which deletes the directories
        }
      }
    }
  }

  /** Records a fault and prints it at once, so that a schedule that hangs shows how far it got. */
  private static void event(List<String> events, long seed, String event) {
    events.add(event);
    System.out.println("CHAOS seed " + seed + ": " + event);
  }

  private static Repeater startRepeater(EmbeddedCluster cluster, InetSocketAddress address)
      throws Exception {
    return cluster.startRepeater(
        b ->
            b.clientListen(address.getHostString(), address.getPort())
                .pluginAckTimeout(ACK_TIMEOUT));
  }

  private static ZooKeeper connect(EmbeddedCluster cluster, int duplicate) throws Exception {
    ZooKeeper zk =
        ZooKeepers.connect(
            cluster.duplicate(duplicate).connectString(),
            Duration.ofSeconds(30),
            Duration.ofSeconds(30));
    return zk;
  }
}
