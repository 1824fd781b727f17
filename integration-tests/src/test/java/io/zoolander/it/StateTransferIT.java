package io.zoolander.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zoolander.client.ReadPolicy;
import io.zoolander.client.ZoolanderClient;
import io.zoolander.client.ZoolanderException;
import io.zoolander.server.repeater.DuplicateView;
import io.zoolander.server.repeater.Rejoin;
import io.zoolander.server.repeater.Repeater;
import io.zoolander.server.repeater.RepeaterListener;
import io.zoolander.server.testing.EmbeddedCluster;
import io.zoolander.server.testing.ServerMode;
import io.zoolander.server.testing.TreeDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

/**
 * A whole duplicate lost and brought back, empty or stale, after its missing writes have left the
 * repeater's log: fenced when it comes back, it rejoins by state transfer from a healthy duplicate
 * by itself, then follows the stream; and an operator fences a duplicate and rejoins it. Under
 * steady write and read load (reads to every duplicate), each test checks that no read was stale (a
 * client that has seen newer writes never got older state, from the duplicate that was behind
 * either), the history, and convergence by {@link TreeDigest} (data, data versions, child
 * versions). Three one-server duplicates, in-process, one repeater with a small log.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class StateTransferIT {
  /**
   * Small, so that a duplicate that is down misses more than the log holds within a second or two
   * of full load, yet large enough to hold what the lighter load sequences during a transfer, as
   * the log must.
   */
  private static final int LOG_CAPACITY = 600;

  private static final Duration WAIT = Duration.ofSeconds(90);
  private static final int CLIENTS = 2;
  private static final int PAYLOAD_BYTES = 500;

  /** Each test on a cluster of its own: the tree a transfer copies is the test's own. */
  private EmbeddedCluster cluster;

  private Repeater repeater;
  private final BlockingQueue<Rejoin> rejoins = new LinkedBlockingQueue<>();
  private final BlockingQueue<String> fences = new LinkedBlockingQueue<>();

  private final List<ZoolanderClient> clients = new ArrayList<>();

  /**
   * Full load while the duplicate is away; then a lighter one (one client, one write at a time)
   * while it rejoins.
   */
  private SteadyLoad load;

  private SteadyLoad light;

  @BeforeEach
  void startCluster() throws Exception {
    cluster =
        EmbeddedCluster.builder()
            .duplicates(3)
            .serverMode(ServerMode.IN_PROCESS)
            .startRepeater(false)
            .start();
    repeater =
        cluster.startRepeater(
            b ->
                b.logCapacity(LOG_CAPACITY)
                    .listener(
                        new RepeaterListener() {
                          @Override
                          public void duplicateRejoined(Rejoin rejoin) {
                            rejoins.add(rejoin);
                          }

                          @Override
                          public void duplicateFenced(DuplicateView duplicate, String reason) {
                            fences.add(duplicate.id() + ": " + reason);
                          }
                        }));
  }

  @AfterEach
  void stop() throws Exception {
    if (load != null) {
      load.stop();
    }
    if (light != null) {
      light.stop();
    }
    clients.forEach(ZoolanderClient::close);
    cluster.close();
  }

  @Test
  @Order(1)
  void aDuplicateBroughtBackEmptyRejoinsByStateTransferAndFollowsTheStream() throws Exception {
    Rejoin rejoin = loseAndBringBack(3, true, "empty");
    System.out.println("STATE TRANSFER to duplicate 3, brought back empty: " + describe(rejoin));
  }

  @Test
  @Order(2)
  void aDuplicateBroughtBackStaleRejoinsByStateTransferAndFollowsTheStream() throws Exception {
    Rejoin rejoin = loseAndBringBack(2, false, "stale");
    System.out.println("STATE TRANSFER to duplicate 2, brought back stale: " + describe(rejoin));
  }

  @Test
  @Order(3)
  void anOperatorFencesADuplicateAndRejoinsIt() throws Exception {
    startLoad("operator");
    repeater.fence(1);
    assertThat(repeater.duplicate(1).fenced()).isTrue();
    assertThat(repeater.duplicate(1).fenceReason()).hasValue("fenced by the operator");
    long fencedAt = repeater.nextSeq() - 1;
    load.awaitAcked(
        load.acked() + 2L * LOG_CAPACITY, WAIT); // the others go on; the log moves past duplicate 1
    assertThat(repeater.duplicate(1).fenced())
        .as("an operator's fence is not undone automatically")
        .isTrue();
    assertThat(repeater.duplicate(1).ackedSeq()).isLessThan(repeater.nextSeq() - 1 - LOG_CAPACITY);
    // Its plugin serves no reads: a client that knows only duplicate 1 is refused (FENCED),
    // whatever it asks.
    try (ZoolanderClient onlyOne =
        onlyDuplicate(1).requestTimeout(Duration.ofMillis(1_500)).build()) {
      assertThatThrownBy(() -> onlyOne.getData("/operator").get(30, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .hasCauseInstanceOf(ZoolanderException.class);
    }
    lighten("operator", 1);

    long start = System.nanoTime();
    repeater.rejoin(1).get(WAIT.toSeconds(), TimeUnit.SECONDS);
    long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    Rejoin rejoin = rejoins.poll(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(rejoin).isNotNull();
    assertThat(rejoin.duplicateId()).isEqualTo(1);
    assertThat(rejoin.automatic()).isFalse();
    assertThat(rejoin.snapshotSeq()).isGreaterThan(fencedAt);
    assertThat(repeater.duplicate(1).fenced()).isFalse();
    readYourWriteFromOnly(1, "/operator-probe");
    light.awaitAcked(light.acked() + 50, WAIT);
    light.stop();
    assertHistoryAndConvergence();
    System.out.println(
        "OPERATOR FENCE, then rejoin of duplicate 1 (rejoin returned after "
            + millis
            + " ms): "
            + describe(rejoin));
  }

  // -------------------------------------------------------------------------------------------------

  /**
   * Kills duplicate {@code id} under load (wiping its data if {@code empty}), writes twice the
   * log's capacity meanwhile, brings it back and checks that it is fenced, rejoins by itself by
   * state transfer, and then follows.
   */
  private Rejoin loseAndBringBack(int id, boolean empty, String name) throws Exception {
    startLoad(name);
    cluster.killDuplicate(id);
    long downAt = repeater.nextSeq() - 1;
    if (empty) {
      cluster.wipeDuplicate(id);
    }
    load.awaitAcked(load.acked() + 2L * LOG_CAPACITY, WAIT);
    long missed = repeater.nextSeq() - 1 - downAt;
    assertThat(missed).as("writes missed, more than the log holds").isGreaterThan(LOG_CAPACITY);
    lighten(name, id);
    fences.clear();
    long restartedAt = System.nanoTime();
    cluster.duplicate(id).start();

    Rejoin rejoin = rejoins.poll(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(rejoin)
        .as("duplicate %d rejoined; fences: %s, duplicates: %s", id, fences, repeater.duplicates())
        .isNotNull();
    long rejoinedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - restartedAt);
    assertThat(fences)
        .as("fenced first, for what the log no longer holds")
        .anyMatch(f -> f.startsWith(id + ": ") && f.contains("no longer holds"));
    assertThat(rejoin.duplicateId()).isEqualTo(id);
    assertThat(rejoin.automatic()).isTrue();
    assertThat(rejoin.sourceDuplicateId()).isNotEqualTo(id);
    assertThat(rejoin.snapshotSeq()).isGreaterThan(downAt + LOG_CAPACITY);
    assertThat(rejoin.znodes()).isGreaterThan(CLIENTS);
    assertThat(rejoin.bytes()).isPositive();
    assertThat(repeater.duplicate(id).fenced()).isFalse();
    readYourWriteFromOnly(id, "/" + name + "-probe");
    light.awaitAcked(light.acked() + 50, WAIT); // then it follows the stream
    light.stop();
    assertHistoryAndConvergence();
    System.out.println(
        "  ("
            + missed
            + " writes missed while down, fenced and rejoined "
            + rejoinedMillis
            + " ms after its restart)");
    return rejoin;
  }

  /**
   * A client that knows only duplicate {@code id} writes and reads back: the read is answered only
   * once that duplicate has applied the write (it refuses while it is behind), and with the write's
   * data, never older state.
   */
  private void readYourWriteFromOnly(int id, String path) throws Exception {
    try (ZoolanderClient onlyOne =
        onlyDuplicate(id).requestTimeout(Duration.ofSeconds(60)).build()) {
      byte[] data = ("written after the rejoin of duplicate " + id).getBytes(UTF_8);
      long seq = onlyOne.create(path, data).get(60, TimeUnit.SECONDS).seq();
      var read = onlyOne.getData(path).get(60, TimeUnit.SECONDS);
      assertThat(read.duplicateId()).isEqualTo(id);
      assertThat(read.appliedSeq()).isGreaterThanOrEqualTo(seq);
      assertThat(read.data()).isEqualTo(data);
    }
  }

  private io.zoolander.client.ZoolanderClientBuilder onlyDuplicate(int id) {
    return ZoolanderClient.builder()
        .repeater("127.0.0.1", repeater.boundAddress().getPort())
        .basePath(cluster.znodes().basePath())
        .duplicate(cluster.duplicate(id).connectString());
  }

  private void startLoad(String name) throws Exception {
    for (int i = 0; i < CLIENTS; i++) {
      clients.add(
          cluster
              .clientBuilder()
              .readPolicy(ReadPolicy.all())
              .requestTimeout(Duration.ofSeconds(60))
              .build());
    }
    load =
        new SteadyLoad("/" + name, clients, 8, 50_000, Duration.ofMinutes(3), PAYLOAD_BYTES)
            .start();
    load.awaitAcked(100, WAIT);
  }

  /**
   * Stops the full load and starts a light one: the writes sequenced during a transfer must fit in
   * the log, and a closed loop on loopback sequences several hundred a second. The healthy
   * duplicates apply each write 2 ms late (the anomaly injector), which bounds the light load to a
   * few hundred writes a second while a transfer of a thousand-odd znodes takes about a second
   * here.
   */
  private void lighten(String name, int rejoining) throws Exception {
    load.stop();
    for (int id : List.of(1, 2, 3)) {
      if (id != rejoining) {
        cluster.injectAnomaly(id, "probability=1;delayMs=2;distribution=fixed;applies=writes");
      }
    }
    light =
        new SteadyLoad(
                "/" + name + "-light",
                List.of(clients.get(0)),
                1,
                50_000,
                Duration.ofMinutes(3),
                PAYLOAD_BYTES)
            .start();
    light.awaitAcked(10, WAIT);
  }

  private void assertHistoryAndConvergence() throws Exception {
    for (SteadyLoad l : List.of(load, light)) {
      assertThat(l.problems()).as("stale reads, lost or reordered writes").isEmpty();
      assertThat(l.readFailures()).as("reads no duplicate answered").isZero();
    }
    long last = repeater.nextSeq() - 1;
    Map<Integer, TreeDigest> digests = cluster.awaitConverged(last, WAIT);
    assertThat(digests).containsOnlyKeys(1, 2, 3);
    for (int id : List.of(1, 2, 3)) {
      assertThat(digests.get(id).differences(digests.get(1), 5)).as("duplicate %d", id).isEmpty();
      try (DuplicateReader reader =
          new DuplicateReader(cluster.duplicate(id).connectString(), cluster.znodes())) {
        assertThat(reader.problems(load)).as("duplicate %d", id).isEmpty();
        assertThat(reader.problems(light)).as("duplicate %d", id).isEmpty();
      }
    }
  }

  private static String describe(Rejoin r) {
    return String.format(
        "%d znodes, %,d bytes in %d chunks from duplicate %d, snapshot at seq %d, streaming again"
            + " %d ms after the rejoin started",
        r.znodes(), r.bytes(), r.chunks(), r.sourceDuplicateId(), r.snapshotSeq(), r.millis());
  }
}
