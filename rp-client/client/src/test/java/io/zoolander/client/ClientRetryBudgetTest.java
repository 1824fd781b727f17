package io.zoolander.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.zoolander.client.internal.DefaultZoolanderClient;
import io.zoolander.testsupport.Await;
import io.zoolander.testsupport.ScriptedPeer;
import io.zoolander.wire.ErrorCode;
import io.zoolander.wire.Message;
import io.zoolander.wire.OpResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The client's reaction to shed writes (back off by the hint, bounded) and its read retry budget,
 * on real sockets.
 */
@Timeout(60)
class ClientRetryBudgetTest {
  private ScriptedPeer repeater;
  private ScriptedPeer one;
  private SimpleMeterRegistry meters;

  @BeforeEach
  void start() throws Exception {
    repeater = ScriptedPeer.listen();
    one = ScriptedPeer.listenAsPlugin(1);
    meters = new SimpleMeterRegistry();
  }

  @AfterEach
  void stop() throws Exception {
    repeater.close();
    one.close();
  }

  /** One duplicate only: a timed-out read has nowhere else to go. */
  private ZoolanderClientBuilder builder() {
    return ZoolanderClient.builder()
        .clientId(9)
        .repeater("127.0.0.1", repeater.port())
        .duplicateAt("127.0.0.1", one.port())
        .meterRegistry(meters)
        .connectTimeout(Duration.ofSeconds(10));
  }

  private static ZoolanderException failure(CompletableFuture<?> f) throws Exception {
    try {
      f.get(30, TimeUnit.SECONDS);
      throw new AssertionError("expected a failure");
    } catch (ExecutionException e) {
      assertThat(e.getCause()).isInstanceOf(ZoolanderException.class);
      return (ZoolanderException) Objects.requireNonNull(e.getCause());
    }
  }

  @Test
  void aShedWriteIsSentAgainAfterTheDoublingHintAndSucceeds() throws Exception {
    long hintMs = 60;
    List<Long> arrivals = new CopyOnWriteArrayList<>();
    AtomicInteger refusals = new AtomicInteger();
    repeater.on(
        Message.Write.class,
        (p, m) -> {
          Message.Write w = (Message.Write) m;
          arrivals.add(System.nanoTime());
          if (refusals.getAndIncrement() < 3) {
            p.send(
                new Message.Error(
                    ErrorCode.OVERLOADED, w.requestId(), hintMs, "admission control"));
          } else {
            p.send(
                new Message.Reply(
                    w.clientId(), w.requestId(), 11, 1, List.of(new OpResult.Created("/a"))));
          }
        });
    try (ZoolanderClient client = builder().build()) {
      WriteResult result = client.create("/a", new byte[0]).get(20, TimeUnit.SECONDS);
      assertThat(result.seq()).isEqualTo(11);
      List<Message.Write> sent = repeater.received(Message.Write.class);
      // Each resend under a new, higher request id: the refused attempts were not sequenced, and
      // the plugins need a
      // client's request ids to increase in sequencing order.
      assertThat(sent).hasSize(4).allMatch(w -> w.ops().equals(sent.get(0).ops()));
      for (int i = 1; i < sent.size(); i++) {
        assertThat(sent.get(i).requestId()).isGreaterThan(sent.get(i - 1).requestId());
      }
      for (int i = 1; i < arrivals.size(); i++) {
        assertThat(TimeUnit.NANOSECONDS.toMillis(arrivals.get(i) - arrivals.get(i - 1)))
            .as("resend %d waited at least the hint, doubled per earlier refusal", i)
            .isGreaterThanOrEqualTo(hintMs << (i - 1));
      }
      assertThat(meters.counter("zoolander.client.write.shed").count()).isEqualTo(3);
    }
  }

