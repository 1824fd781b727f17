package io.zoolander.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.zoolander.client.ReadPolicy;
import io.zoolander.client.ZoolanderClient;
import io.zoolander.server.internal.testing.Ports;
import io.zoolander.server.plugin.ZoolanderPluginConfig;
import io.zoolander.server.repeater.DuplicateView;
import io.zoolander.server.repeater.LinkState;
import io.zoolander.server.repeater.Repeater;
import io.zoolander.server.testing.EmbeddedCluster;
import io.zoolander.server.testing.FaultProxy;
import io.zoolander.testsupport.ZooKeepers;
import io.zoolander.wire.BookkeepingState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

/**
 * Network faults and a slow consumer, under steady write and read load, on three real one-server
 * duplicates. Duplicate 2's plugin is reached through two fault-injecting proxies: the repeater
 * through one (the plugin advertises the proxy's port), the clients through the other ({@code
 * duplicateAt}). Reads go to every duplicate ({@link ReadPolicy#all()}), so a duplicate that is
 * behind is asked all the time and must never answer with stale data.
 *
 * <p>The tests run in order on one deployment: the last two leave a duplicate fenced.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class NetworkFaultIT {
  /**
   * Large enough to hold what is written while a half-open connection goes unnoticed (the ack
   * timeout) and while the duplicate then catches up: at {@link #WRITES_PER_SECOND} for each of the
   * {@link #CLIENTS} clients, 10 s of writes.
   */
  private static final int LARGE_LOG = 10_000;

  /**
   * Each client's pace. Unpaced, the load went as fast as the data path (over 10,000 writes a
   * second on a quiet machine with a warm JIT), so the large log held less than a second of writes
   * and the half-open phase outgrew it before the ack timeout noticed the fault.
   */
  private static final int WRITES_PER_SECOND = 500;

  /** Small, so that a long partition or a slow duplicate outgrows it within seconds. */
  private static final int LOG_CAPACITY = 600;

  private static final Duration ACK_TIMEOUT = Duration.ofSeconds(4);
  private static final Duration WAIT = Duration.ofSeconds(90);
  private static final int CLIENTS = 2;

  /**
   * Writes of about 1 KiB: the repeater's buffers, counted in bytes, then hold a few thousand of
   * them, not tens.
   */
  private static final int PAYLOAD_BYTES = 1_000;

  private static EmbeddedCluster cluster;
  private static Repeater repeater;
  private static FaultProxy repeaterLink;
  private static FaultProxy clientLink;

  private final List<ZoolanderClient> clients = new ArrayList<>();
  private SteadyLoad load;

  @BeforeAll
  static void startCluster() throws Exception {
    int pluginPort = Ports.next();
    repeaterLink = FaultProxy.builder().target("127.0.0.1", pluginPort).start();
    clientLink = FaultProxy.builder().target("127.0.0.1", pluginPort).start();
    cluster =
        EmbeddedCluster.builder()
            .duplicates(3)
            .duplicateProperty(2, ZoolanderPluginConfig.PORT_KEY, Integer.toString(pluginPort))
            .duplicateProperty(
                2, ZoolanderPluginConfig.ADVERTISED_PORT_KEY, Integer.toString(repeaterLink.port()))
            .startRepeater(false)
            .start();
    repeater = cluster.startRepeater(b -> b.logCapacity(LARGE_LOG).pluginAckTimeout(ACK_TIMEOUT));
  }

  /**
   * A new repeater with a small log takes over (and the old one is closed): for the tests that
   * outgrow it.
   */
  private static void smallLog() throws Exception {
    if (repeaterLogIsSmall) {
      return;
    }
    cluster.killRepeater();
    // These tests show the fencing itself: no automatic state transfer (StateTransferIT shows
    // that).
    repeater =
        cluster.startRepeater(
            b -> b.logCapacity(LOG_CAPACITY).pluginAckTimeout(ACK_TIMEOUT).autoRejoin(false));
    repeaterLogIsSmall = true;
  }

  private static boolean repeaterLogIsSmall;

  @AfterAll
  static void stopCluster() {
    cluster.close();
    repeaterLink.close();
    clientLink.close();
  }

  /** Clients of the current repeater, and their steady load under {@code /<name>}. */
  private void startLoad(String name) throws Exception {
    for (int i = 0; i < CLIENTS; i++) {
      clients.add(
          ZoolanderClient.builder()
              .repeater("127.0.0.1", repeater.boundAddress().getPort())
              .basePath(cluster.znodes().basePath())
              .duplicate(cluster.duplicate(1).connectString())
              .duplicateAt("127.0.0.1", clientLink.port())
              .duplicate(cluster.duplicate(3).connectString())
              .readPolicy(ReadPolicy.all())
              .requestTimeout(Duration.ofSeconds(60))
              .build());
    }
    load =
        new SteadyLoad("/" + name, clients, 8, 50_000, Duration.ofMinutes(3), PAYLOAD_BYTES)
            .pacedAt(WRITES_PER_SECOND)
            .start();
    load.awaitAcked(100, WAIT);
  }

  @AfterEach
  void stopLoad() throws Exception {
    if (load != null) {
      load.stop();
    }
    clients.forEach(ZoolanderClient::close);
    repeaterLink.pass();
    clientLink.pass();
    cluster.clearAnomalyEverywhere();
  }

  @Test
  @Order(1)
  void aDuplicateCutOffFromTheRepeaterCatchesUpWhenHealedAndNeverServesStaleReads()
      throws Exception {
    startLoad("cut");
    List<String> figures = new ArrayList<>();
    phase("drop", FaultProxy::drop, false, figures);
    phase("reset", FaultProxy::reset, false, figures);
    phase("half-open", FaultProxy::halfOpen, true, figures);
    phase("delay 100 ms", p -> p.delay(Duration.ofMillis(100)), false, figures);
    load.stop();
    assertHistory(load, 1, 2, 3);
    System.out.println(
        "NETWORK FAULTS between the repeater and duplicate 2: "
            + String.join("; ", figures)
            + "; "
            + load.acked()
            + " writes, "
            + load.reads()
            + " reads, none stale");
  }

  /**
   * One fault on the repeater's link to duplicate 2 while 100 writes are acknowledged, then healed.
   *
   * @param untilGivenUp whether to keep the fault until the repeater gives the connection up (a
   *     half-open connection is noticed only by the ack timeout)
   */
  private void phase(
      String name, Consumer<FaultProxy> fault, boolean untilGivenUp, List<String> figures)
      throws Exception {
    long ackedBefore = load.acked();
    fault.accept(repeaterLink);
    long faulted = System.nanoTime();
    load.awaitAcked(ackedBefore + 100, WAIT);
    if (untilGivenUp) {
      SteadyLoad.await(
          "the repeater gave duplicate 2's connection up during " + name,
          () -> repeater.duplicate(2).linkState() != LinkState.STREAMING,
          WAIT,
          repeater::duplicates);
    }
    long behind = repeater.nextSeq() - 1 - appliedSeq(2);
    repeaterLink.pass();
    long healed = System.nanoTime();
    long target = repeater.nextSeq() - 1;
    SteadyLoad.await(
        "duplicate 2 caught up with seq " + target + " after " + name,
        () -> repeater.duplicate(2).ackedSeq() >= target,
        WAIT,
        repeater::duplicates);
    long caughtUp = System.nanoTime();
    assertThat(repeater.duplicate(2).fenced()).as("fenced after %s", name).isFalse();
    if (!name.startsWith("delay")) {
      assertThat(behind).as("duplicate 2 behind during %s", name).isPositive();
    }
    figures.add(
        String.format(
            "%s: %d ms, duplicate 2 %d behind, caught up %d ms after healing",
            name,
            TimeUnit.NANOSECONDS.toMillis(healed - faulted),
            behind,
            TimeUnit.NANOSECONDS.toMillis(caughtUp - healed)));
  }

  @Test
  @Order(2)
  void faultsBetweenClientsAndADuplicateDoNotStopReadsOrWrites() throws Exception {
    startLoad("clientLink");
    List<Consumer<FaultProxy>> faults =
        List.of(
            FaultProxy::drop,
            FaultProxy::reset,
            FaultProxy::halfOpen,
            p -> p.delay(Duration.ofMillis(100)));
    for (Consumer<FaultProxy> fault : faults) {
      long readsBefore = load.reads();
      fault.accept(clientLink);
      load.awaitAcked(load.acked() + 60, WAIT);
      SteadyLoad.await("reads go on", () -> load.reads() >= readsBefore + 15, WAIT);
      clientLink.pass();
    }
    load.stop();
    assertThat(load.readFailures()).as("reads that no duplicate answered").isZero();
    assertHistory(load, 1, 2, 3);
    System.out.println(
        "NETWORK FAULTS between the clients and duplicate 2 (drop, reset, half-open, delay): "
            + load.acked()
            + " writes, "
            + load.reads()
            + " reads, none failed or stale, longest read "
            + load.longestRead().toMillis()
            + " ms");
  }

  @Test
  @Order(3)
  void aSlowDuplicateIsFencedWithoutStallingTheOthersOrGrowingTheLog() throws Exception {
    smallLog();
    startLoad("slow");
    // Duplicate 3 applies each write 25 ms late: at most 40 writes/s, less than the load.
    cluster.injectAnomaly(3, "probability=1;delayMs=25;distribution=fixed;applies=writes");
    long start = System.nanoTime();
    int largestLog = 0;
    while (!repeater.duplicate(3).fenced() && System.nanoTime() - start < WAIT.toNanos()) {
      largestLog = Math.max(largestLog, repeater.logSize());
      Thread.sleep(20);
    }
    long fenced = System.nanoTime();
    assertThat(repeater.duplicate(3).fenced()).isTrue();
    assertThat(repeater.duplicate(3).fenceReason().orElseThrow()).contains("evicted");
    long ackedAtFence = load.acked();
    load.awaitAcked(ackedAtFence + 300, WAIT); // the others go on
    largestLog = Math.max(largestLog, repeater.logSize());
    load.stop();
    assertThat(largestLog).isLessThanOrEqualTo(LOG_CAPACITY);
    assertThat(repeater.duplicate(1).fenced()).isFalse();
    assertThat(repeater.duplicate(2).fenced()).isFalse();
    assertHistory(load, 1, 2);
    System.out.printf(
        "SLOW CONSUMER (duplicate 3 at 25 ms a write, log of %d): fenced after %d ms, largest log %d"
            + " writes; %d writes acknowledged meanwhile by the others and %d after%n",
        LOG_CAPACITY,
        TimeUnit.NANOSECONDS.toMillis(fenced - start),
        largestLog,
        ackedAtFence,
        load.acked() - ackedAtFence);
  }

  @Test
  @Order(4)
  void aDuplicateCutOffLongerThanTheLogHoldsIsFencedWhenHealed() throws Exception {
    smallLog();
    startLoad("long");
    repeaterLink.drop();
    long cutAt = repeater.nextSeq() - 1;
    // Longer than TCP buffers and the ack timeout hide: the repeater gives the connection up, then
    // the log moves on.
    SteadyLoad.await(
        "the repeater gave duplicate 2's connection up",
        () -> repeater.duplicate(2).linkState() != LinkState.STREAMING,
        WAIT,
        repeater::duplicates);
    load.awaitAcked(load.acked() + 2L * LOG_CAPACITY, WAIT);
    repeaterLink.pass();
    SteadyLoad.await(
        "duplicate 2 fenced",
        () -> repeater.duplicate(2).fenced(),
        WAIT,
        () ->
            repeater.duplicates() + " " + repeaterLink + " open " + repeaterLink.openConnections());
    load.awaitAcked(load.acked() + 100, WAIT); // duplicate 1 goes on alone
    load.stop();
    assertThat(appliedSeq(2))
        .as("duplicate 2 missed more than the log held")
        .isLessThan(repeater.nextSeq() - 1 - LOG_CAPACITY);
    assertThat(appliedSeq(2)).isGreaterThanOrEqualTo(cutAt - LOG_CAPACITY);
    assertThat(repeater.duplicates())
        .filteredOn(d -> !d.fenced())
        .extracting(DuplicateView::id)
        .containsExactly(1);
    assertThat(load.problems()).isEmpty();
    assertThat(load.readFailures()).isZero();
    System.out.println(
        "LONG PARTITION of duplicate 2 ("
            + 2 * LOG_CAPACITY
            + " writes, log of "
            + LOG_CAPACITY
            + "): fenced when healed: "
            + repeater.duplicate(2).fenceReason().orElseThrow());
  }

  /** The client-side history is clean, and the given (live) duplicates hold it, converged. */
  private void assertHistory(SteadyLoad load, int... duplicates) throws Exception {
    assertThat(load.problems()).isEmpty();
    long last = repeater.nextSeq() - 1;
    for (int id : duplicates) {
      SteadyLoad.await(
          "duplicate " + id + " applied " + last,
          () -> repeater.duplicate(id).ackedSeq() >= last,
          WAIT);
      try (ZooKeeper zk = connect(id)) {
        assertThat(load.problems(zk, cluster.znodes())).as("duplicate %d", id).isEmpty();
      }
    }
    if (duplicates.length == 3) {
      cluster.awaitConverged(last, WAIT);
    }
  }

  private static long appliedSeq(int duplicate) throws Exception {
    try (ZooKeeper zk = connect(duplicate)) {
      return BookkeepingState.decode(zk.getData(cluster.znodes().state(), false, null))
          .appliedSeq();
    }
  }

  private static ZooKeeper connect(int duplicate) throws Exception {
    ZooKeeper zk =
        ZooKeepers.connect(
            cluster.duplicate(duplicate).connectString(),
            Duration.ofSeconds(30),
            Duration.ofSeconds(30));
    return zk;
  }
}
