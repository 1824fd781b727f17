package io.zoolander.client;

import static io.zoolander.testsupport.Await.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.zoolander.client.internal.DefaultZoolanderClient;
import io.zoolander.testsupport.ScriptedPeer;
import io.zoolander.wire.ClientIds;
import io.zoolander.wire.Credential;
import io.zoolander.wire.ErrorCode;
import io.zoolander.wire.Message;
import io.zoolander.wire.Op;
import io.zoolander.wire.OpResult;
import io.zoolander.wire.WireSettings;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The real client against scripted peers on real sockets: routing, retries, bookkeeping, detection.
 */
@Timeout(60)
class ClientBehaviourTest {
  /**
   * Bound on every wait for a condition: far beyond what they take, so only a real failure reaches
   * it.
   */
  private static final Duration WAIT = Duration.ofSeconds(20);

  private ScriptedPeer repeater;
  private ScriptedPeer one;
  private ScriptedPeer two;
  private SimpleMeterRegistry meters;

  @BeforeEach
  void start() throws Exception {
    repeater = ScriptedPeer.listen();
    one = ScriptedPeer.listenAsPlugin(1);
    two = ScriptedPeer.listenAsPlugin(2);
    meters = new SimpleMeterRegistry();
  }

  @AfterEach
  void stop() throws Exception {
    repeater.close();
    one.close();
    two.close();
  }

