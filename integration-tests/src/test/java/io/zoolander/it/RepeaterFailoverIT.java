package io.zoolander.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.zoolander.client.ZoolanderClient;
import io.zoolander.client.ZoolanderClientBuilder;
import io.zoolander.server.testing.EmbeddedCluster;
import io.zoolander.server.testing.RepeaterProcess;
import io.zoolander.testsupport.Await;
import io.zoolander.testsupport.ZooKeepers;
import io.zoolander.wire.ActiveRepeater;
import io.zoolander.wire.BookkeepingState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Automatic failover: two repeaters in child JVMs with {@code failover=true} in front of three
 * one-server duplicates; the elected one is killed with SIGKILL under steady write and read load,
 * and the standby takes over by itself (nobody starts it). No acknowledged write is lost or applied
 * twice, each client's order holds, the duplicates converge, and the new repeater's record is
 * published for clients and standbys. Also with one duplicate down at the takeover: the standby
 * claims its epoch at the other two, and the third, back, rejoins by state transfer. Also with the
 * active one frozen instead of killed (a partition from everything): replaced, followed by its
 * clients through discovery, deposed when it thaws.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class RepeaterFailoverIT {
  private static final int CLIENTS = 3;
  private static final Duration WAIT = Duration.ofSeconds(90);

  private EmbeddedCluster cluster;
  private final List<AutoCloseable> closeables = new ArrayList<>();

  @BeforeEach
  void startCluster() throws Exception {
    cluster = EmbeddedCluster.builder().duplicates(3).startRepeater(false).start();
  }

  @AfterEach
  void stopCluster() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
    cluster.close();
  }

  @Test
  void theStandbyTakesOverByItselfWhenTheActiveRepeaterIsKilled() throws Exception {
    Pair pair = activeAndStandby();
    // A client given no repeater address: it finds the active repeater's record in the duplicates.
    ZoolanderClient discovering = discoveringClient();
    assertThat(
            discovering.create("/found-before", new byte[0]).get(60, TimeUnit.SECONDS).succeeded())
        .isTrue();
    SteadyLoad load = load("/failover", pair);
    load.awaitAcked(1_000, WAIT);

    long killed = System.nanoTime();
    pair.active.kill(); // SIGKILL: nothing drained, nothing said
    pair.standby.awaitListening(WAIT); // nobody starts it: it elects itself
    long listening = System.nanoTime();
    long ackedAtKill = load.acked();
    load.awaitAcked(ackedAtKill + 1_000, WAIT);
    load.stop();
    long stopped = System.nanoTime();

    assertThat(pair.standby.epoch()).isGreaterThan(pair.active.epoch());
    // It knew only the dead repeater's address, from the record: it follows the new record.
    assertThat(
            discovering.create("/found-after", new byte[0]).get(60, TimeUnit.SECONDS).succeeded())
        .isTrue();
    assertInvariants(load, pair.standby);
    System.out.printf(
        "FAILOVER (kill -9 of the active child-JVM repeater, standby elected automatically): standby"
            + " listening within %d ms of the kill as seen by the test (polled every 20 ms); by its"
            + " own count %d ms from the heartbeat's loss to serving; longest time without any"
            + " acknowledgement %d ms; %d writes and %d reads in all%n",
        TimeUnit.NANOSECONDS.toMillis(listening - killed),
        pair.standby.takeoverMillis(),
        load.longestAckGap(killed - TimeUnit.SECONDS.toNanos(1), stopped).toMillis(),
        load.acked(),
        load.reads());
    System.out.print(takeoverLines(pair.standby));
  }

  @Test
  void withOneDuplicateDownTheStandbyTakesOverAndTheDuplicateRejoinsWhenBack() throws Exception {
    Pair pair = activeAndStandby();
    SteadyLoad load = load("/failover-down", pair);
    load.awaitAcked(500, WAIT);
    cluster.killDuplicate(3);
    load.awaitAcked(load.acked() + 300, WAIT);

    long killed = System.nanoTime();
    pair.active.kill();
    pair.standby.awaitListening(WAIT);
    long listening = System.nanoTime();
    load.awaitAcked(load.acked() + 500, WAIT);
    cluster.restartDuplicate(3);
    // Left out of the claim, it is fenced when its plugin speaks and rejoins by state transfer;
    // meanwhile the load goes on.
    load.awaitAcked(load.acked() + 500, WAIT);
    load.stop();
    long stopped = System.nanoTime();

    Await.await(
        WAIT,
        "duplicate 3 fenced for having been left out of the claim",
        () -> pair.standby.output().contains("left out of the claim of epoch"),
        pair.standby::output);
    assertInvariants(load, pair.standby);
    for (int id : List.of(1, 2)) {
      try (ZooKeeper zk = connect(id)) {
        Await.await(
            WAIT,
            "the record of duplicate 3 left out cleared at duplicate " + id + " once it rejoined",
            () -> !recordsLeftOut(zk, 3));
      }
    }
    System.out.printf(
        "FAILOVER WITH DUPLICATE 3 DOWN: standby listening within %d ms of the kill (by its own"
            + " count %d ms); longest time without any acknowledgement %d ms; %d writes%n",
        TimeUnit.NANOSECONDS.toMillis(listening - killed),
        pair.standby.takeoverMillis(),
        load.longestAckGap(killed - TimeUnit.SECONDS.toNanos(1), stopped).toMillis(),
        load.acked());
    System.out.print(takeoverLines(pair.standby));
  }

  /**
   * The active repeater frozen (SIGSTOP): cut off from the plugins, from every ensemble and from
   * its clients at once, and silent, as a partitioned host would be. The standby takes over when
   * the heartbeat stops; the clients, whose connections to the frozen one stay open, follow the new
   * record in the duplicates; thawed (SIGCONT), the old repeater is deposed and nothing it held
   * from before is applied twice or lost.
   */
  @Test
  void aFrozenActiveRepeaterIsReplacedItsClientsFollowAndItIsDeposedWhenItThaws() throws Exception {
    Pair pair = activeAndStandby();
    ZoolanderClient discovering = discoveringClient();
    assertThat(discovering.create("/frozen-before", new byte[0]).get(60, TimeUnit.SECONDS).seq())
        .isPositive();
    SteadyLoad load = load("/frozen", pair);
    load.awaitAcked(1_000, WAIT);

    signal(pair.active, "STOP");
    try {
      pair.standby.awaitListening(WAIT);
      load.awaitAcked(load.acked() + 1_000, WAIT);
      assertThat(discovering.create("/frozen-during", new byte[0]).get(60, TimeUnit.SECONDS).seq())
          .isPositive();
    } finally {
      signal(pair.active, "CONT");
    }
    Await.await(
        WAIT,
        "the old repeater deposed once it thawed",
        () -> pair.active.output().contains("deposed"),
        pair.active::output);
    load.awaitAcked(load.acked() + 500, WAIT);
    load.stop();
    assertThat(pair.standby.epoch()).isGreaterThan(pair.active.epoch());
    assertInvariants(load, pair.standby);
  }

  /** Sends a signal to a child JVM (SIGSTOP freezes it; SIGCONT thaws it). */
  private static void signal(RepeaterProcess process, String signal) throws Exception {
    Process kill =
        new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid()))
            .redirectErrorStream(true)
            .start();
    assertThat(kill.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(kill.exitValue()).as("kill -%s %d", signal, process.pid()).isZero();
  }

  private record Pair(RepeaterProcess active, RepeaterProcess standby) {}

  /** Two failover repeaters: the first, alone, elects itself; the second stays a standby. */
  private Pair activeAndStandby() throws Exception {
    RepeaterProcess first = track(cluster.repeaterProcess().startStandby());
    first.awaitListening(WAIT);
    RepeaterProcess second = track(cluster.repeaterProcess().startStandby());
    Await.await(
        WAIT,
        "the second repeater watching the first's heartbeat",
        () -> second.output().contains("active repeater epoch " + first.epoch()),
        second::output);
    assertThat(second.output()).doesNotContain("repeater listening");
    return new Pair(first, second);
  }

  private ZoolanderClient discoveringClient() {
    ZoolanderClientBuilder builder =
        ZoolanderClient.builder()
            .basePath(cluster.znodes().basePath())
            .requestTimeout(Duration.ofSeconds(60));
    for (int id : cluster.duplicateIds()) {
      builder.duplicate(cluster.duplicate(id).connectString());
    }
    return track(builder.build());
  }

  private SteadyLoad load(String parent, Pair pair) throws Exception {
    List<ZoolanderClient> clients = new ArrayList<>();
    for (int i = 0; i < CLIENTS; i++) {
      ZoolanderClient client =
          cluster
              .clientBuilder(List.of(pair.active.address(), pair.standby.address()))
              .requestTimeout(Duration.ofSeconds(60))
              .writeRetryDelay(Duration.ofSeconds(1))
              .build();
      clients.add(client);
      closeables.add(client);
    }
    SteadyLoad load = new SteadyLoad(parent, clients, 16, 20_000, Duration.ofMinutes(3)).start();
    closeables.add(load);
    return load;
  }

  /**
   * The history checks out everywhere, the duplicates converge, each holds the new epoch and the
   * new repeater's published record.
   */
  private void assertInvariants(SteadyLoad load, RepeaterProcess current) throws Exception {
    assertThat(load.problems()).isEmpty();
    long lastSeq = 0;
    for (int id : List.of(1, 2)) {
      lastSeq = Math.max(lastSeq, appliedSeq(id));
    }
    cluster.awaitConverged(lastSeq, WAIT);
    for (int id : cluster.duplicateIds()) {
      try (ZooKeeper zk = connect(id)) {
        assertThat(
                BookkeepingState.decode(zk.getData(cluster.znodes().state(), false, null)).epoch())
            .as("duplicate %d's epoch", id)
            .isEqualTo(current.epoch());
        assertThat(load.problems(zk, cluster.znodes())).as("duplicate %d", id).isEmpty();
        if (id != 3) { // duplicate 3 may have been down when the record was published
          ActiveRepeater published =
              ActiveRepeater.decode(zk.getData(cluster.znodes().activeRepeater(), false, null));
          assertThat(published.epoch()).isEqualTo(current.epoch());
          assertThat(published.clientPort()).isEqualTo(current.address().getPort());
        }
      }
    }
  }

  private boolean recordsLeftOut(ZooKeeper zk, int duplicate) {
    try {
      return zk.exists(cluster.znodes().leftOut() + "/" + duplicate, false) != null;
    } catch (KeeperException e) {
      return true; // not known yet: ask again
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return true;
    }
  }

  private long appliedSeq(int duplicate) throws Exception {
    try (ZooKeeper zk = connect(duplicate)) {
      return BookkeepingState.decode(zk.getData(cluster.znodes().state(), false, null))
          .appliedSeq();
    }
  }

  private ZooKeeper connect(int duplicate) throws Exception {
    return ZooKeepers.connect(
        cluster.duplicate(duplicate).connectString(),
        Duration.ofSeconds(30),
        Duration.ofSeconds(30));
  }

  /** The lines of a repeater's output about the takeover, for the test's report. */
  private static String takeoverLines(RepeaterProcess repeater) {
    return repeater
        .output()
        .lines()
        .filter(
            l ->
                l.contains("failover:")
                    || l.contains("claimed in")
                    || l.contains("claiming epoch")
                    || l.contains("fenced")
                    || l.contains("rejoin"))
        .collect(java.util.stream.Collectors.joining("\n  ", "  ", "\n"));
  }

  private <T extends AutoCloseable> T track(T closeable) {
    closeables.add(closeable);
    return closeable;
  }
}
