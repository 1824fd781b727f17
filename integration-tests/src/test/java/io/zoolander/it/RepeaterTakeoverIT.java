package io.zoolander.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.zoolander.client.ZoolanderClient;
import io.zoolander.server.internal.testing.Ports;
import io.zoolander.server.repeater.DuplicateView;
import io.zoolander.server.repeater.LinkState;
import io.zoolander.server.repeater.Repeater;
import io.zoolander.server.repeater.Takeover;
import io.zoolander.server.testing.EmbeddedCluster;
import io.zoolander.server.testing.RepeaterProcess;
import io.zoolander.testsupport.ZooKeepers;
import io.zoolander.wire.BookkeepingState;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The repeater killed or superseded mid-stream, under steady write and read load, on three real
 * one-server duplicates (child JVMs): a new repeater claims a higher epoch at every duplicate,
 * recovers from the most advanced duplicate the writes a deliberately lagging one missed, and
 * continues; the old epoch is fenced; clients move over and retry; no acknowledged write is lost or
 * applied twice, each client's order holds, and the duplicates converge.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class RepeaterTakeoverIT {
  private static final int CLIENTS = 3;
  private static final Duration WAIT = Duration.ofSeconds(90);

  private static EmbeddedCluster cluster;

  @BeforeAll
  static void startCluster() throws Exception {
    cluster = EmbeddedCluster.builder().duplicates(3).startRepeater(false).start();
  }

  @AfterAll
  static void stopCluster() {
    cluster.close();
  }

  private static List<ZoolanderClient> clients(List<InetSocketAddress> repeaters) {
    List<ZoolanderClient> clients = new ArrayList<>();
    for (int i = 0; i < CLIENTS; i++) {
      clients.add(
          cluster
              .clientBuilder(repeaters)
              .requestTimeout(Duration.ofSeconds(60))
              .writeRetryDelay(Duration.ofSeconds(1))
              .build());
    }
    return clients;
  }

  @Test
  void aRepeaterKilledMidStreamIsReplacedAndNothingAcknowledgedIsLostOrAppliedTwice()
      throws Exception {
    // AddressSelection: the IPv4 loopback literal on purpose: clients connect to and verify the
    // host string "127.0.0.1"; getLoopbackAddress() is named "localhost" (and is ::1 when IPv6 is
    // preferred), which would change both.
    @SuppressWarnings("AddressSelection")
    InetSocketAddress standby = new InetSocketAddress("127.0.0.1", Ports.next());
    List<ZoolanderClient> clients = new ArrayList<>();
    try (RepeaterProcess first = cluster.repeaterProcess().start()) {
      clients.addAll(clients(List.of(first.address(), standby)));
      // Duplicate 3 applies each write 5 ms late: under this load it falls further and further
      // behind.
      cluster.injectAnomaly(3, "probability=1;delayMs=5;distribution=fixed;applies=writes");
      SteadyLoad load =
          new SteadyLoad("/takeover", clients, 16, 20_000, Duration.ofMinutes(2)).start();
      load.awaitAcked(1_000, WAIT);
      long lagBefore = appliedSeq(1) - appliedSeq(3);

      long killed = System.nanoTime();
      first.kill(); // SIGKILL: nothing drained, nothing said
      Repeater second =
          cluster.startRepeater(b -> b.clientListen(standby.getHostString(), standby.getPort()));
      long listening = System.nanoTime();
      long ackedAtKill = load.acked();
      load.awaitAcked(ackedAtKill + 1_000, WAIT);
      load.stop();
      long stopped = System.nanoTime();
      cluster.clearAnomaly(3);

      Takeover takeover = second.takeover();
      assertThat(takeover.epoch()).isGreaterThan(first.epoch());
      assertThat(lagBefore).as("duplicate 3 lagged before the kill").isPositive();
      assertThat(takeover.appliedSeqs().get(3))
          .as("duplicate 3 behind at the takeover")
          .isLessThan(takeover.appliedSeqs().get(1));
      assertThat(takeover.recoveredFromSeq())
          .isLessThanOrEqualTo(takeover.appliedSeqs().get(3) + 1);
      assertThat(takeover.recoveredWrites()).isPositive();
      assertInvariants(load, second);

      long firstAck = load.firstAckOfSeqAtLeast(takeover.recoveredToSeq() + 1) - killed;
      System.out.printf(
          "TAKEOVER (kill -9 of a child-JVM repeater, in-process standby started at once): new repeater"
              + " listening after %d ms (claim %d ms, recovery of %d writes %d ms); first write sequenced by it acknowledged"
              + " %d ms after the kill; longest time without any acknowledgement %d ms; duplicate 3 was %d writes behind the most advanced; %d writes"
              + " and %d reads in all%n",
          TimeUnit.NANOSECONDS.toMillis(listening - killed),
          takeover.claimMillis(),
          takeover.recoveredWrites(),
          takeover.recoveryMillis(),
          TimeUnit.NANOSECONDS.toMillis(firstAck),
          load.longestAckGap(killed - TimeUnit.SECONDS.toNanos(1), stopped).toMillis(),
          takeover.recoveredToSeq() - takeover.appliedSeqs().get(3),
          load.acked(),
          load.reads());
    } finally {
      clients.forEach(ZoolanderClient::close);
      cluster.clearAnomaly(3);
      cluster.killRepeater();
    }
  }

  @Test
  void aRepeaterStillRunningWhenAnotherTakesOverIsFencedAndItsClientsMoveOver() throws Exception {
    // AddressSelection: the IPv4 loopback literal on purpose: clients connect to and verify the
    // host string "127.0.0.1"; getLoopbackAddress() is named "localhost" (and is ::1 when IPv6 is
    // preferred), which would change both.
    @SuppressWarnings("AddressSelection")
    InetSocketAddress standby = new InetSocketAddress("127.0.0.1", Ports.next());
    Repeater first = cluster.startRepeater();
    List<ZoolanderClient> clients = clients(List.of(first.boundAddress(), standby));
    try {
      SteadyLoad load =
          new SteadyLoad("/superseded", clients, 8, 20_000, Duration.ofMinutes(2)).start();
      load.awaitAcked(500, WAIT);
      Repeater second =
          cluster.startRepeater(b -> b.clientListen(standby.getHostString(), standby.getPort()));
      long ackedAtTakeover = load.acked();
      // The old repeater's next write is refused by the plugins: it is deposed and lets its clients
      // go.
      SteadyLoad.await("the old repeater deposed", first::isDeposed, WAIT);
      load.awaitAcked(ackedAtTakeover + 500, WAIT);
      load.stop();
      assertThat(first.duplicates()).allMatch(d -> d.linkState() == LinkState.CLOSED);
      assertInvariants(load, second);
    } finally {
      clients.forEach(ZoolanderClient::close);
      cluster.killRepeater();
    }
  }

  /**
   * Nothing fenced, every duplicate holds the new epoch and the same tree, and the history checks
   * out everywhere.
   */
  private static void assertInvariants(SteadyLoad load, Repeater current) throws Exception {
    assertThat(load.problems()).isEmpty();
    assertThat(current.duplicates()).noneMatch(DuplicateView::fenced);
    cluster.awaitConverged(current.nextSeq() - 1, WAIT);
    for (int id : cluster.duplicateIds()) {
      try (ZooKeeper zk = connect(id)) {
        assertThat(
                BookkeepingState.decode(zk.getData(cluster.znodes().state(), false, null)).epoch())
            .as("duplicate %d's epoch", id)
            .isEqualTo(current.epoch());
        assertThat(load.problems(zk, cluster.znodes())).as("duplicate %d", id).isEmpty();
      }
    }
  }

  private static long appliedSeq(int duplicate) throws Exception {
    try (ZooKeeper zk = connect(duplicate)) {
      return BookkeepingState.decode(zk.getData(cluster.znodes().state(), false, null))
          .appliedSeq();
    }
  }

  static ZooKeeper connect(int duplicate) throws Exception {
    ZooKeeper zk =
        ZooKeepers.connect(
            cluster.duplicate(duplicate).connectString(),
            Duration.ofSeconds(30),
            Duration.ofSeconds(30));
    return zk;
  }
}
