package io.zoolander.client;

import static io.zoolander.testsupport.Await.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.zoolander.testsupport.ScriptedPeer;
import io.zoolander.wire.Message;
import io.zoolander.wire.Message.WatchEvent.Change;
import io.zoolander.wire.WatchEventType;
import io.zoolander.wire.WatchKind;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Watches, client side, against two scripted plugins: a watch is armed on both after its read, at
 * the read's seq; each seq is delivered once whichever duplicate reports it first, in seq order,
 * with the read floor raised; a reconnected duplicate gets the watch again from the last seq
 * delivered (or acknowledged); a one-shot watch is removed everywhere once it fired; RESYNC is
 * delivered like any event.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class WatchClientTest {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final long READ_SEQ = 10;

  private ScriptedPeer repeater;
  private ScriptedPeer one;
  private ScriptedPeer two;

  @BeforeEach
  void start() throws Exception {
    repeater = ScriptedPeer.listen();
    one = ScriptedPeer.listenAsPlugin(1);
    two = ScriptedPeer.listenAsPlugin(2);
    one.on(Message.Read.class, (p, m) -> answer(p, 1, m));
    two.on(Message.Read.class, (p, m) -> answer(p, 2, m));
  }

  @AfterEach
  void stop() throws Exception {
    repeater.close();
    one.close();
    two.close();
  }

  private static void answer(ScriptedPeer peer, int duplicateId, Message.Read r) {
    peer.send(
        new Message.ReadReply(
            r.clientId(),
            r.requestId(),
            duplicateId,
            READ_SEQ,
            KeeperException.Code.OK,
            new byte[0],
            0,
            List.of()));
  }

  private ZoolanderClient client() {
    return ZoolanderClient.builder()
        .clientId(7)
        .repeater("127.0.0.1", repeater.port())
        .duplicateAt("127.0.0.1", one.port())
        .duplicateAt("127.0.0.1", two.port())
        .readPolicy(ReadPolicy.fixed(1))
        .connectTimeout(Duration.ofSeconds(10))
        .build();
  }

  private static Message.WatchEvent event(
      Message.Watch w, int duplicateId, long seq, WatchEventType type, String path) {
    return new Message.WatchEvent(
        w.clientId(), w.watchId(), duplicateId, seq, List.of(new Change(type, path)));
  }

  private static Message.Watch lastWatch(ScriptedPeer peer) {
    List<Message.Watch> watches = peer.received(Message.Watch.class);
    return watches.get(watches.size() - 1);
  }

  private static void awaitWatches(ScriptedPeer peer, int count) {
    await(
        WAIT, count + " WATCH received", () -> peer.received(Message.Watch.class).size() >= count);
  }

  @Test
  void eachSeqIsDeliveredOnceInOrderAndAReconnectedDuplicateIsArmedAgain() throws Exception {
    try (ZoolanderClient client = client()) {
      List<WatchEvent> events = new CopyOnWriteArrayList<>();
      List<Long> floors = new CopyOnWriteArrayList<>();
      CompletableFuture<WatchHandle> adding =
          client.addPersistentRecursiveWatch(
              "/t",
              e -> {
                floors.add(client.lastSeenSeq());
                events.add(e);
              });
      awaitWatches(one, 1);
      awaitWatches(two, 1);
      Message.Watch w = lastWatch(one);
      assertThat(w.kind()).isEqualTo(WatchKind.PERSISTENT_RECURSIVE);
      assertThat(w.path()).isEqualTo("/t");
      assertThat(w.sinceSeq()).as("armed at the read's seq").isEqualTo(READ_SEQ);
      assertThat(lastWatch(two)).isEqualTo(w);
      one.send(new Message.WatchEvent(7, w.watchId(), 1, READ_SEQ, List.of())); // armed
      WatchHandle handle = adding.get(10, TimeUnit.SECONDS);

      one.send(event(w, 1, 11, WatchEventType.NODE_CREATED, "/t/a"));
      one.send(event(w, 1, 12, WatchEventType.NODE_DATA_CHANGED, "/t/a"));
      two.send(event(w, 2, 11, WatchEventType.NODE_CREATED, "/t/a"));
      two.send(event(w, 2, 12, WatchEventType.NODE_DATA_CHANGED, "/t/a"));
      two.send(event(w, 2, 13, WatchEventType.NODE_DELETED, "/t/a")); // two is first for 13
      await(WAIT, "three events", () -> events.size() >= 3);
      one.send(event(w, 1, 13, WatchEventType.NODE_DELETED, "/t/a"));
      // A RESYNC from two while one is complete is held back (see the next test); one's counts.
      two.send(event(w, 2, 14, WatchEventType.RESYNC, "/t"));
      one.send(event(w, 1, 14, WatchEventType.RESYNC, "/t"));
      await(WAIT, "four events", () -> events.size() >= 4);
      two.send(event(w, 2, 15, WatchEventType.NODE_CREATED, "/t/b"));
      await(WAIT, "five events", () -> events.size() >= 5);
      assertThat(events)
          .containsExactly(
              new WatchEvent(WatchEvent.Type.NODE_CREATED, "/t/a", 11),
              new WatchEvent(WatchEvent.Type.NODE_DATA_CHANGED, "/t/a", 12),
              new WatchEvent(WatchEvent.Type.NODE_DELETED, "/t/a", 13),
              new WatchEvent(WatchEvent.Type.RESYNC, "/t", 14),
              new WatchEvent(WatchEvent.Type.NODE_CREATED, "/t/b", 15));
      for (int i = 0; i < events.size(); i++) {
        assertThat(floors.get(i)).isGreaterThanOrEqualTo(events.get(i).seq());
      }

      // Duplicate one comes back: armed again from the last seq delivered.
      one.dropConnection();
      awaitWatches(one, 2);
      assertThat(lastWatch(one).sinceSeq()).isEqualTo(15);
      // An acknowledgement says everything up to its seq has been sent: re-arming starts there.
      two.send(new Message.WatchEvent(7, w.watchId(), 2, 40, List.of()));
      two.dropConnection();
      awaitWatches(two, 2);
      assertThat(lastWatch(two).sinceSeq()).isEqualTo(40);

      handle.close();
      await(
          WAIT,
          "UNWATCH on both",
          () ->
              one.received(Message.Unwatch.class).size() == 1
                  && two.received(Message.Unwatch.class).size() == 1);
      assertThat(events).hasSize(5);
    }
  }

  @Test
  void aResyncIsHeldBackWhileAnotherDuplicateReportsEverything() throws Exception {
    try (ZoolanderClient client = client()) {
      List<WatchEvent> events = new CopyOnWriteArrayList<>();
      CompletableFuture<WatchHandle> adding = client.addPersistentRecursiveWatch("/t", events::add);
      awaitWatches(one, 1);
      awaitWatches(two, 1);
      Message.Watch w = lastWatch(one);
      one.send(new Message.WatchEvent(7, w.watchId(), 1, READ_SEQ, List.of()));
      two.send(new Message.WatchEvent(7, w.watchId(), 2, READ_SEQ, List.of()));
      adding.get(10, TimeUnit.SECONDS);

      // Two lost track (say it restarted) while one reports everything: its RESYNC and the event
      // after it are held back, and one delivers what happened.
      two.send(event(w, 2, 20, WatchEventType.RESYNC, "/t"));
      two.send(event(w, 2, 21, WatchEventType.NODE_CREATED, "/t/c"));
      one.send(event(w, 1, 11, WatchEventType.NODE_CREATED, "/t/a"));
      one.send(event(w, 1, 15, WatchEventType.NODE_CREATED, "/t/b"));
      one.send(event(w, 1, 21, WatchEventType.NODE_CREATED, "/t/c"));
      await(WAIT, "three events", () -> events.size() >= 3);
      // Two has caught up: its next report counts.
      two.send(event(w, 2, 22, WatchEventType.NODE_DELETED, "/t/c"));
      await(WAIT, "four events", () -> events.size() >= 4);
      assertThat(events)
          .containsExactly(
              new WatchEvent(WatchEvent.Type.NODE_CREATED, "/t/a", 11),
              new WatchEvent(WatchEvent.Type.NODE_CREATED, "/t/b", 15),
              new WatchEvent(WatchEvent.Type.NODE_CREATED, "/t/c", 21),
              new WatchEvent(WatchEvent.Type.NODE_DELETED, "/t/c", 22));

      // Two loses track again, and one goes away before it has caught up: RESYNC.
      two.send(event(w, 2, 30, WatchEventType.RESYNC, "/t"));
      one.send(event(w, 1, 25, WatchEventType.NODE_CREATED, "/t/d"));
      await(WAIT, "five events", () -> events.size() >= 5);
      one.dropConnection();
      await(WAIT, "the RESYNC", () -> events.size() >= 6);
      two.send(event(w, 2, 31, WatchEventType.NODE_CREATED, "/t/e"));
      await(WAIT, "seven events", () -> events.size() >= 7);
      assertThat(events.subList(4, 7))
          .containsExactly(
              new WatchEvent(WatchEvent.Type.NODE_CREATED, "/t/d", 25),
              new WatchEvent(WatchEvent.Type.RESYNC, "/t", 30),
              new WatchEvent(WatchEvent.Type.NODE_CREATED, "/t/e", 31));
      assertThat(client.lastSeenSeq()).isGreaterThanOrEqualTo(31);
    }
  }

  @Test
  void aOneShotWatchFiresOnceAndIsRemovedEverywhere() throws Exception {
    try (ZoolanderClient client = client()) {
      List<WatchEvent> events = new CopyOnWriteArrayList<>();
      client.getData("/w", events::add).get(10, TimeUnit.SECONDS);
      awaitWatches(one, 1);
      awaitWatches(two, 1);
      Message.Watch w = lastWatch(two);
      assertThat(w.kind()).isEqualTo(WatchKind.DATA);
      assertThat(w.sinceSeq()).isEqualTo(READ_SEQ);
      two.send(event(w, 2, 11, WatchEventType.NODE_DATA_CHANGED, "/w"));
      await(
          WAIT,
          "UNWATCH on both",
          () ->
              one.received(Message.Unwatch.class).size() == 1
                  && two.received(Message.Unwatch.class).size() == 1);
      one.send(event(w, 1, 11, WatchEventType.NODE_DATA_CHANGED, "/w"));
      one.send(event(w, 1, 12, WatchEventType.NODE_DELETED, "/w"));
      // A later watch's event proves the copies above were handled before it.
      List<WatchEvent> later = new CopyOnWriteArrayList<>();
      client.exists("/v", later::add).get(10, TimeUnit.SECONDS);
      awaitWatches(one, 2);
      Message.Watch v = lastWatch(one);
      one.send(event(v, 1, 13, WatchEventType.NODE_CREATED, "/v"));
      await(WAIT, "the later watch fired", () -> later.size() == 1);
      assertThat(events)
          .containsExactly(new WatchEvent(WatchEvent.Type.NODE_DATA_CHANGED, "/w", 11));
      assertThat(client.lastSeenSeq()).isGreaterThanOrEqualTo(13);
    }
  }
}
