package io.zoolander.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zoolander.client.ConnectionState;
import io.zoolander.client.Peer;
import io.zoolander.client.ReadPolicy;
import io.zoolander.client.ZoolanderClient;
import io.zoolander.server.repeater.DuplicateView;
import io.zoolander.server.repeater.Repeater;
import io.zoolander.server.testing.EmbeddedCluster;
import io.zoolander.testsupport.ZooKeepers;
import io.zoolander.wire.Membership;
import io.zoolander.wire.Membership.Member;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 21, "changing N online": a duplicate added to and another retired from a running deployment
 * under steady load, then a takeover by a repeater whose configuration still names the old set.
 * Checked: the load's whole history (no acknowledged write lost or applied twice, per client order,
 * read-your-writes and monotonic reads), the membership record in every member, the retired
 * duplicate's fence record in its own ensemble, clients reading from the added duplicate and no
 * longer from the retired one, and the new repeater streaming to the members the record names.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class MembershipChangeIT {
  private static final Duration WAIT = Duration.ofSeconds(90);
  private static final int WRITES_PER_SECOND = 200;

  private EmbeddedCluster cluster;
  private final List<ZoolanderClient> clients = new ArrayList<>();
  private Repeater successor;

  @AfterEach
  void stop() {
    clients.forEach(ZoolanderClient::close);
    if (successor != null) {
      successor.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void aDuplicateAddedAndAnotherRetiredUnderLoadLoseNothingAndATakeoverFollowsTheRecord()
      throws Exception {
    cluster = EmbeddedCluster.builder().duplicates(2).start();
    Repeater repeater = cluster.repeater();
    assertThat(repeater.membership().version()).isEqualTo(1);
    AtomicLong readsFromAdded = new AtomicLong();
    AtomicLong readsFromRetired = new AtomicLong();
    for (int i = 0; i < 2; i++) {
      ZoolanderClient client =
          cluster.clientBuilder().readPolicy(ReadPolicy.all()).requestTimeout(WAIT).build();
      // Positions in the client: 0 and 1 as configured (duplicates 1 and 2), 2 once it learns of
      // duplicate 3.
      client.addReplyListener(
          e -> {
            if (!e.write() && e.duplicateIndex() == 2) {
              readsFromAdded.incrementAndGet();
            }
            if (!e.write() && e.duplicateIndex() == 0) {
              readsFromRetired.incrementAndGet();
            }
          });
      clients.add(client);
    }
    SteadyLoad load =
        new SteadyLoad("/members", clients, 4, 100_000, Duration.ofMinutes(4), 200)
            .pacedAt(WRITES_PER_SECOND)
            .start();
    load.awaitAcked(200, WAIT);

    // Add duplicate 3: an empty ensemble, rejoined by state transfer while the load runs.
    int added = cluster.addDuplicate(WAIT);
    assertThat(added).isEqualTo(3);
    Membership afterAdd = repeater.membership();
    assertThat(afterAdd.version()).isEqualTo(3); // joining, then active
    assertThat(afterAdd.members()).extracting(Member::duplicateId).containsExactly(1, 2, 3);
    assertThat(afterAdd.activeCount()).isEqualTo(3);
    assertThat(repeater.duplicate(3).fenced()).isFalse();
    long acked = load.acked();
    load.awaitAcked(acked + 200, WAIT);
    SteadyLoad.await(
        "clients reading from the added duplicate", () -> readsFromAdded.get() > 0, WAIT);

    // Retire duplicate 1 while the load runs.
    assertThatThrownBy(() -> repeater.addDuplicate(2, "127.0.0.1:1").join())
        .isInstanceOf(CompletionException.class)
        .hasMessageContaining("duplicate 2 is already a member");
    cluster.retireDuplicate(1, WAIT);
    Membership afterRetire = repeater.membership();
    assertThat(afterRetire.version()).isEqualTo(4);
    assertThat(afterRetire.members()).extracting(Member::duplicateId).containsExactly(2, 3);
    assertThat(repeater.duplicates()).extracting(DuplicateView::id).containsExactly(2, 3);
    // Clients drop the retired duplicate (close its link) once the record reaches them.
    SteadyLoad.await(
        "every client dropped duplicate 1",
        () ->
            clients.stream()
                .allMatch(c -> c.connectionState(Peer.duplicate(0)) == ConnectionState.LOST),
        WAIT);
    long retiredReads = readsFromRetired.get();
    acked = load.acked();
    load.awaitAcked(acked + 200, WAIT);
    long stillReading = readsFromRetired.get() - retiredReads;
    load.stop();

    // The history: nothing lost or applied twice, in the duplicates the deployment runs now.
    assertThat(load.problems()).isEmpty();
    long last = repeater.nextSeq() - 1;
    for (int id : List.of(2, 3)) {
      SteadyLoad.await(
          "duplicate " + id + " applied " + last,
          () -> repeater.duplicate(id).ackedSeq() >= last,
          WAIT);
      try (ZooKeeper zk = connect(cluster.duplicate(id).connectString())) {
        assertThat(load.problems(zk, cluster.znodes())).as("duplicate %d", id).isEmpty();
        assertThat(Membership.decode(zk.getData(cluster.znodes().members(), false, null)))
            .isEqualTo(afterRetire);
      }
    }
    cluster.awaitConverged(last, WAIT);
    // No answer from the retired duplicate after the clients dropped it (it is fenced, too).
    assertThat(stillReading).as("reads answered by duplicate 1 after it was retired").isZero();
    // The retired duplicate knows: its plugin recorded the fence in its own ensemble.
    try (ZooKeeper zk = connect(cluster.retiredDuplicate(1).connectString())) {
      SteadyLoad.await(
          "duplicate 1's fence record",
          () -> {
            try {
              return zk.exists(cluster.znodes().fenceRecord(), false) != null;
            } catch (Exception e) {
              return false;
            }
          },
          WAIT);
      assertThat(
              new String(
                  zk.getData(cluster.znodes().fenceRecord(), false, null), StandardCharsets.UTF_8))
          .contains("retired");
    }

    // A repeater configured with the old set (1 and 2) takes over: it follows the record.
    cluster.killRepeater();
    successor =
        Repeater.builder()
            .basePath(cluster.znodes().basePath())
            .duplicate(1, cluster.retiredDuplicate(1).connectString())
            .duplicate(2, cluster.duplicate(2).connectString())
            .build()
            .start();
    assertThat(successor.membership()).isEqualTo(afterRetire);
    assertThat(successor.duplicates()).extracting(DuplicateView::id).containsExactly(2, 3);
    assertThat(successor.takeover().appliedSeqs()).containsOnlyKeys(2, 3);
    try (ZoolanderClient client =
        ZoolanderClient.builder()
            .repeater("127.0.0.1", successor.boundAddress().getPort())
            .basePath(cluster.znodes().basePath())
            .duplicate(cluster.duplicate(2).connectString())
            .duplicate(cluster.duplicate(3).connectString())
            .build()) {
      client.create("/after-takeover", new byte[] {7}).join();
    }
    long lastAfter = successor.nextSeq() - 1;
    for (int id : List.of(2, 3)) {
      SteadyLoad.await(
          "duplicate " + id + " applied " + lastAfter + " from the successor",
          () -> successor.duplicate(id).ackedSeq() >= lastAfter,
          WAIT);
    }
    try (ZooKeeper zk = connect(cluster.retiredDuplicate(1).connectString())) {
      assertThat(zk.exists(cluster.znodes().toZnode("/after-takeover"), false))
          .as("the retired duplicate got no write from the successor")
          .isNull();
    }
  }

  private static ZooKeeper connect(String connectString) throws Exception {
    return ZooKeepers.connect(connectString, Duration.ofSeconds(30), Duration.ofSeconds(30));
  }
}
