package io.zoolander.client;

import static io.zoolander.testsupport.Await.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.zoolander.testsupport.ScriptedPeer;
import io.zoolander.wire.Message;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Planned slowness, client side: a duplicate that announces background work is left out of the read
 * set until it announces the end or the announced maximum passes (an injected clock jumps past it);
 * if every duplicate is busy, reads still go out. Two fake plugins; reads with C = 1, so the
 * ranking's first choice is visible.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PlannedSlownessClientTest {
  /**
   * Bound on every wait for a condition: far beyond what they take, so only a real failure reaches
   * it.
   */
  private static final Duration WAIT = Duration.ofSeconds(20);

  private ScriptedPeer repeater;
  private ScriptedPeer one;
  private ScriptedPeer two;
  private SimpleMeterRegistry meters;
  private final AtomicLong skewNanos = new AtomicLong();

  @BeforeEach
  void start() throws Exception {
    repeater = ScriptedPeer.listen();
    one = ScriptedPeer.listenAsPlugin(1);
    two = ScriptedPeer.listenAsPlugin(2);
    meters = new SimpleMeterRegistry();
    // Both answer every read; one at once, two 30 ms late, so one ranks first once both are
    // sampled.
    one.on(Message.Read.class, (p, m) -> answer(p, 1, m, 0));
    two.on(Message.Read.class, (p, m) -> answer(p, 2, m, 30));
  }

  @AfterEach
  void stop() throws Exception {
    repeater.close();
    one.close();
    two.close();
  }

  private static void answer(ScriptedPeer peer, int duplicateId, Message.Read r, long delayMs) {
    Message reply =
        new Message.ReadReply(
            r.clientId(),
            r.requestId(),
            duplicateId,
            0,
            KeeperException.Code.OK,
            new byte[0],
            0,
            List.of());
    if (delayMs == 0) {
      peer.send(reply);
    } else {
      peer.postLater(reply, Duration.ofMillis(delayMs));
    }
  }

  private ZoolanderClient client() {
    return ZoolanderClient.builder()
        .clientId(7)
        .repeater("127.0.0.1", repeater.port())
        .duplicateAt("127.0.0.1", one.port())
        .duplicateAt("127.0.0.1", two.port())
        .meterRegistry(meters)
        .readPolicy(ReadPolicy.fixed(1))
        .ticker(() -> System.nanoTime() + skewNanos.get())
        .connectTimeout(Duration.ofSeconds(10))
        .build();
  }

  private void awaitAnnouncements(int count) throws InterruptedException {
    await(
        WAIT,
        "the client counted the announcements",
        () -> meters.get("zoolander.client.read.planned.slowness").counter().count() >= count);
  }

  /**
   * @return how many of {@code count} reads went to duplicate one and two
   */
  private int[] readsTo(ZoolanderClient client, int count) throws Exception {
    int oneBefore = one.received(Message.Read.class).size();
    int twoBefore = two.received(Message.Read.class).size();
    for (int i = 0; i < count; i++) {
      client.getData("/x").get(10, TimeUnit.SECONDS);
    }
    return new int[] {
      one.received(Message.Read.class).size() - oneBefore,
      two.received(Message.Read.class).size() - twoBefore
    };
  }

  @Test
  void aDuplicateAnnouncingBackgroundWorkIsSkippedUntilItEndsOrItsMaximumPasses() throws Exception {
    try (ZoolanderClient client = client()) {
      // Sample both (an unsampled duplicate ranks first), then the fast one wins the ranking.
      await(
          WAIT,
          "both duplicates sampled",
          () -> {
            try {
              readsTo(client, 1);
            } catch (Exception e) {
              throw new AssertionError(e);
            }
            return !one.received(Message.Read.class).isEmpty()
                && !two.received(Message.Read.class).isEmpty();
          });
      assertThat(readsTo(client, 5)).containsExactly(5, 0);

      one.send(new Message.PlannedSlowness(1, 60_000));
      awaitAnnouncements(1);
      assertThat(readsTo(client, 5))
          .as("one is snapshotting: reads go to two")
          .containsExactly(0, 5);

      one.send(new Message.PlannedSlowness(1, 0));
      awaitAnnouncements(2);
      assertThat(readsTo(client, 5)).as("the snapshot ended").containsExactly(5, 0);

      // An end that never comes: the announced maximum bounds it.
      one.send(new Message.PlannedSlowness(1, 1_000));
      awaitAnnouncements(3);
      assertThat(readsTo(client, 3)).containsExactly(0, 3);
      skewNanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(1_001));
      assertThat(readsTo(client, 3)).as("the maximum passed").containsExactly(3, 0);
    }
  }

  @Test
  void whenEveryDuplicateIsBusyReadsStillGoOut() throws Exception {
    try (ZoolanderClient client = client()) {
      readsTo(client, 1);
      one.send(new Message.PlannedSlowness(1, 60_000));
      two.send(new Message.PlannedSlowness(2, 60_000));
      awaitAnnouncements(2);
      int[] sent = readsTo(client, 4);
      assertThat(sent[0] + sent[1]).isEqualTo(4);
    }
  }
}