  /**
   * Issue 19, item 9c. A write whose first attempt got no answer (lost with an old repeater, say)
   * is resent under its id, so that it is applied at most once; that resend is shed, and so is sent
   * again under the same id, since the first attempt may have been sequenced. Meanwhile a later
   * write is applied: the plugins then take the old id for a retry, know it was never applied and
   * refuse it with INVALID_OP. That does not make the write invalid: it was applied nowhere and
   * never can be under that id, so the client sends it again under a new one.
   */
  @Test
  void aShedResendThatThePluginsKnowWasNeverAppliedGoesAgainUnderANewId() throws Exception {
    List<Message.Write> sentA = new CopyOnWriteArrayList<>();
    List<Message.Write> sentB = new CopyOnWriteArrayList<>();
    repeater.on(
        Message.Write.class,
        (p, m) -> {
          Message.Write w = m;
          if (w.ops().get(0).path().equals("/b")) { // a later write, sequenced and applied
            sentB.add(w);
            one.post(
                new Message.Reply(
                    w.clientId(), w.requestId(), 7, 1, List.of(new OpResult.Created("/b"))));
            return;
          }
          sentA.add(w);
          if (sentA.size() == 2) { // the resend after no reply: shed
            p.send(new Message.Error(ErrorCode.OVERLOADED, w.requestId(), 300, "admission"));
          } else if (sentA.size() == 3) { // again under the same id, after /b was applied
            one.post(
                Message.Error.forRequest(
                    ErrorCode.INVALID_OP,
                    w.requestId(),
                    "request "
                        + w.requestId()
                        + " arrived after request "
                        + sentB.get(0).requestId()
                        + " was applied: not applied (send it again under a new request id)"));
          } else if (sentA.size() >= 4) {
            one.post(
                new Message.Reply(
                    w.clientId(), w.requestId(), 8, 1, List.of(new OpResult.Created("/a"))));
          }
          // the first attempt is never answered: lost with an old repeater, say
        });
    try (ZoolanderClient client =
        builder()
            .writeRetryDelay(Duration.ofMillis(200))
            .requestTimeout(Duration.ofSeconds(20))
            .build()) {
      CompletableFuture<WriteResult> first = client.create("/a", new byte[0]);
      Await.await(
          Duration.ofSeconds(10), "the first write is resent and shed", () -> sentA.size() >= 2);
      WriteResult later = client.create("/b", new byte[0]).get(10, TimeUnit.SECONDS);
      assertThat(later.seq()).isEqualTo(7);

      WriteResult result = first.get(20, TimeUnit.SECONDS);
      assertThat(result.seq()).isEqualTo(8);
      assertThat(sentA).hasSize(4);
      assertThat(sentA.get(1).requestId()).isEqualTo(sentA.get(0).requestId());
      assertThat(sentA.get(2).requestId()).isEqualTo(sentA.get(0).requestId());
      assertThat(sentA.get(3).requestId()).isGreaterThan(sentB.get(0).requestId());
    }
  }

  @Test
  void aWriteShedBeyondTheBudgetFailsAsThrottledAndAppliedNowhere() throws Exception {
    repeater.on(
        Message.Write.class,
        (p, m) ->
            p.send(
                new Message.Error(
                    ErrorCode.OVERLOADED,
                    ((Message.Write) m).requestId(),
                    5,
                    "admission control")));
    try (ZoolanderClient client =
        builder().retryBudget(RetryBudget.builder().maxShedWriteRetries(2).build()).build()) {
      ZoolanderException e = failure(client.create("/a", new byte[0]));
      assertThat(e.code()).isEqualTo(KeeperException.Code.THROTTLEDOP);
      assertThat(e.errorCode()).contains(ErrorCode.OVERLOADED);
      assertThat(e.getMessage())
          .contains("retry budget (2 retries) is spent")
          .contains("applied nowhere");
      assertThat(repeater.received(Message.Write.class)).hasSize(3);
      assertThat(((DefaultZoolanderClient) client).pendingRequests()).isZero();
    }
  }

  private static Message.Error nameMoved(Message.Write w) {
    return new Message.Error(ErrorCode.NAME_MOVED, w.requestId(), 0, "/a moved to partition 1");
  }

