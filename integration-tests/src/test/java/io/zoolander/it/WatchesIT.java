package io.zoolander.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.zoolander.client.ReadPolicy;
import io.zoolander.client.WatchEvent;
import io.zoolander.client.WriteResult;
import io.zoolander.client.ZoolanderClient;
import io.zoolander.server.repeater.DuplicateView;
import io.zoolander.server.repeater.LinkState;
import io.zoolander.server.testing.EmbeddedCluster;
import io.zoolander.testsupport.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Watches across a leader change: two duplicates of three ZooKeeper servers each (child JVMs), a
 * persistent recursive watch and a one-shot data watch re-armed after every event, while a writer
 * creates and updates nodes; the leader of duplicate 1 is killed (kill -9), its plugin comes back
 * on a new leader, and the client arms its watches there again. Every acknowledged write is
 * reported once, in seq order (or covered by a RESYNC), and every one-shot event is a change the
 * writer made.
 */
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class WatchesIT {

  private static final Duration WAIT = Duration.ofSeconds(90);

  @Test
  void killingALeaderWhileEventsFlowLosesNoChange() throws Exception {
    try (EmbeddedCluster cluster =
            EmbeddedCluster.builder().duplicates(2).serversPerDuplicate(3).start();
        ZoolanderClient client = cluster.clientBuilder().readPolicy(ReadPolicy.fixed(2)).build()) {
      client.create("/w", new byte[0]).get(60, TimeUnit.SECONDS);
      client.create("/w/hot", new byte[0]).get(60, TimeUnit.SECONDS);
      List<WatchEvent> tree = new CopyOnWriteArrayList<>();
      client.addPersistentRecursiveWatch("/w", tree::add).get(60, TimeUnit.SECONDS);
      // A one-shot watch on /w/hot, armed again from its watcher after every event.
      List<WatchEvent> oneShots = new CopyOnWriteArrayList<>();
      AtomicBoolean rearm = new AtomicBoolean(true);
      Runnable[] arm = new Runnable[1];
      arm[0] =
          () ->
              client.getData(
                  "/w/hot",
                  e -> {
                    oneShots.add(e);
                    if (rearm.get()) {
                      arm[0].run();
                    }
                  });
      arm[0].run();

      Map<Long, String> written = new ConcurrentHashMap<>(); // seq -> "TYPE path"
      AtomicInteger failed = new AtomicInteger();
      AtomicBoolean stop = new AtomicBoolean();
      // The writer writes as many as it is allowed (moreWrites), so the phases do not depend on
      // how fast this machine is.
      Semaphore permits = new Semaphore(0);
      ExecutorService writer = Executors.newSingleThreadExecutor();
      Future<?> writing =
          writer.submit(
              () -> {
                for (int i = 0; i < 100_000; i++) {
                  if (!permits.tryAcquire(100, TimeUnit.MILLISECONDS)) {
                    if (stop.get()) {
                      break;
                    }
                    i--;
                    continue;
                  }
                  try {
                    if (i % 2 == 0) {
                      WriteResult r =
                          client.create("/w/n-" + i, new byte[0]).get(60, TimeUnit.SECONDS);
                      if (r.succeeded()) {
                        written.put(r.seq(), "NODE_CREATED /w/n-" + i);
                      }
                    } else {
                      WriteResult r =
                          client
                              .setData("/w/hot", new byte[] {(byte) i}, -1)
                              .get(60, TimeUnit.SECONDS);
                      if (r.succeeded()) {
                        written.put(r.seq(), "NODE_DATA_CHANGED /w/hot");
                      }
                    }
                  } catch (Exception e) {
                    failed.incrementAndGet();
                  }
                }
                return null;
              });
      try {
        awaitMore(written, permits, 100);
        int killedLeader = cluster.duplicate(1).awaitLeader(Duration.ofSeconds(10));
        cluster.duplicate(1).kill(killedLeader);
        Await.await(
            WAIT,
            "duplicate 1's plugin on a new leader and streaming",
            () -> {
              DuplicateView d = cluster.repeater().duplicate(1);
              return d.linkState() == LinkState.STREAMING
                  && d.endpoint().isPresent()
                  && d.endpoint().get().serverId() != killedLeader;
            });
        awaitMore(written, permits, 100);
        // Now duplicate 2 goes away: the events come from duplicate 1's new leader only.
        cluster.killDuplicate(2);
        awaitMore(written, permits, 100);
      } finally {
        stop.set(true);
        writing.get(120, TimeUnit.SECONDS);
        writer.shutdown();
      }
      WriteResult end = client.create("/w/end", new byte[0]).get(60, TimeUnit.SECONDS);
      written.put(end.seq(), "NODE_CREATED /w/end");
      Await.await(
          WAIT,
          "the watch saw the last write",
          () -> tree.stream().anyMatch(e -> e.seq() >= end.seq()));
      rearm.set(false);

      List<WatchEvent> events = new ArrayList<>(tree);
      Set<String> reported = new HashSet<>();
      long previous = 0;
      long lastResync = 0;
      for (WatchEvent e : events) {
        assertThat(e.seq()).as("seq order at %s", e).isGreaterThanOrEqualTo(previous);
        previous = e.seq();
        assertThat(reported.add(e.seq() + " " + e.type() + " " + e.path()))
            .as("once: %s", e)
            .isTrue();
        if (e.type() == WatchEvent.Type.RESYNC) {
          lastResync = Math.max(lastResync, e.seq());
        }
      }
      for (Map.Entry<Long, String> w : written.entrySet()) {
        assertThat(reported.contains(w.getKey() + " " + w.getValue()) || lastResync >= w.getKey())
            .as("seq %d: %s reported", w.getKey(), w.getValue())
            .isTrue();
      }
      long previousShot = 0;
      for (WatchEvent e : oneShots) {
        assertThat(e.seq()).isGreaterThan(previousShot);
        previousShot = e.seq();
        assertThat(
                e.type() == WatchEvent.Type.RESYNC
                    || ("NODE_DATA_CHANGED /w/hot").equals(written.get(e.seq())))
            .as("one-shot event %s is a change the writer made", e)
            .isTrue();
      }
      long resyncs = events.stream().filter(e -> e.type() == WatchEvent.Type.RESYNC).count();
      System.out.printf(
          "WATCHES ACROSS A LEADER KILL: %d writes (%d failed), %d events (%d RESYNC), %d one-shot"
              + " events%n",
          written.size(), failed.get(), events.size(), resyncs, oneShots.size());
      assertThat(oneShots).isNotEmpty();
    }
  }

  /**
   * Lets the writer write {@code 2 * more} more and waits until {@code more} more have been
   * acknowledged: the next step happens while the others flow.
   */
  private static void awaitMore(Map<Long, String> written, Semaphore permits, int more) {
    int count = written.size() + more;
    permits.release(2 * more);
    Await.await(WAIT, count + " writes acknowledged", () -> written.size() >= count);
  }
}
