package io.zoolander.server.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zoolander.client.ConnectionState;
import io.zoolander.client.Peer;
import io.zoolander.client.ReadPolicy;
import io.zoolander.client.WatchEvent;
import io.zoolander.client.WatchHandle;
import io.zoolander.client.Watcher;
import io.zoolander.client.WriteResult;
import io.zoolander.client.ZoolanderClient;
import io.zoolander.client.ZoolanderException;
import io.zoolander.server.plugin.ZoolanderPluginConfig;
import io.zoolander.testsupport.Await;
import io.zoolander.wire.PluginEndpoint;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
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
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Watches through {@link ZoolanderClient} on real ensembles (in-process ZooKeeper servers with the
 * plugin on each duplicate's leader, and a repeater): one-shot data, existence and child watches,
 * persistent recursive watches, each change delivered once and in seq order, the read floor raised
 * to an event's seq; and no change missed while a duplicate is killed, restarted, fenced and
 * brought back by a state transfer, and then the other one killed, all while writes flow.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class WatchesTest {

  private static final Duration WAIT = Duration.ofSeconds(60);

  /** Records what a watcher is told, and whether the client's read floor was at the event's seq. */
  private static final class Recorder implements Watcher {
    final ZoolanderClient client;
    final List<WatchEvent> events = new CopyOnWriteArrayList<>();
    final List<String> floorViolations = new CopyOnWriteArrayList<>();
    final Set<String> threads = ConcurrentHashMap.newKeySet();

    Recorder(ZoolanderClient client) {
      this.client = client;
    }

    @Override
    public void process(WatchEvent event) {
      threads.add(Thread.currentThread().getName());
      if (client.lastSeenSeq() < event.seq()) {
        floorViolations.add(event + " delivered at lastSeenSeq " + client.lastSeenSeq());
      }
      events.add(event);
    }

    boolean saw(long seq) {
      return events.stream().anyMatch(e -> e.seq() >= seq);
    }
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static <T> T get(java.util.concurrent.CompletableFuture<T> f) throws Exception {
    return f.get(60, TimeUnit.SECONDS);
  }

  @Test
  void oneShotAndPersistentWatchesDeliverEachChangeOnceInSeqOrder() throws Exception {
    try (EmbeddedCluster cluster =
            EmbeddedCluster.builder().duplicates(2).serverMode(ServerMode.IN_PROCESS).start();
        ZoolanderClient client = cluster.clientBuilder().readPolicy(ReadPolicy.fixed(2)).build()) {
      get(client.create("/cfg", utf8("v0")));

      // A one-shot data watch: the first change after the read, once, then nothing more.
      Recorder data = new Recorder(client);
      List<Long> readSeqs = new CopyOnWriteArrayList<>();
      assertThat(get(client.getData("/cfg", data)).data()).isEqualTo(utf8("v0"));
      Watcher readsInside =
          event -> {
            try {
              readSeqs.add(client.getData("/cfg").get(30, TimeUnit.SECONDS).appliedSeq());
            } catch (Exception e) {
              throw new IllegalStateException(e);
            }
          };
      client.blocking().getData("/cfg", readsInside); // the blocking twin
      WriteResult set1 = get(client.setData("/cfg", utf8("v1"), -1));
      WriteResult set2 = get(client.setData("/cfg", utf8("v2"), -1));

      // A one-shot child watch and an existence watch on a node that does not exist yet.
      Recorder children = new Recorder(client);
      assertThat(get(client.getChildren("/cfg", children))).isEmpty();
      Recorder existence = new Recorder(client);
      assertThat(get(client.exists("/later", existence))).isFalse();
      // A failed read leaves no watch.
      Recorder missing = new Recorder(client);
      assertThatThrownBy(() -> get(client.getData("/missing", missing)))
          .hasCauseInstanceOf(ZoolanderException.class);

      // A persistent recursive watch on /cfg.
      Recorder tree = new Recorder(client);
      WatchHandle handle = get(client.addPersistentRecursiveWatch("/cfg", tree));
      assertThat(handle.path()).isEqualTo("/cfg");
      WriteResult child = get(client.create("/cfg/a", utf8("a")));
      WriteResult later = get(client.create("/later", new byte[0]));
      WriteResult missingCreated = get(client.create("/missing", new byte[0]));
      WriteResult setChild = get(client.setData("/cfg/a", utf8("a1"), -1));
      WriteResult deleteChild = get(client.delete("/cfg/a", -1));
      // Every duplicate has applied (and reported) everything up to here.
      WriteResult end =
          get(client.writeAll(List.of(io.zoolander.wire.Op.setData("/cfg", utf8("end"), -1))));
      Await.await(WAIT, "the persistent watch saw the last write", () -> tree.saw(end.seq()));

      assertThat(data.events)
          .containsExactly(new WatchEvent(WatchEvent.Type.NODE_DATA_CHANGED, "/cfg", set1.seq()));
      Await.await(WAIT, "the watcher that reads inside", () -> readSeqs.size() == 1);
      assertThat(readSeqs.get(0))
          .as("a read from the watcher sees the event")
          .isGreaterThanOrEqualTo(set1.seq());
      assertThat(children.events)
          .containsExactly(
              new WatchEvent(WatchEvent.Type.NODE_CHILDREN_CHANGED, "/cfg", child.seq()));
      assertThat(existence.events)
          .containsExactly(new WatchEvent(WatchEvent.Type.NODE_CREATED, "/later", later.seq()));
      assertThat(missing.events).isEmpty();
      assertThat(missingCreated.succeeded()).isTrue();
      assertThat(tree.events)
          .containsExactly(
              new WatchEvent(WatchEvent.Type.NODE_CREATED, "/cfg/a", child.seq()),
              new WatchEvent(WatchEvent.Type.NODE_DATA_CHANGED, "/cfg/a", setChild.seq()),
              new WatchEvent(WatchEvent.Type.NODE_DELETED, "/cfg/a", deleteChild.seq()),
              new WatchEvent(WatchEvent.Type.NODE_DATA_CHANGED, "/cfg", end.seq()));
      assertThat(set2.seq()).isGreaterThan(set1.seq());
      for (Recorder r : List.of(data, children, existence, tree)) {
        assertThat(r.floorViolations).isEmpty();
        assertThat(r.threads).containsOnly("zoolander-client-watch");
      }

      // A closed handle delivers nothing more: a second watch, armed after the close, sees the
      // next write, and the first one does not.
      handle.close();
      Recorder root = new Recorder(client);
      WatchHandle rootHandle = get(client.addPersistentRecursiveWatch("/", root));
      WriteResult after = get(client.setData("/cfg", utf8("after"), -1));
      Await.await(WAIT, "the root watch saw the write", () -> root.saw(after.seq()));
      assertThat(root.events)
          .containsExactly(new WatchEvent(WatchEvent.Type.NODE_DATA_CHANGED, "/cfg", after.seq()));
      assertThat(tree.events).hasSize(4);
      rootHandle.close();

      // Bad input is refused at once.
      assertThatThrownBy(() -> get(client.addPersistentRecursiveWatch("no-slash", root)))
          .hasCauseInstanceOf(ZoolanderException.class)
          .cause()
          .satisfies(
              e ->
                  assertThat(((ZoolanderException) e).code())
                      .isEqualTo(KeeperException.Code.BADARGUMENTS));
    }
  }

  @Test
  void noChangeIsMissedWhileDuplicatesAreKilledFencedAndBroughtBack() throws Exception {
    try (EmbeddedCluster cluster =
            EmbeddedCluster.builder().duplicates(2).serverMode(ServerMode.IN_PROCESS).start();
        ZoolanderClient client = cluster.clientBuilder().readPolicy(ReadPolicy.fixed(2)).build()) {
      get(client.create("/flow", new byte[0]));
      Recorder tree = new Recorder(client);
      get(client.addPersistentRecursiveWatch("/flow", tree));

      Map<Long, String> written = new ConcurrentHashMap<>(); // seq -> path created
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
                  String path = "/flow/n-" + i;
                  try {
                    WriteResult r = get(client.create(path, utf8("x")));
                    if (r.succeeded()) {
                      written.put(r.seq(), path);
                    }
                  } catch (Exception e) {
                    failed.incrementAndGet(); // applied or not: not counted either way
                  }
                }
                return null;
              });
      try {
        moreWrites(written, permits);
        cluster.killDuplicate(2);
        moreWrites(written, permits);
        cluster.restartDuplicate(2);
        moreWrites(written, permits);
        awaitCaughtUp(cluster);
        moreWrites(written, permits);

        cluster.repeater().fence(2);
        moreWrites(written, permits);
        cluster.repeater().rejoin(2).get(60, TimeUnit.SECONDS);
        moreWrites(written, permits);
        awaitCaughtUp(cluster);
        moreWrites(written, permits);

        // Now only duplicate 2 (restarted, then rejoined by a state transfer) reports events.
        cluster.killDuplicate(1);
        moreWrites(written, permits);
      } finally {
        stop.set(true);
        writing.get(120, TimeUnit.SECONDS);
        writer.shutdown();
      }
      WriteResult end = get(client.create("/flow/end", new byte[0]));
      Await.await(WAIT, "the watch saw the last write", () -> tree.saw(end.seq()));
      written.put(end.seq(), "/flow/end");

      List<WatchEvent> events = new ArrayList<>(tree.events);
      long resyncs = events.stream().filter(e -> e.type() == WatchEvent.Type.RESYNC).count();
      System.out.printf(
          "%d writes (%d failed), %d events, %d RESYNC%n",
          written.size(), failed.get(), events.size(), resyncs);
      // In seq order, each change once.
      Set<String> seen = new HashSet<>();
      long previous = 0;
      for (WatchEvent e : events) {
        assertThat(e.seq()).as("seq order at %s", e).isGreaterThanOrEqualTo(previous);
        assertThat(seen.add(e.type() + " " + e.path() + " " + e.seq())).as("once: %s", e).isTrue();
        previous = e.seq();
      }
      // Every acknowledged write is reported, or covered by a RESYNC at or after its seq.
      Set<String> created = new HashSet<>();
      long lastResync = 0;
      for (WatchEvent e : events) {
        if (e.type() == WatchEvent.Type.NODE_CREATED) {
          created.add(e.seq() + " " + e.path());
        } else if (e.type() == WatchEvent.Type.RESYNC) {
          lastResync = Math.max(lastResync, e.seq());
        }
      }
      for (Map.Entry<Long, String> w : written.entrySet()) {
        assertThat(created.contains(w.getKey() + " " + w.getValue()) || lastResync >= w.getKey())
            .as("write %s at seq %d reported", w.getValue(), w.getKey())
            .isTrue();
      }
      assertThat(tree.floorViolations).isEmpty();
      assertThat(written.size()).isGreaterThanOrEqualTo(9 * 30);
    }
  }

  @Test
  void aClientCutOffLongerThanTheEventLogReachesGetsResyncThenEveryChange() throws Exception {
    try (EmbeddedCluster cluster =
        EmbeddedCluster.builder()
            .duplicates(1)
            .serverMode(ServerMode.IN_PROCESS)
            .duplicateProperty(1, ZoolanderPluginConfig.RECENT_WRITES_MESSAGES_KEY, "4")
            .start()) {
      Await.await(
          WAIT,
          "the plugin's endpoint",
          () -> cluster.repeater().duplicate(1).endpoint().isPresent());
      PluginEndpoint plugin = cluster.repeater().duplicate(1).endpoint().orElseThrow();
      InetSocketAddress repeater = cluster.repeater().boundAddress();
      try (FaultProxy proxy = FaultProxy.builder().target(plugin.host(), plugin.port()).start();
          ZoolanderClient writer = cluster.newClient();
          ZoolanderClient watching =
              ZoolanderClient.builder()
                  .basePath(cluster.znodes().basePath())
                  .repeater(repeater.getHostString(), repeater.getPort())
                  .duplicateAt("127.0.0.1", proxy.port())
                  .build()) {
        get(writer.create("/r", new byte[0]));
        Recorder tree = new Recorder(watching);
        get(watching.addPersistentRecursiveWatch("/r", tree));
        WriteResult a = get(writer.create("/r/a", new byte[0]));
        Await.await(WAIT, "the first event", () -> tree.saw(a.seq()));

        // Cut off while ten writes are applied: the plugin's event log keeps the last four.
        proxy.reset();
        Await.await(
            WAIT,
            "the watching client cut off",
            () ->
                watching.connectionState(Peer.duplicate(0)) != ConnectionState.CONNECTED
                    && watching.connectionState(Peer.duplicate(0)) != ConnectionState.RECONNECTED);
        WriteResult last = null;
        for (int i = 0; i < 10; i++) {
          last = get(writer.create("/r/x-" + i, new byte[0]));
        }
        long lastSeq = last.seq();
        proxy.pass();
        Await.await(WAIT, "the RESYNC", () -> tree.saw(lastSeq));
        WriteResult after = get(writer.create("/r/after", new byte[0]));
        Await.await(WAIT, "the event after it", () -> tree.saw(after.seq()));

        assertThat(tree.events)
            .containsExactly(
                new WatchEvent(WatchEvent.Type.NODE_CREATED, "/r/a", a.seq()),
                new WatchEvent(WatchEvent.Type.RESYNC, "/r", lastSeq),
                new WatchEvent(WatchEvent.Type.NODE_CREATED, "/r/after", after.seq()));
        assertThat(tree.floorViolations).isEmpty();
        // A read after the RESYNC sees what it covers.
        assertThat(get(watching.getChildren("/r"))).contains("a", "x-9");
      }
    }
  }

  /** Every duplicate has applied what the repeater had sequenced when this was called. */
  private static void awaitCaughtUp(EmbeddedCluster cluster) {
    long seq = cluster.repeater().nextSeq() - 1;
    Await.await(
        WAIT,
        "every duplicate applied seq " + seq,
        () -> {
          try {
            cluster.awaitApplied(seq, Duration.ofSeconds(5));
            return true;
          } catch (Exception e) {
            return false; // not yet, or a duplicate's server not answering yet
          }
        });
  }

  /**
   * Lets the writer write 60 more and waits until 30 more have been acknowledged: the next step
   * happens while the others flow.
   */
  private static void moreWrites(Map<Long, String> written, Semaphore permits) {
    int count = written.size() + 30;
    permits.release(60);
    Await.await(WAIT, count + " writes acknowledged", () -> written.size() >= count);
  }
}
