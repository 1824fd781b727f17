package io.zoolander.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.zoolander.client.WriteResult;
import io.zoolander.client.ZoolanderClient;
import io.zoolander.server.repeater.DuplicateView;
import io.zoolander.server.repeater.LinkState;
import io.zoolander.server.testing.EmbeddedCluster;
import io.zoolander.server.testing.TreeDigest;
import io.zoolander.wire.Op;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Sequenced writes end to end on real ZooKeeper ensembles (child JVMs) with the plugin, a real
 * repeater and real clients: every duplicate applies the same writes in the same order, exactly
 * once.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class WritePathIT {
  private static final int CLIENTS = 4;
  private static final int WRITES = 10_000;

  @Test
  void tenThousandWritesOnThreeSingleServerDuplicatesConverge() throws Exception {
    try (EmbeddedCluster cluster =
        EmbeddedCluster.builder().duplicates(3).serversPerDuplicate(1).start()) {
      runConcurrentClientsAndCheck(cluster);
    }
  }

  @Test
  void tenThousandWritesOnTwoThreeServerDuplicatesConverge() throws Exception {
    try (EmbeddedCluster cluster =
        EmbeddedCluster.builder().duplicates(2).serversPerDuplicate(3).start()) {
      runConcurrentClientsAndCheck(cluster);
    }
  }

  private static void runConcurrentClientsAndCheck(EmbeddedCluster cluster) throws Exception {
    List<CompletableFuture<WriteWorkload.ClientRun>> runs = new ArrayList<>();
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    List<ZoolanderClient> clients = new ArrayList<>();
    for (int i = 0; i < CLIENTS; i++) {
      ZoolanderClient client = cluster.clientBuilder().meterRegistry(meters).build();
      clients.add(client);
      int index = i;
      runs.add(
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return WriteWorkload.run(client, index, WRITES / CLIENTS, 64);
                } catch (InterruptedException e) {
                  throw new IllegalStateException(e);
                }
              }));
    }
    long lastSeq = 0;
    List<WriteWorkload.ClientRun> done = new ArrayList<>();
    for (CompletableFuture<WriteWorkload.ClientRun> f : runs) {
      WriteWorkload.ClientRun run = f.get(4, TimeUnit.MINUTES);
      assertThat(run.problems()).as("client %d", run.client()).isEmpty();
      lastSeq = Math.max(lastSeq, run.lastSeq());
      done.add(run);
    }
    // Every sequenced message took one seq: the parents' creates, the workload, and each re-sent
    // write (a write
    // unanswered after writeRetryMs is sent again; the duplicates apply it once, but the copy still
    // takes a seq).
    long retries = writeRetries(meters);
    clients.forEach(ZoolanderClient::close);
    long sequenced = cluster.repeater().nextSeq() - 1;
    assertThat(sequenced).as("%d re-sent writes", retries).isEqualTo(WRITES + CLIENTS + retries);
    assertThat(lastSeq).isLessThanOrEqualTo(sequenced);
    assertConverged(cluster, sequenced);
    for (int id : cluster.duplicateIds()) {
      try (DuplicateReader reader =
          new DuplicateReader(cluster.duplicate(id).connectString(), cluster.znodes())) {
        for (WriteWorkload.ClientRun run : done) {
          assertThat(reader.orderProblems(run))
              .as("duplicate %d, client %d", id, run.client())
              .isEmpty();
        }
      }
    }
  }

  private static long writeRetries(SimpleMeterRegistry meters) {
    return Math.round(
        meters.get("zoolander.client.retries").tag("op", "write").counters().stream()
            .mapToDouble(c -> c.count())
            .sum());
  }

  /** Every duplicate applied exactly up to {@code lastSeq} and holds the same tree. */
  static Map<Integer, TreeDigest> assertConverged(EmbeddedCluster cluster, long lastSeq)
      throws Exception {
    Map<Integer, TreeDigest> digests = cluster.awaitApplied(lastSeq, Duration.ofSeconds(60));
    TreeDigest first = digests.values().iterator().next();
    digests.forEach(
        (id, digest) -> {
          assertThat(digest.state().appliedSeq())
              .as("duplicate %d appliedSeq", id)
              .isEqualTo(lastSeq);
          assertThat(digest.differences(first, 5)).as("duplicate %d vs duplicate 1", id).isEmpty();
          assertThat(digest).isEqualTo(first);
        });
    return digests;
  }

  @Test
  void conditionalWritesFailIdenticallyEverywhereAndStillAdvanceTheSequence() throws Exception {
    try (EmbeddedCluster cluster = EmbeddedCluster.builder().duplicates(3).start();
        ZoolanderClient client = cluster.newClient()) {
      WriteResult created =
          client.create("/cond", WriteWorkload.bytes(1)).get(30, TimeUnit.SECONDS);
      assertThat(created.succeeded()).isTrue();
      WriteResult again = client.create("/cond", WriteWorkload.bytes(2)).get(30, TimeUnit.SECONDS);
      assertThat(again.code()).isEqualTo(KeeperException.Code.NODEEXISTS);
      WriteResult badVersion =
          client.setData("/cond", WriteWorkload.bytes(3), 7).get(30, TimeUnit.SECONDS);
      assertThat(badVersion.code()).isEqualTo(KeeperException.Code.BADVERSION);
      WriteResult noNode = client.delete("/missing", -1).get(30, TimeUnit.SECONDS);
      assertThat(noNode.code()).isEqualTo(KeeperException.Code.NONODE);
      WriteResult multi =
          client
              .write(List.of(Op.create("/m1", new byte[0]), Op.create("/cond", new byte[0])))
              .get(30, TimeUnit.SECONDS);
      assertThat(multi.code()).isEqualTo(KeeperException.Code.NODEEXISTS);
      WriteResult ok = client.setData("/cond", WriteWorkload.bytes(4), 0).get(30, TimeUnit.SECONDS);
      assertThat(ok.succeeded()).isTrue();
      // Failed writes took seqs too: the sequence has no holes.
      assertThat(
              List.of(
                  created.seq(),
                  again.seq(),
                  badVersion.seq(),
                  noNode.seq(),
                  multi.seq(),
                  ok.seq()))
          .containsExactly(1L, 2L, 3L, 4L, 5L, 6L);
      assertConverged(cluster, ok.seq());
      for (int id : cluster.duplicateIds()) {
        try (DuplicateReader reader =
            new DuplicateReader(cluster.duplicate(id).connectString(), cluster.znodes())) {
          assertThat(reader.exists("/m1"))
              .as("duplicate %d: the failed multi left nothing", id)
              .isFalse();
          Stat stat = new Stat();
          assertThat(WriteWorkload.counter(reader.data("/cond", stat))).isEqualTo(4);
          assertThat(stat.getVersion()).isEqualTo(1);
        }
      }
    }
  }

  @Test
  void aDuplicateRestartedMidStreamCatchesUpWithNothingAppliedTwice() throws Exception {
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    try (EmbeddedCluster cluster = EmbeddedCluster.builder().duplicates(3).start();
        ZoolanderClient client = cluster.clientBuilder().meterRegistry(meters).build()) {
      client.create("/counter", WriteWorkload.bytes(0)).get(30, TimeUnit.SECONDS);
      int writes = 3_000;
      long lastSeq = 0;
      for (int k = 1; k <= writes; k++) {
        if (k == 1_000) {
          cluster.duplicate(2).kill(1);
        } else if (k == 2_000) {
          cluster.duplicate(2).restart(1);
        }
        WriteResult r =
            client.setData("/counter", WriteWorkload.bytes(k), -1).get(30, TimeUnit.SECONDS);
        assertThat(r.succeeded()).isTrue();
        lastSeq = r.seq();
      }
      // One seq per sequenced message: the create, the writes, and each re-sent write (applied
      // once, see below).
      long sequenced = cluster.repeater().nextSeq() - 1;
      assertThat(sequenced).isEqualTo(writes + 1 + writeRetries(meters));
      assertThat(lastSeq).isLessThanOrEqualTo(sequenced);
      assertConverged(cluster, sequenced);
      for (int id : cluster.duplicateIds()) {
        try (DuplicateReader reader =
            new DuplicateReader(cluster.duplicate(id).connectString(), cluster.znodes())) {
          Stat stat = new Stat();
          assertThat(WriteWorkload.counter(reader.data("/counter", stat))).isEqualTo(writes);
          assertThat(stat.getVersion())
              .as("duplicate %d: each setData applied exactly once", id)
              .isEqualTo(writes);
        }
      }
    }
  }

  @Test
  void killingTheLeaderOfAThreeServerDuplicateUnderLoadMovesThePluginAndLosesNothing()
      throws Exception {
    try (EmbeddedCluster cluster =
        EmbeddedCluster.builder().duplicates(2).serversPerDuplicate(3).start()) {
      List<ZoolanderClient> clients = List.of(cluster.newClient(), cluster.newClient());
      SteadyLoad load =
          new SteadyLoad("/leader", clients, 8, 20_000, Duration.ofMinutes(3)).start();
      load.awaitAcked(600, Duration.ofSeconds(90));
      int killedLeader = cluster.duplicate(1).awaitLeader(Duration.ofSeconds(10));
      long readsBefore = load.reads();
      long killed = System.nanoTime();
      cluster.duplicate(1).kill(killedLeader); // kill -9
      // Meanwhile duplicate 2 answers every write and read; duplicate 1's writes wait in the
      // repeater's log.
      SteadyLoad.await(
          "duplicate 1's plugin on a new leader and streaming",
          () -> {
            DuplicateView d = cluster.repeater().duplicate(1);
            return d.linkState() == LinkState.STREAMING
                && d.endpoint().isPresent()
                && d.endpoint().get().serverId() != killedLeader;
          },
          Duration.ofSeconds(60));
      long moved = System.nanoTime();
      long ackedAtMove = load.acked();
      load.awaitAcked(ackedAtMove + 600, Duration.ofSeconds(90));
      load.stop();

      assertThat(cluster.duplicate(1).awaitLeader(Duration.ofSeconds(30)))
          .isNotEqualTo(killedLeader);
      assertThat(load.problems()).isEmpty();
      assertThat(load.readFailures()).as("reads that no duplicate answered").isZero();
      assertThat(cluster.repeater().duplicates()).noneMatch(DuplicateView::fenced);
      assertConverged(cluster, cluster.repeater().nextSeq() - 1);
      for (int id : cluster.duplicateIds()) {
        try (DuplicateReader reader =
            new DuplicateReader(cluster.duplicate(id).connectString(), cluster.znodes())) {
          assertThat(reader.problems(load)).as("duplicate %d", id).isEmpty();
        }
      }
      System.out.printf(
          "LEADER KILL (kill -9 of duplicate 1's leader, 2 duplicates of 3 servers): its plugin streaming"
              + " again from a new leader after %d ms; %d reads served meanwhile by duplicate 2, none failed, longest"
              + " read %d ms; longest time without a write acknowledged %d ms; %d writes in all%n",
          TimeUnit.NANOSECONDS.toMillis(moved - killed),
          load.reads() - readsBefore,
          load.longestRead().toMillis(),
          load.longestAckGap(killed, moved).toMillis(),
          load.acked());
    }
  }
}