  /**
   * A write submitted while the repeater is down goes out only once it is back; refused there as
   * moved, it was applied nowhere (BADARGUMENTS, the cue to send it to the name's new partition).
   * An attempt that never reached a connection is not one that may have been sequenced.
   */
  @Test
  void aWriteHeldWhileTheRepeaterWasDownThenRefusedAsMovedWasAppliedNowhere() throws Exception {
    int port = repeater.port();
    try (ZoolanderClient client = builder().build()) {
      repeater.close();
      Await.await(
          Duration.ofSeconds(10),
          "the client sees the repeater gone",
          () -> !Objects.requireNonNull(client.connectionState(Peer.REPEATER)).isConnected());
      CompletableFuture<WriteResult> write = client.create("/a", new byte[0]);
      try (ScriptedPeer back = ScriptedPeer.listen(port)) {
        back.on(Message.Write.class, (p, w) -> p.send(nameMoved(w)));
        ZoolanderException e = failure(write);
        assertThat(e.errorCode()).contains(ErrorCode.NAME_MOVED);
        assertThat(e.code()).isEqualTo(KeeperException.Code.BADARGUMENTS);
        assertThat(e.getMessage()).contains("applied nowhere");
      }
    }
  }

  /**
   * An attempt sent and never answered (its connection dropped) may have been sequenced before the
   * move; the resend refused as moved leaves the write's fate unknown: CONNECTIONLOSS, so no one
   * sends it to the new partition as well.
   */
  @Test
  void aWriteResentAfterNoAnswerThenRefusedAsMovedHasAnUnknownOutcome() throws Exception {
    repeater.on(
        Message.Write.class,
        (p, w) -> {
          if (p.received(Message.Write.class).size() == 1) {
            p.dropConnection(); // the first attempt: no answer, as if its repeater died
          } else {
            p.send(nameMoved(w));
          }
        });
    try (ZoolanderClient client = builder().build()) {
      ZoolanderException e = failure(client.create("/a", new byte[0]));
      assertThat(e.errorCode()).contains(ErrorCode.NAME_MOVED);
      assertThat(e.code()).isEqualTo(KeeperException.Code.CONNECTIONLOSS);
      List<Message.Write> sent = repeater.received(Message.Write.class);
      assertThat(sent).hasSizeGreaterThanOrEqualTo(2);
      assertThat(sent.get(1).requestId()).isEqualTo(sent.get(0).requestId());
    }
  }

  @Test
  void readRetriesToTheOnlyDuplicateAreBoundedByTheBudget() throws Exception {
    int reads = 10;
    // Never answers: without a budget each read would be re-sent every attempt timeout until its
    // request timeout
    // (20 times each here).
    one.on(Message.Read.class, (p, m) -> {});
    RetryBudget budget = RetryBudget.builder().readRetryRatio(0.2).minReadRetriesPerSec(0).build();
    try (ZoolanderClient client =
        builder()
            .readAttemptTimeout(Duration.ofMillis(50))
            .requestTimeout(Duration.ofSeconds(1))
            .retryBudget(budget)
            .build()) {
      List<CompletableFuture<Boolean>> futures = new ArrayList<>();
      for (int i = 0; i < reads; i++) {
        futures.add(client.exists("/r" + i));
      }
      List<ZoolanderException> failures = new ArrayList<>();
      for (CompletableFuture<Boolean> f : futures) {
        failures.add(failure(f));
      }
      assertThat(failures).allMatch(e -> e.code() == KeeperException.Code.OPERATIONTIMEOUT);
      assertThat(failures)
          .anyMatch(e -> Objects.requireNonNull(e.getMessage()).contains("retry budget withheld"));
      // One initial token plus 0.2 per read: at most 3 retries on top of the 10 first attempts.
      int sent = one.received(Message.Read.class).size();
      assertThat(sent).isBetween(reads, reads + 3);
      assertThat(meters.counter("zoolander.client.read.retries.denied").count()).isPositive();
      assertThat(((DefaultZoolanderClient) client).pendingRequests()).isZero();
    }
  }

  @Test
  // NullAway: passes null on purpose, to check that it is rejected.
  @SuppressWarnings("NullAway")
  void theBudgetValidatesItsSettingsNamingThem() {
    assertThatThrownBy(() -> RetryBudget.builder().maxShedWriteRetries(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxShedWriteRetries");
    assertThatThrownBy(() -> RetryBudget.builder().readRetryRatio(Double.NaN))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("readRetryRatio");
    assertThatThrownBy(() -> RetryBudget.builder().maxReadRetryTokens(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxReadRetryTokens");
    assertThatThrownBy(() -> ZoolanderClient.builder().retryBudget(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("retryBudget");
  }
}