  private ZoolanderClientBuilder builder() {
    return ZoolanderClient.builder()
        .clientId(7)
        .repeater("127.0.0.1", repeater.port())
        .duplicateAt("127.0.0.1", one.port())
        .duplicateAt("127.0.0.1", two.port())
        .meterRegistry(meters)
        .connectTimeout(Duration.ofSeconds(10));
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static Message.Reply reply(Message.Write w, long seq, int duplicate, OpResult result) {
    return new Message.Reply(w.clientId(), w.requestId(), seq, duplicate, List.of(result));
  }

  private static KeeperException.Code codeOf(CompletableFuture<?> f) {
    try {
      f.get(20, TimeUnit.SECONDS);
      throw new AssertionError("expected a failure");
    } catch (ExecutionException e) {
      assertThat(e.getCause()).isInstanceOf(ZoolanderException.class);
      return ((ZoolanderException) Objects.requireNonNull(e.getCause())).code();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void aWriteCompletesOnTheFirstReplyAndADifferingLaterReplyIsAnInconsistency() throws Exception {
    List<InconsistencyEvent> events = new CopyOnWriteArrayList<>();
    try (ZoolanderClient client = builder().build()) {
      client.addInconsistencyListener(events::add);
      CompletableFuture<WriteResult> f = client.setData("/a", utf8("x"), -1);
      await(
          WAIT,
          "the repeater received the write",
          () -> !repeater.received(Message.Write.class).isEmpty());
      Message.Write w = repeater.received(Message.Write.class).get(0);
      two.send(reply(w, 5, 2, new OpResult.DataSet(3)));
      WriteResult result = f.get(10, TimeUnit.SECONDS);
      assertThat(result.seq()).isEqualTo(5);
      assertThat(result.duplicateId()).isEqualTo(2);
      assertThat(client.lastSeenSeq()).isEqualTo(5);
      one.send(reply(w, 5, 1, new OpResult.DataSet(4)));
      await(WAIT, "the inconsistency reported", () -> !events.isEmpty());
      assertThat(events.get(0).duplicateIds()).containsExactlyInAnyOrder(1, 2);
      assertThat(meters.counter("zoolander.client.inconsistencies").count()).isEqualTo(1);
    }
  }

  @Test
  void aDuplicateThatLostAWritesResultDoesNotFailItWhileAnotherMayStillReply() throws Exception {
    try (ZoolanderClient client = builder().build()) {
      // A fast duplicate got a retry long after it applied the write (its result no longer held);
      // the slow one has not applied it yet and replies with the result later.
      CompletableFuture<WriteResult> marker = client.setData("/m", utf8("m"), -1);
      CompletableFuture<WriteResult> f = client.setData("/a", utf8("x"), -1);
      await(
          WAIT,
          "the repeater received both writes",
          () ->
              repeater.received(Message.Write.class).stream()
                      .map(Message.Write::requestId)
                      .distinct()
                      .count()
                  >= 2);
      List<Message.Write> sent = repeater.received(Message.Write.class);
      Message.Write m = sent.get(0);
      Message.Write w =
          sent.stream().filter(x -> x.requestId() != m.requestId()).findFirst().orElseThrow();
      two.send(Message.Error.forRequest(ErrorCode.DUPLICATE_REQUEST, w.requestId(), "lost"));
      // One link's messages are handled in order: once the marker's reply is, so is the error.
      two.send(reply(m, 8, 2, new OpResult.DataSet(1)));
      marker.get(10, TimeUnit.SECONDS);
      assertThat(f).as("one of two duplicates lost the result").isNotDone();
      one.send(reply(w, 9, 1, new OpResult.DataSet(2)));
      WriteResult result = f.get(10, TimeUnit.SECONDS);
      assertThat(result.seq()).isEqualTo(9);
      assertThat(result.duplicateId()).isEqualTo(1);

      // Both lost it: the write fails, saying it WAS applied.
      CompletableFuture<WriteResult> g = client.setData("/b", utf8("y"), -1);
      await(
          WAIT,
          "the repeater received the second write",
          () ->
              repeater.received(Message.Write.class).stream()
                  .anyMatch(x -> x.requestId() > w.requestId()));
      Message.Write w2 =
          repeater.received(Message.Write.class).stream()
              .filter(x -> x.requestId() > w.requestId())
              .findFirst()
              .orElseThrow();
      one.send(Message.Error.forRequest(ErrorCode.DUPLICATE_REQUEST, w2.requestId(), "lost"));
      two.send(Message.Error.forRequest(ErrorCode.DUPLICATE_REQUEST, w2.requestId(), "lost"));
      assertThat(codeOf(g)).isEqualTo(KeeperException.Code.SYSTEMERROR);
      assertThatThrownBy(g::join).hasMessageContaining("WAS applied by an earlier attempt");
    }
  }

  @Test
  void aWriteWhoseResultALaggingDuplicateNeverSendsFailsAtItsDeadlineSayingItWasApplied()
      throws Exception {
    try (ZoolanderClient client = builder().requestTimeout(Duration.ofSeconds(1)).build()) {
      CompletableFuture<WriteResult> f = client.setData("/a", utf8("x"), -1);
      await(
          WAIT,
          "the repeater received the write",
          () -> !repeater.received(Message.Write.class).isEmpty());
      Message.Write w = repeater.received(Message.Write.class).get(0);
      two.send(Message.Error.forRequest(ErrorCode.DUPLICATE_REQUEST, w.requestId(), "lost"));
      assertThat(codeOf(f)).isEqualTo(KeeperException.Code.SYSTEMERROR);
      assertThatThrownBy(f::join).hasMessageContaining("WAS applied by an earlier attempt");
      assertThat(((DefaultZoolanderClient) client).pendingRequests()).isZero();
    }
  }

  @Test
  void anUnansweredWriteIsResentWithTheSameRequestIdThenTimesOutWithoutLeaking() throws Exception {
    try (ZoolanderClient client =
        builder()
            .writeRetryDelay(Duration.ofMillis(100))
            .requestTimeout(Duration.ofSeconds(1))
            .build()) {
      CompletableFuture<WriteResult> f = client.create("/a", new byte[0]);
      assertThat(codeOf(f)).isEqualTo(KeeperException.Code.OPERATIONTIMEOUT);
      List<Message.Write> sent = repeater.received(Message.Write.class);
      assertThat(sent.size()).isGreaterThanOrEqualTo(2);
      assertThat(sent)
          .allMatch(
              w -> w.requestId() == sent.get(0).requestId() && w.ops().equals(sent.get(0).ops()));
      assertThat(meters.get("zoolander.client.retries").tag("op", "write").counter().count())
          .isPositive();
      assertThat(((DefaultZoolanderClient) client).pendingRequests()).isZero();
    }
  }

  @Test
  void unansweredWritesAreResentWhenTheRepeaterConnectionComesBack() throws Exception {
    try (ZoolanderClient client = builder().writeRetryDelay(Duration.ofSeconds(60)).build()) {
      CompletableFuture<WriteResult> f = client.create("/a", new byte[0]);
      await(
          WAIT,
          "the repeater received the write",
          () -> repeater.received(Message.Write.class).size() == 1);
      repeater.dropConnection();
      await(
          WAIT,
          "the repeater received the write again after the drop",
          () -> repeater.received(Message.Write.class).size() == 2);
      Message.Write resent = repeater.received(Message.Write.class).get(1);
      assertThat(resent).isEqualTo(repeater.received(Message.Write.class).get(0));
      one.send(reply(resent, 1, 1, new OpResult.Created("/a")));
      assertThat(f.get(10, TimeUnit.SECONDS).seq()).isEqualTo(1);
    }
  }

  @Test
  void afterAReconnectTheResendsGoOutBeforeAnyNewWrite() throws Exception {
    // The repeater challenges: the link is ready when the CHALLENGE is read. On the reconnect it
    // sends an ERROR refusing the oldest write in the same buffer: the client fails that write
    // on its I/O thread, where the application's callback issues a new write, queued on the
    // I/O thread just before the link becomes ready.
    Message.Challenge challenge =
        new Message.Challenge(new byte[WireSettings.NONCE_BYTES], Credential.REPEATER);
    repeater.on(Message.Hello.class, (peer, hello) -> peer.post(challenge));
    try (ZoolanderClient client =
        builder()
            .clientId(ClientIds.of("writer-1", 7))
            .credential(Credential.secret("writer-1", utf8("writer-1-secret-0123456789")))
            .writeRetryDelay(Duration.ofSeconds(60))
            .build()) {
      CompletableFuture<CompletableFuture<WriteResult>> third = new CompletableFuture<>();
      CompletableFuture<WriteResult> refused = client.create("/refused", new byte[0]);
      refused.whenComplete((r, e) -> third.complete(client.create("/third", new byte[0])));
      CompletableFuture<WriteResult> second = client.create("/second", new byte[0]);
      await(
          WAIT,
          "the repeater received both writes",
          () -> repeater.received(Message.Write.class).size() == 2);
      long refusedId = repeater.received(Message.Write.class).get(0).requestId();
      long secondId = repeater.received(Message.Write.class).get(1).requestId();
      repeater.on(
          Message.Hello.class,
          (peer, hello) ->
              peer.sendTogether(
                  List.of(
                      new Message.Error(ErrorCode.INVALID_OP, refusedId, 0, "refused"),
                      challenge)));
      repeater.dropConnection();
      await(
          WAIT,
          "the repeater received writes after the reconnect",
          () -> repeater.received(Message.Write.class).size() >= 4);
      assertThat(codeOf(refused)).isEqualTo(KeeperException.Code.BADARGUMENTS);
      List<Message.Write> after = repeater.received(Message.Write.class);
      long thirdId = after.stream().mapToLong(Message.Write::requestId).max().orElseThrow();
      assertThat(thirdId).isGreaterThan(secondId);
      assertThat(after.subList(2, after.size()).stream().map(Message.Write::requestId).toList())
          .as("the resend of the older write first, then the new one")
          .startsWith(secondId, thirdId);
      one.send(reply(after.get(1), 1, 1, new OpResult.Created("/second")));
      assertThat(second.get(10, TimeUnit.SECONDS).seq()).isEqualTo(1);
      assertThat(third.get(10, TimeUnit.SECONDS).isDone()).isFalse();
    }
  }

  @Test
  void anAnsweredWriteKeepsNeitherItsOpsNorItsData() throws Exception {
    try (ZoolanderClient client = builder().build()) {
      Op op = Op.create("/big", new byte[1 << 20]);
      java.lang.ref.WeakReference<Op> held = new java.lang.ref.WeakReference<>(op);
      CompletableFuture<WriteResult> f = client.write(List.of(op));
      op = null;
      await(
          WAIT,
          "the repeater received the write",
          () -> !repeater.received(Message.Write.class).isEmpty());
      Message.Write w = repeater.received(Message.Write.class).get(0);
      one.send(reply(w, 1, 1, new OpResult.Created("/big")));
      assertThat(f.get(10, TimeUnit.SECONDS).seq()).isEqualTo(1);
      w = null;
      await(
          WAIT,
          "the answered write's ops collected",
          () -> {
            System.gc();
            return held.get() == null;
          });
      // A later reply from another duplicate is still compared with the first.
      List<InconsistencyEvent> events = new CopyOnWriteArrayList<>();
      client.addInconsistencyListener(events::add);
      two.send(new Message.Reply(7, 1, 1, 2, List.of(new OpResult.Created("/other"))));
      await(WAIT, "the inconsistency reported", () -> !events.isEmpty());
    }
  }

  @Test
  void aWriteThatTimesOutWithNoRepeaterReachableSaysSo() throws Exception {
    try (ZoolanderClient client = builder().requestTimeout(Duration.ofSeconds(1)).build()) {
      int port = repeater.port();
      repeater.close(); // the only repeater dies: its port refuses from now on
      await(
          WAIT,
          "the client saw the repeater go",
          () -> client.connectionState(Peer.REPEATER) != ConnectionState.CONNECTED);
      CompletableFuture<WriteResult> f = client.create("/a", new byte[0]);
      assertThatThrownBy(() -> f.get(20, TimeUnit.SECONDS))
          .hasCauseInstanceOf(ZoolanderException.class)
          .cause()
          .hasMessageContaining("no repeater is reachable")
          .hasMessageContaining("127.0.0.1:" + port);
      assertThat(codeOf(f)).isEqualTo(KeeperException.Code.OPERATIONTIMEOUT);
    }
  }

  @Test
  void writesMoveToAStandbyRepeaterWhenTheFirstGoesAway() throws Exception {
    try (ScriptedPeer standby = ScriptedPeer.listen();
        ZoolanderClient client =
            builder()
                .repeater("127.0.0.1", standby.port())
                .writeRetryDelay(Duration.ofMillis(200))
                .build()) {
      repeater.close(); // the first repeater dies: its port refuses from now on
      CompletableFuture<WriteResult> f = client.create("/a", new byte[0]);
      await(
          WAIT,
          "the standby repeater received the write",
          () -> !standby.received(Message.Write.class).isEmpty());
      Message.Write w = standby.received(Message.Write.class).get(0);
      one.send(reply(w, 1, 1, new OpResult.Created("/a")));
      assertThat(f.get(10, TimeUnit.SECONDS).seq()).isEqualTo(1);
    }
  }

  @Test
  void closeFailsEverythingPendingAndLaterCallsFailAtOnce() throws Exception {
    ZoolanderClient client = builder().build();
    CompletableFuture<WriteResult> write = client.create("/a", new byte[0]);
    CompletableFuture<NodeData> read = client.getData("/a");
    CompletableFuture<Void> barrier = client.barrier(3);
    await(
        WAIT,
        "the repeater received the write",
        () -> !repeater.received(Message.Write.class).isEmpty());
    client.close();
    assertThat(codeOf(write)).isEqualTo(KeeperException.Code.CONNECTIONLOSS);
    assertThat(codeOf(read)).isEqualTo(KeeperException.Code.CONNECTIONLOSS);
    assertThat(codeOf(barrier)).isEqualTo(KeeperException.Code.CONNECTIONLOSS);
    assertThat(codeOf(client.exists("/a"))).isEqualTo(KeeperException.Code.CONNECTIONLOSS);
    assertThat(codeOf(client.setData("/a", new byte[0], -1)))
        .isEqualTo(KeeperException.Code.CONNECTIONLOSS);
    assertThatThrownBy(() -> client.blocking().getData("/a"))
        .isInstanceOf(ZoolanderException.class)
        .hasMessageContaining("closed");
  }

  @Test
  void readsGoToTheFirstReplyAmongCDuplicatesAndLosersAreStillMeasured() throws Exception {
    try (ZoolanderClient client = builder().readPolicy(ReadPolicy.fixed(2)).build()) {
      one.on(
          Message.Read.class,
          (p, m) -> {
            Message.Read r = (Message.Read) m;
            p.send(
                new Message.ReadReply(
                    r.clientId(),
                    r.requestId(),
                    1,
                    9,
                    KeeperException.Code.OK,
                    utf8("v"),
                    2,
                    List.of()));
          });
      two.on(
          Message.Read.class,
          (p, m) -> {
            Message.Read r = (Message.Read) m;
            p.postLater(
                new Message.ReadReply(
                    r.clientId(),
                    r.requestId(),
                    2,
                    9,
                    KeeperException.Code.OK,
                    utf8("v"),
                    2,
                    List.of()),
                Duration.ofMillis(200));
          });
      NodeData data = client.getData("/a").get(10, TimeUnit.SECONDS);
      assertThat(data.duplicateId()).isEqualTo(1);
      assertThat(new String(data.data(), StandardCharsets.UTF_8)).isEqualTo("v");
      assertThat(data.appliedSeq()).isEqualTo(9);
      // Both were asked; the loser's READ may still be on its way when the winner's reply completes
      // the read.
      await(
          WAIT,
          "duplicate 2 received the read",
          () -> two.received(Message.Read.class).size() >= 1);
      assertThat(one.received(Message.Read.class)).hasSize(1);
      assertThat(two.received(Message.Read.class)).hasSize(1);
      await(
          WAIT,
          "duplicate 1's losing reply measured",
          () ->
              meters
                      .get("zoolander.client.read.latency")
                      .tag("duplicate", "1")
                      .tag("reply", "other")
                      .timer()
                      .count()
                  == 1);
      assertThat(meters.get("zoolander.client.read.wins").tag("duplicate", "0").counter().count())
          .isEqualTo(1);
      assertThat(((DefaultZoolanderClient) client).pendingRequests()).isZero();
    }
  }

  @Test
  void aReadCarriesTheHighestSeenSeqAndARefusingDuplicateIsRoutedAround() throws Exception {
    try (ZoolanderClient client = builder().readPolicy(ReadPolicy.fixed(1)).build()) {
      CompletableFuture<WriteResult> w = client.create("/a", utf8("v"));
      await(
          WAIT,
          "the repeater received the write",
          () -> !repeater.received(Message.Write.class).isEmpty());
      one.send(
          reply(repeater.received(Message.Write.class).get(0), 42, 1, new OpResult.Created("/a")));
      w.get(10, TimeUnit.SECONDS);
      // Whichever duplicate the ranking picks first refuses (not caught up); the other answers.
      one.on(
          Message.Read.class,
          (p, m) ->
              p.send(
                  Message.Error.forRequest(
                      ErrorCode.OVERLOADED, ((Message.Read) m).requestId(), "not caught up")));
      two.on(
          Message.Read.class,
          (p, m) -> {
            Message.Read r = (Message.Read) m;
            p.send(
                new Message.ReadReply(
                    r.clientId(),
                    r.requestId(),
                    2,
                    42,
                    KeeperException.Code.OK,
                    utf8("v"),
                    0,
                    List.of()));
          });
      assertThat(client.exists("/a").get(10, TimeUnit.SECONDS)).isTrue();
      List<Message.Read> reads = new java.util.ArrayList<>(one.received(Message.Read.class));
      reads.addAll(two.received(Message.Read.class));
      assertThat(reads).isNotEmpty().allMatch(r -> r.minSeq() == 42);
      assertThat(two.received(Message.Read.class)).hasSize(1);
    }
  }

  @Test
  void repliesAtTheSameSeqThatDifferAreReportedNamingBothDuplicates() throws Exception {
    List<InconsistencyEvent> events = new CopyOnWriteArrayList<>();
    try (ZoolanderClient client = builder().readPolicy(ReadPolicy.all()).build()) {
      client.addInconsistencyListener(events::add);
      one.on(
          Message.Read.class,
          (p, m) -> {
            Message.Read r = (Message.Read) m;
            p.send(
                new Message.ReadReply(
                    r.clientId(),
                    r.requestId(),
                    1,
                    9,
                    KeeperException.Code.OK,
                    utf8("good"),
                    2,
                    List.of()));
          });
      two.on(
          Message.Read.class,
          (p, m) -> {
            Message.Read r = (Message.Read) m;
            p.postLater(
                new Message.ReadReply(
                    r.clientId(),
                    r.requestId(),
                    2,
                    9,
                    KeeperException.Code.OK,
                    utf8("bad"),
                    2,
                    List.of()),
                Duration.ofMillis(50));
          });
      client.getData("/a").get(10, TimeUnit.SECONDS);
      await(WAIT, "the inconsistency reported", () -> !events.isEmpty());
      assertThat(events.get(0).what()).isEqualTo("/a");
      assertThat(events.get(0).seq()).isEqualTo(9);
      assertThat(events.get(0).duplicateIds()).containsExactlyInAnyOrder(1, 2);
    }
  }

  @Test
  void aHedgedReadAsksTheNextDuplicateWhenTheFirstIsSlow() throws Exception {
    try (ZoolanderClient client = builder().readPolicy(ReadPolicy.hedged(0.5)).build()) {
      one.on(Message.Read.class, (p, m) -> {}); // never answers
      two.on(Message.Read.class, (p, m) -> {});
      CompletableFuture<NodeData> f = client.getData("/a");
      await(
          WAIT,
          "the read sent to both duplicates (one hedge), and the hedge counted",
          () ->
              one.received(Message.Read.class).size() + two.received(Message.Read.class).size() == 2
                  // counted on the client's loop just after the send, which a peer may see first
                  && meters.counter("zoolander.client.read.hedges").count() >= 1);
      assertThat(meters.counter("zoolander.client.read.hedges").count()).isEqualTo(1);
      assertThat(meters.counter("zoolander.client.read.requests").count())
          .as("first try and hedge")
          .isEqualTo(2);
      Message.Read r = two.received(Message.Read.class).get(0);
      two.send(
          new Message.ReadReply(
              r.clientId(),
              r.requestId(),
              2,
              0,
              KeeperException.Code.OK,
              new byte[0],
              0,
              List.of()));
      assertThat(f.get(10, TimeUnit.SECONDS).duplicateId()).isEqualTo(2);
    }
  }

  @Test
  void aBarrierWaitsForEveryLiveDuplicate() throws Exception {
    try (ZoolanderClient client = builder().build()) {
      CompletableFuture<Void> barrier = client.barrier(10);
      await(
          WAIT,
          "both duplicates received a read",
          () ->
              !one.received(Message.Read.class).isEmpty()
                  && !two.received(Message.Read.class).isEmpty());
      Message.Read r1 = one.received(Message.Read.class).get(0);
      assertThat(r1.minSeq()).isEqualTo(10);
      assertThat(r1.path()).isEqualTo("/");
      one.send(
          new Message.ReadReply(
              7, r1.requestId(), 1, 10, KeeperException.Code.OK, new byte[0], 0, List.of()));
      assertThat(barrier).isNotDone();
      Message.Read r2 = two.received(Message.Read.class).get(0);
      two.send(
          new Message.ReadReply(
              7, r2.requestId(), 2, 12, KeeperException.Code.OK, new byte[0], 0, List.of()));
      barrier.get(10, TimeUnit.SECONDS);
      assertThat(client.lastSeenSeq()).isEqualTo(12);
    }
  }

  @Test
  void connectionStatesAreReportedLikeCurators() throws Exception {
    List<String> states = new CopyOnWriteArrayList<>();
    try (ZoolanderClient client = builder().sessionTimeout(Duration.ofMillis(300)).build()) {
      client.addConnectionStateListener((peer, state) -> states.add(peer + ":" + state));
      assertThat(client.connectionState(Peer.duplicate(0))).isEqualTo(ConnectionState.CONNECTED);
      one.close();
      await(
          WAIT,
          "duplicate[0] SUSPENDED then LOST",
          () -> states.contains("duplicate[0]:SUSPENDED") && states.contains("duplicate[0]:LOST"));
      assertThat(client.connectionState(Peer.duplicate(0))).isEqualTo(ConnectionState.LOST);
      two.dropConnection();
      await(WAIT, "duplicate[1] RECONNECTED", () -> states.contains("duplicate[1]:RECONNECTED"));
      assertThat(states.indexOf("duplicate[1]:SUSPENDED"))
          .isLessThan(states.indexOf("duplicate[1]:RECONNECTED"));
    }
  }

  @Test
  // NullAway: passes null on purpose, to check that it is rejected.
  @SuppressWarnings("NullAway")
  void badInputFailsClearlyAndNeverHangs() throws Exception {
    try (ZoolanderClient client = builder().build()) {
      assertThat(codeOf(client.getData("no-slash"))).isEqualTo(KeeperException.Code.BADARGUMENTS);
      assertThat(codeOf(client.getChildren("/a//b"))).isEqualTo(KeeperException.Code.BADARGUMENTS);
      assertThat(codeOf(client.exists(null))).isEqualTo(KeeperException.Code.BADARGUMENTS);
      assertThat(codeOf(client.create("/a", null))).isEqualTo(KeeperException.Code.BADARGUMENTS);
      assertThat(codeOf(client.setData("/a", new byte[2 * 1024 * 1024], -1)))
          .isEqualTo(KeeperException.Code.BADARGUMENTS);
      assertThat(codeOf(client.create("/bad path\u0000", new byte[0])))
          .isEqualTo(KeeperException.Code.BADARGUMENTS);
      assertThat(codeOf(client.write(List.of()))).isEqualTo(KeeperException.Code.BADARGUMENTS);
      assertThat(codeOf(client.barrier(-1))).isEqualTo(KeeperException.Code.BADARGUMENTS);
      assertThat(((DefaultZoolanderClient) client).pendingRequests()).isZero();
    }
  }
}
