package io.zoolander.server.repeater;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.channel.nio.NioEventLoopGroup;
import io.zoolander.server.testing.ZooKeeperEnsemble;
import io.zoolander.testsupport.Await;
import io.zoolander.testsupport.ScriptedPeer;
import io.zoolander.testsupport.ZooKeepers;
import io.zoolander.wire.BookkeepingState;
import io.zoolander.wire.ErrorCode;
import io.zoolander.wire.Message;
import io.zoolander.wire.Op;
import io.zoolander.wire.PluginEndpoint;
import io.zoolander.wire.ReadKind;
import io.zoolander.wire.Role;
import io.zoolander.wire.internal.WriteChecks;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.stream.LongStream;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The repeater over real TCP against test-side fake plugins, whose endpoints are published in real
 * ZooKeeper: one single-server ensemble (child JVM) per duplicate, shared by the tests, each test
 * under its own base path.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RepeaterTest {
  /** Bound on every wait for a condition (the former Eventually.DEFAULT). */
  private static final Duration WAIT = Duration.ofSeconds(10);

  private static final int DUPLICATES = 3;
  private static final AtomicInteger TESTS = new AtomicInteger();
  private static final List<ZooKeeperEnsemble> ENSEMBLES = new ArrayList<>();
  private static final List<ZooKeeper> ZK = new ArrayList<>();
  private static NioEventLoopGroup group;

  private final List<AutoCloseable> closeables = new ArrayList<>();
  private final RecordingListener listener = new RecordingListener();
  private String base;

  @BeforeAll
  static void startEnsembles() throws Exception {
    group = new NioEventLoopGroup(2);
    ExecutorService starters = Executors.newFixedThreadPool(DUPLICATES);
    try {
      List<Future<ZooKeeperEnsemble>> starting = new ArrayList<>();
      for (int i = 0; i < DUPLICATES; i++) {
        starting.add(
            starters.submit(
                () ->
                    ZooKeeperEnsemble.builder()
                        .servers(1)
                        .jvmArgs("-XX:TieredStopAtLevel=1", "-Xss512k")
                        .start()));
      }
      for (Future<ZooKeeperEnsemble> f : starting) {
        ENSEMBLES.add(f.get(60, TimeUnit.SECONDS));
      }
    } finally {
      starters.shutdown();
    }
    for (ZooKeeperEnsemble ensemble : ENSEMBLES) {
      ZK.add(connect(ensemble.connectString()));
    }
  }

  @AfterAll
  static void stopEnsembles() throws InterruptedException {
    for (ZooKeeper zk : ZK) {
      zk.close();
    }
    ENSEMBLES.forEach(ZooKeeperEnsemble::close);
    if (group != null) {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
  }

  @BeforeEach
  void createBasePath() throws Exception {
    base = "/t" + TESTS.incrementAndGet();
    for (ZooKeeper zk : ZK) {
      zk.create(base, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    }
  }

  @AfterEach
  void closeAll() throws Exception {
    Collections.reverse(closeables);
    for (AutoCloseable c : closeables) {
      c.close();
    }
  }

  // -------------------------------------------------------------------------------------------
  // tests

  /** With 0 client I/O threads the sequencer loop reads the clients itself: the same outcome. */
  @ParameterizedTest(name = "clientIoThreads={0}")
  @ValueSource(ints = {0, 1, 2})
  void concurrentClientsAreSequencedWithoutGapsAndEachInItsOrder(int clientIoThreads)
      throws Exception {
    FakePlugin[] plugins = pluginsForAll();
    Repeater repeater = startRepeater(b -> b.clientIoThreads(clientIoThreads));
    awaitStreaming(repeater, 1, 2, 3);
    assertThat(repeater.nextSeq()).isEqualTo(1);
    assertThat(repeater.epoch()).isEqualTo(1);

    int perClient = 300;
    int clients = 3;
    CountDownLatch go = new CountDownLatch(1);
    List<Thread> senders = new ArrayList<>();
    List<Client> testClients = new ArrayList<>();
    for (int c = 0; c < clients; c++) {
      Client client = client(100 + c);
      testClients.add(client);
      Thread sender =
          new Thread(
              () -> {
                try {
                  go.await();
                } catch (InterruptedException e) {
                  return;
                }
                for (int r = 0; r < perClient; r++) {
                  client.write(r);
                }
              });
      sender.start();
      senders.add(sender);
    }
    go.countDown();
    for (Thread t : senders) {
      t.join(10_000);
    }
    int total = perClient * clients;
    for (FakePlugin p : plugins) {
      awaitReceived(p, total);
    }
    List<Long> expected = LongStream.rangeClosed(1, total).boxed().toList();
    List<Message.Sequenced> reference = List.copyOf(plugins[0].received);
    for (FakePlugin p : plugins) {
      assertThat(p.receivedSeqs()).isEqualTo(expected);
      assertThat(p.appliedSeqs()).isEqualTo(expected);
      assertThat(p.received).isEqualTo(reference); // the same writes under the same seqs everywhere
      assertThat(p.received).allMatch(s -> s.epoch() == repeater.epoch());
    }
    for (int c = 0; c < clients; c++) {
      long clientId = 100L + c;
      List<Long> requestIds =
          reference.stream()
              .filter(s -> s.clientId() == clientId)
              .map(Message.Sequenced::requestId)
              .toList();
      assertThat(requestIds).isEqualTo(LongStream.range(0, perClient).boxed().toList());
    }
    assertThat(repeater.nextSeq()).isEqualTo(total + 1);
    Await.await(
        WAIT,
        "every duplicate acked " + total,
        () -> repeater.duplicates().stream().allMatch(d -> d.ackedSeq() == total),
        repeater::duplicates);
    for (Client c : testClients) {
      assertThat(c.errors()).isEmpty();
    }
  }

  @Test
  void aPluginThatConnectsLaterGetsTheBacklogFromItsAppliedSeq() throws Exception {
    FakePlugin p1 = publishedPlugin(1, new FakePlugin.Durable());
    FakePlugin p2 = publishedPlugin(2, new FakePlugin.Durable());
    Repeater repeater = startRepeater(b -> {});
    awaitStreaming(repeater, 1, 2);
    assertThat(repeater.duplicate(3).linkState()).isEqualTo(LinkState.WAITING_FOR_ENDPOINT);
    Client client = client(7);
    writeAll(client, 0, 50);
    awaitReceived(p1, 50);
    awaitReceived(p2, 50);

    FakePlugin p3 = publishedPlugin(3, new FakePlugin.Durable(repeater.epoch(), 20));
    awaitReceived(p3, 30);
    assertThat(p3.receivedSeqs()).isEqualTo(range(21, 50));
    writeAll(client, 50, 10);
    awaitReceived(p3, 40);
    assertThat(p3.receivedSeqs()).isEqualTo(range(21, 60));
    assertThat(p3.appliedSeqs()).isEqualTo(range(21, 60));
    assertThat(p3.hellos.get()).isEqualTo(1);
  }

  @Test
  void aBurstOfLargeWritesReachesEveryPluginIntactAndIsReplayedIntactFromTheLog() throws Exception {
    FakePlugin p1 = publishedPlugin(1, new FakePlugin.Durable());
    FakePlugin p2 = publishedPlugin(2, new FakePlugin.Durable());
    Repeater repeater = startRepeater(b -> {});
    awaitStreaming(repeater, 1, 2);
    Client client = client(7);
    // 1 KiB writes sent in one flush arrive in few handoffs: their frames are encoded into runs
    // that outgrow their
    // first buffer and pass the 64 KiB run limit, while the log already holds slices of them.
    int count = 200;
    List<Message.Write> writes = new ArrayList<>();
    for (int r = 0; r < count; r++) {
      byte[] data = new byte[1024];
      Arrays.fill(data, (byte) r);
      writes.add(new Message.Write(7, r, List.of(Op.setData("/k" + r, data, -1))));
    }
    client.peer().sendTogether(writes);
    List<Message.Sequenced> expected = new ArrayList<>();
    for (int r = 0; r < count; r++) {
      expected.add(Message.Sequenced.of(repeater.epoch(), r + 1, writes.get(r)));
    }
    awaitReceived(p1, count);
    awaitReceived(p2, count);
    FakePlugin p3 =
        publishedPlugin(
            3, new FakePlugin.Durable()); // applied nothing: everything comes from the log
    awaitReceived(p3, count);
    for (FakePlugin p : List.of(p1, p2, p3)) {
      assertThat(p.received).isEqualTo(expected);
    }
    assertThat(client.errors()).isEmpty();
  }

  @Test
  void retransmitIsServedFromTheLog() throws Exception {
    FakePlugin[] plugins = pluginsForAll();
    for (FakePlugin p : plugins) {
      p.autoAck = false; // so the log keeps everything
    }
    Repeater repeater = startRepeater(b -> {});
    awaitStreaming(repeater, 1, 2, 3);
    Client client = client(7);
    writeAll(client, 0, 10);
    for (FakePlugin p : plugins) {
      awaitReceived(p, 10);
    }
    plugins[0].send(new Message.Retransmit(1, repeater.epoch(), 3, 5));
    awaitReceived(plugins[0], 13);
    assertThat(plugins[0].receivedSeqs().subList(10, 13)).containsExactly(3L, 4L, 5L);
    // A range reaching past what was sent is clamped: the stream brings the rest in order.
    plugins[0].send(new Message.Retransmit(1, repeater.epoch(), 9, 20));
    awaitReceived(plugins[0], 15);
    assertThat(plugins[0].receivedSeqs().subList(13, 15)).containsExactly(9L, 10L);
    writeAll(client, 10, 1);
    awaitReceived(plugins[0], 16);
    assertThat(plugins[0].receivedSeqs().get(15)).isEqualTo(11L);
    awaitReceived(plugins[1], 11);
    assertThat(plugins[1].receivedSeqs()).isEqualTo(range(1, 11)); // the others were not disturbed
    assertThat(repeater.duplicate(1).fenced()).isFalse();
  }

  @Test
  void aRetransmitOfARangeNoLongerInTheLogFencesTheDuplicateAndTheOthersKeepReceiving()
      throws Exception {
    FakePlugin[] plugins = pluginsForAll();
    Repeater repeater = startRepeater(b -> b.logCapacity(8));
    awaitStreaming(repeater, 1, 2, 3);
    Client client = client(7);
    writePaced(repeater, client, 0, 20, 1, 2, 3);

    plugins[1].send(new Message.Retransmit(2, repeater.epoch(), 1, 2)); // trimmed long ago
    Await.await(
        WAIT, "duplicate 2 fenced", () -> repeater.duplicate(2).fenced(), repeater::duplicates);
    Await.await(
        WAIT,
        "duplicate 2 told FENCED",
        () -> plugins[1].errors.stream().anyMatch(e -> e.code() == ErrorCode.FENCED),
        plugins[1]::toString);
    Await.await(WAIT, "fencing reported", () -> listener.fenced.size() == 1, listener::toString);
    assertThat(listener.fenced.get(0)).startsWith("2: ").contains("retransmit seq 1..2");
    DuplicateView fenced = repeater.duplicate(2);
    assertThat(fenced.linkState()).isEqualTo(LinkState.CLOSED);
    assertThat(fenced.fenceReason()).isPresent();

    writePaced(repeater, client, 20, 10, 1, 3);
    assertThat(plugins[0].receivedSeqs()).isEqualTo(range(1, 30));
    assertThat(plugins[2].receivedSeqs()).isEqualTo(range(1, 30));
    assertThat(plugins[1].receivedSeqs()).isEqualTo(range(1, 20));
  }

  @Test
  void aDisconnectedDuplicateHoldsTheLogUntilItIsFullThenIsFencedWhenItNeedsWhatWasEvicted()
      throws Exception {
    FakePlugin p1 = publishedPlugin(1, new FakePlugin.Durable());
    FakePlugin p2 = publishedPlugin(2, new FakePlugin.Durable());
    Repeater repeater = startRepeater(b -> b.logCapacity(8));
    awaitStreaming(repeater, 1, 2);
    Client client = client(7);
    writePaced(repeater, client, 0, 5, 1, 2);

    // Duplicate 3 was never connected: the log still holds everything for it.
    FakePlugin.Durable d3 = new FakePlugin.Durable();
    FakePlugin p3 = publishedPlugin(3, d3);
    awaitReceived(p3, 5);
    Await.await(
        WAIT,
        "duplicate 3 acked 5",
        () -> repeater.duplicate(3).ackedSeq() == 5,
        repeater::duplicates);
    p3.close();
    ZK.get(2).delete(base + "/endpoint", -1);
    Await.await(
        WAIT,
        "duplicate 3 disconnected",
        () -> repeater.duplicate(3).linkState() == LinkState.WAITING_FOR_ENDPOINT,
        repeater::duplicates);

    writePaced(repeater, client, 5, 15, 1, 2); // 6..20: the log (8) evicts what 1 and 2 acked
    assertThat(repeater.duplicate(3).fenced()).isFalse(); // not yet: it might not need them
    FakePlugin p3b = publishedPlugin(3, d3); // a new leader, applied 5, needs 6
    Await.await(
        WAIT, "duplicate 3 fenced", () -> repeater.duplicate(3).fenced(), repeater::duplicates);
    Await.await(
        WAIT,
        "duplicate 3 told FENCED",
        () ->
            p3b.errors.stream()
                .anyMatch(e -> e.code() == ErrorCode.FENCED && e.message().contains("needs 6")),
        p3b::toString);
    assertThat(p3b.received).isEmpty();
    writePaced(repeater, client, 20, 3, 1, 2);
    assertThat(p1.receivedSeqs()).isEqualTo(range(1, 23));
    assertThat(p2.receivedSeqs()).isEqualTo(range(1, 23));
  }

  @Test
  void aFullLogThatNoDuplicateHasAckedRefusesWithOverloaded() throws Exception {
    FakePlugin[] plugins = pluginsForAll();
    for (FakePlugin p : plugins) {
      p.autoAck = false;
    }
    Repeater repeater = startRepeater(b -> b.logCapacity(4));
    awaitStreaming(repeater, 1, 2, 3);
    Client client = client(7);
    writeInOneFlush(
        client, 0, 6); // read and handed over at once: the pause on reading clients comes too late
    Await.await(
        WAIT, "two refusals", () -> client.errors().size() == 2, () -> client.errors().toString());
    assertThat(client.errors())
        .allMatch(e -> e.code() == ErrorCode.OVERLOADED && e.retryAfterMillis() > 0);
    assertThat(client.errors().stream().map(Message.Error::requestId)).containsExactly(4L, 5L);
    for (FakePlugin p : plugins) {
      awaitReceived(p, 4);
    }
    assertThat(repeater.nextSeq()).isEqualTo(5);

    // One duplicate acks: the oldest entries may go (the others were sent them: not fenced).
    plugins[0].send(new Message.Ack(1, repeater.epoch(), 4));
    Await.await(
        WAIT, "ack seen", () -> repeater.duplicate(1).ackedSeq() == 4, repeater::duplicates);
    writeAll(client, 6, 2);
    for (FakePlugin p : plugins) {
      awaitReceived(p, 6);
      assertThat(p.receivedSeqs()).isEqualTo(range(1, 6));
    }
    assertThat(repeater.duplicates()).noneMatch(DuplicateView::fenced);
    assertThat(client.errors()).hasSize(2);
  }

  @Test
  void aLogFullByItsByteBoundThatNoDuplicateHasAckedRefusesWithOverloaded() throws Exception {
    FakePlugin[] plugins = pluginsForAll();
    for (FakePlugin p : plugins) {
      p.autoAck = false;
    }
    long frameBytes = WriteChecks.sequencedFrameBytes(Client.write(7, 10).ops());
    // 1 KiB holds about 1024 / frameBytes writes (fewer than 40); the count bound, 64, is not hit.
    Repeater repeater = startRepeater(b -> b.logCapacity(64).logCapacityBytes(1024));
    awaitStreaming(repeater, 1, 2, 3);
    Client client = client(7);
    writeInOneFlush(client, 0, 40);
    Await.await(
        WAIT,
        "every write sequenced or refused",
        () -> repeater.nextSeq() - 1 + client.errors().size() == 40,
        () -> client.errors().toString());
    long sequenced = repeater.nextSeq() - 1;
    assertThat(client.errors()).isNotEmpty();
    assertThat(client.errors())
        .allMatch(e -> e.code() == ErrorCode.OVERLOADED && e.retryAfterMillis() > 0);
    assertThat(sequenced).isBetween(1024 / (frameBytes + 2) - 1, 1024 / (frameBytes - 2) + 1);

    // One duplicate acks: the oldest entries may go.
    plugins[0].send(new Message.Ack(1, repeater.epoch(), sequenced));
    Await.await(
        WAIT,
        "ack seen",
        () -> repeater.duplicate(1).ackedSeq() == sequenced,
        repeater::duplicates);
    int refused = client.errors().size();
    writeAll(client, 40, 2);
    for (FakePlugin p : plugins) {
      awaitReceived(p, (int) sequenced + 2);
    }
    assertThat(repeater.duplicates()).noneMatch(DuplicateView::fenced);
    assertThat(client.errors()).hasSize(refused);
  }

  @Test
  void aStalledDuplicateIsPausedThenFencedWhileTheOthersKeepReceiving() throws Exception {
    FakePlugin[] plugins = pluginsForAll();
    plugins[2].stopReadingAfter = 3;
    Repeater repeater = startRepeater(b -> b.logCapacity(16));
    awaitStreaming(repeater, 1, 2, 3);
    Client client = client(7);
    byte[] data = new byte[64 * 1024];
    int sent = 0;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (!repeater.duplicate(3).fenced()) {
      assertThat(System.nanoTime() - deadline).as("duplicate 3 fenced in time").isNegative();
      for (int i = 0; i < 8; i++, sent++) {
        client.send(new Message.Write(7, sent, List.of(Op.setData("/big", data, -1))));
      }
      long target = sent;
      Await.await(
          WAIT,
          "duplicates 1 and 2 acked " + target,
          () ->
              repeater.duplicate(1).ackedSeq() == target
                  && repeater.duplicate(2).ackedSeq() == target,
          repeater::duplicates);
    }
    // The listener hears of the fence just after the duplicate's state shows it.
    Await.await(
        WAIT,
        "the listener told of the fence",
        () -> !listener.fenced.isEmpty(),
        repeater::duplicates);
    assertThat(listener.fenced).singleElement().asString().startsWith("3: ").contains("evicted");
    assertThat(client.errors()).isEmpty();
    assertThat(sent).isGreaterThan(16);
    writePaced(repeater, client, sent, 4, 1, 2);
    assertThat(plugins[0].receivedSeqs()).isEqualTo(range(1, sent + 4));
    assertThat(plugins[1].receivedSeqs()).isEqualTo(range(1, sent + 4));
  }

  @Test
  void movingTheEndpointToAnotherPluginMakesTheRepeaterReconnectThere() throws Exception {
    FakePlugin.Durable d1 = new FakePlugin.Durable();
    FakePlugin oldLeader = publishedPlugin(1, d1);
    publishedPlugin(2, new FakePlugin.Durable());
    publishedPlugin(3, new FakePlugin.Durable());
    Repeater repeater = startRepeater(b -> {});
    awaitStreaming(repeater, 1, 2, 3);
    Client client = client(7);
    writeAll(client, 0, 10);
    awaitReceived(oldLeader, 10);

    FakePlugin newLeader = plugin(1, 2, d1);
    PluginEndpoint moved = newLeader.start();
    publish(1, moved);
    Await.await(
        WAIT,
        "streaming to the new leader",
        () ->
            repeater.duplicate(1).endpoint().equals(java.util.Optional.of(moved))
                && repeater.duplicate(1).linkState() == LinkState.STREAMING,
        repeater::duplicates);
    Await.await(WAIT, "old connection closed", () -> !oldLeader.connected(), oldLeader::toString);
    writeAll(client, 10, 10);
    awaitReceived(newLeader, 10);
    assertThat(newLeader.receivedSeqs()).isEqualTo(range(11, 20));
    assertThat(oldLeader.receivedSeqs()).isEqualTo(range(1, 10));
    assertThat(d1.applied.stream().map(Message.Sequenced::seq).toList()).isEqualTo(range(1, 20));
  }

  @Test
  void aPluginThatAnswersHelloWithoutStatusIsToldAndRetriedAndALostConnectionResumes()
      throws Exception {
    FakePlugin p1 = plugin(1, 1, new FakePlugin.Durable());
    p1.misbehave.set(1);
    publish(1, p1.start());
    Repeater repeater = startRepeater(b -> {});
    Await.await(
        WAIT,
        "told UNEXPECTED_MESSAGE",
        () -> p1.errors.stream().anyMatch(e -> e.code() == ErrorCode.UNEXPECTED_MESSAGE),
        p1::toString);
    awaitStreaming(repeater, 1); // after a backoff, the second HELLO gets a STATUS
    assertThat(p1.hellos.get()).isEqualTo(2);
    assertThat(listener.changes.stream().filter(v -> v.id() == 1).map(DuplicateView::linkState))
        .contains(LinkState.BACKING_OFF);
    Client client = client(7);
    writePaced(repeater, client, 0, 5, 1);

    p1.dropConnection();
    writeAll(client, 5, 5); // sequenced while duplicate 1 is disconnected
    Await.await(WAIT, "reconnected", () -> p1.hellos.get() == 3, p1::toString);
    awaitReceived(p1, 10);
    assertThat(p1.receivedSeqs()).isEqualTo(range(1, 10));
  }

  @Test
  void epochAndNextSeqAreLearntFromTheStateZnodes() throws Exception {
    writeState(1, new BookkeepingState(3, 40));
    writeState(2, new BookkeepingState(5, 42));
    writeState(3, new BookkeepingState(4, 42));
    assertThatThrownBy(() -> startRepeater(b -> b.epoch(5)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("epoch 5");
    FakePlugin p1 = publishedPlugin(1, new FakePlugin.Durable(3, 40));
    FakePlugin p2 = publishedPlugin(2, new FakePlugin.Durable(5, 42));
    FakePlugin p3 = publishedPlugin(3, new FakePlugin.Durable(4, 42));
    Repeater repeater = startRepeater(b -> {});
    assertThat(repeater.epoch()).isEqualTo(6);
    assertThat(repeater.nextSeq()).isEqualTo(43);
    // Duplicate 1 is behind: seq 41 was sequenced by an earlier repeater and is in no log.
    Await.await(
        WAIT, "duplicate 1 fenced", () -> repeater.duplicate(1).fenced(), repeater::duplicates);
    assertThat(repeater.duplicate(1).fenceReason().orElseThrow()).contains("needs 41");
    awaitStreaming(repeater, 2, 3);
    Client client = client(7);
    writeAll(client, 0, 1);
    awaitReceived(p2, 1);
    awaitReceived(p3, 1);
    assertThat(p2.received.get(0).seq()).isEqualTo(43);
    assertThat(p2.received.get(0).epoch()).isEqualTo(6);
    assertThat(p1.received).isEmpty();
    repeater.close();

    Repeater fixed = startRepeater(b -> b.epoch(9));
    assertThat(fixed.epoch()).isEqualTo(9);
    assertThat(fixed.nextSeq())
        .isEqualTo(43); // the fake plugins keep what they apply in memory, not in ZooKeeper
  }

  @Test
  void aRepeaterThatCannotListenClaimsNothingAndTheRunningOneGoesOn() throws Exception {
    pluginsForAll();
    Repeater repeater = startRepeater(b -> {});
    awaitStreaming(repeater, 1, 2, 3);
    long epoch = repeater.epoch();
    int port = repeater.boundAddress().getPort();
    Repeater second = buildRepeater(b -> b.clientListen("127.0.0.1", port)); // the port is taken
    assertThatThrownBy(second::start)
        .isInstanceOf(java.io.IOException.class)
        .hasMessageContaining("cannot listen for clients");
    for (int d = 1; d <= DUPLICATES; d++) {
      assertThat(
              BookkeepingState.decode(ZK.get(d - 1).getData(base + "/state", false, null)).epoch())
          .as("duplicate %d's epoch: nothing claimed", d)
          .isEqualTo(epoch);
    }
    Client client = track(Client.connect(repeater.boundAddress(), 7));
    writePaced(repeater, client, 0, 3, 1, 2, 3);
    assertThat(repeater.isDeposed()).isFalse();
  }

  @Test
  void aRepeaterWhoseMBeansCannotBeRegisteredClaimsNothing() throws Exception {
    pluginsForAll();
    javax.management.MBeanServer mbeans = javax.management.MBeanServerFactory.newMBeanServer();
    Repeater repeater = startRepeater(b -> b.mbeanServer(mbeans));
    awaitStreaming(repeater, 1, 2, 3);
    long epoch = repeater.epoch();
    Repeater second = buildRepeater(b -> b.mbeanServer(mbeans)); // its names are taken
    assertThatThrownBy(second::start)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("already holds a repeater's MBeans");
    for (int d = 1; d <= DUPLICATES; d++) {
      assertThat(
              BookkeepingState.decode(ZK.get(d - 1).getData(base + "/state", false, null)).epoch())
          .as("duplicate %d's epoch: nothing claimed", d)
          .isEqualTo(epoch);
    }
    assertThat(repeater.isDeposed()).isFalse();
  }

  @Test
  void staleEpochFromAPluginStopsSequencing() throws Exception {
    FakePlugin[] plugins = pluginsForAll();
    Repeater repeater = startRepeater(b -> {});
    awaitStreaming(repeater, 1, 2, 3);
    plugins[0].refuseWithStaleEpoch = true;
    Client client = client(7);
    writeAll(client, 0, 1);
    Await.await(WAIT, "deposed", repeater::isDeposed, repeater::duplicates);
    Await.await(
        WAIT, "deposition reported", () -> listener.deposed.size() == 1, listener::toString);
    assertThat(listener.deposed.get(0)).startsWith("1: ");
    // The client is told and let go, so that it moves to the next repeater it knows; no one can
    // connect any more.
    Await.await(
        WAIT,
        "the client told STALE_EPOCH and disconnected",
        () ->
            !client.connected()
                && client.errors().stream().anyMatch(e -> e.code() == ErrorCode.STALE_EPOCH),
        () -> client.errors().toString());
    assertThatThrownBy(() -> Client.connect(repeater.boundAddress(), 8))
        .hasMessageContaining("refused");
    assertThat(repeater.nextSeq()).isEqualTo(2);
    Await.await(
        WAIT,
        "every connection closed",
        () -> repeater.duplicates().stream().allMatch(d -> d.linkState() == LinkState.CLOSED),
        repeater::duplicates);
    for (FakePlugin p : plugins) {
      assertThat(p.receivedSeqs()).containsExactly(1L);
    }
  }

  @Test
  void aConnectionOwingAcksThatHearsNothingIsDroppedAndResumed() throws Exception {
    FakePlugin[] plugins = pluginsForAll();
    plugins[0].autoAck = false; // applies, says nothing: as if the connection were dead on its side
    Repeater repeater = startRepeater(b -> b.pluginAckTimeout(Duration.ofMillis(300)));
    awaitStreaming(repeater, 1, 2, 3);
    Client client = client(7);
    writeAll(client, 0, 3);
    awaitReceived(plugins[0], 3);
    Await.await(
        WAIT, "duplicate 1 reconnected", () -> plugins[0].hellos.get() == 2, plugins[0]::toString);
    Await.await(
        WAIT,
        "duplicate 1 resumed at its applied seq",
        () ->
            repeater.duplicate(1).ackedSeq() == 3
                && repeater.duplicate(1).linkState() == LinkState.STREAMING,
        repeater::duplicates);
    assertThat(plugins[0].appliedSeqs()).isEqualTo(range(1, 3));
    // The others acknowledge: their connections stay.
    assertThat(plugins[1].hellos.get()).isEqualTo(1);
    assertThat(plugins[2].hellos.get()).isEqualTo(1);
  }

  @Test
  void aNewRepeaterRecoversFromTheMostAdvancedDuplicateWhatTheOthersMissed() throws Exception {
    FakePlugin[] plugins = pluginsForAll();
    plugins[2].applyUpTo = 4; // duplicate 3 falls behind
    Repeater old = startRepeater(b -> {});
    awaitStreaming(old, 1, 2, 3);
    Client client = client(7);
    writeAll(client, 0, 10);
    awaitReceived(plugins[0], 10);
    awaitReceived(plugins[1], 10);
    awaitReceived(plugins[2], 10);
    old.close();
    // The fake plugins keep their state in memory: put in the state znodes what a real plugin would
    // have written.
    for (int d = 1; d <= DUPLICATES; d++) {
      FakePlugin p = plugins[d - 1];
      ZK.get(d - 1)
          .setData(
              base + "/state",
              new BookkeepingState(p.durable.epoch, p.durable.appliedSeq.get()).encode(),
              -1);
    }
    plugins[2].applyUpTo = Long.MAX_VALUE;

    Repeater repeater = startRepeater(b -> {});
    assertThat(repeater.epoch()).isEqualTo(old.epoch() + 1);
    assertThat(repeater.takeover().appliedSeqs())
        .containsExactly(Map.entry(1, 10L), Map.entry(2, 10L), Map.entry(3, 4L));
    assertThat(repeater.takeover().recoveredFromSeq()).isEqualTo(5);
    assertThat(repeater.takeover().recoveredToSeq()).isEqualTo(10);
    assertThat(repeater.nextSeq()).isEqualTo(11);
    Await.await(
        WAIT,
        "duplicate 3 caught up",
        () -> plugins[2].durable.appliedSeq.get() == 10,
        plugins[2]::toString);
    List<Message.Sequenced> recovered = plugins[2].durable.applied.subList(4, 10);
    for (int i = 0; i < recovered.size(); i++) {
      Message.Sequenced original = plugins[0].durable.applied.get(4 + i);
      assertThat(recovered.get(i).epoch()).isEqualTo(repeater.epoch());
      assertThat(recovered.get(i))
          .isEqualTo(
              new Message.Sequenced(
                  repeater.epoch(),
                  original.seq(),
                  original.clientId(),
                  original.requestId(),
                  original.ops()));
    }
    assertThat(repeater.duplicates()).noneMatch(DuplicateView::fenced);
    Client next = client(8);
    writeAll(next, 0, 1);
    for (FakePlugin p : plugins) {
      Await.await(WAIT, "seq 11 applied", () -> p.durable.appliedSeq.get() == 11, p::toString);
    }
  }

  @Test
  void aRolledBackDuplicateThatAppliedADeposedRepeatersWritesIsFencedNotResumed() throws Exception {
    writeState(1, new BookkeepingState(1, 100));
    writeState(2, new BookkeepingState(1, 100));
    writeState(3, new BookkeepingState(1, 100));
    FakePlugin p1 = publishedPlugin(1, new FakePlugin.Durable(1, 100));
    publishedPlugin(2, new FakePlugin.Durable(1, 100));
    Repeater repeater = startRepeater(b -> {}); // claims epoch 2 at 100
    assertThat(repeater.epoch()).isEqualTo(2);
    awaitStreaming(repeater, 1, 2);
    Client client = client(7);
    writePaced(repeater, client, 0, 10, 1, 2); // 101..110 in epoch 2
    // Duplicate 3 comes back restored from a backup taken before the claim, after applying the
    // deposed epoch-1 repeater's orphan seqs 101..110 (no epoch-2 write, so still epoch 1).
    FakePlugin p3 = publishedPlugin(3, new FakePlugin.Durable(1, 110));
    Await.await(
        WAIT, "duplicate 3 fenced", () -> repeater.duplicate(3).fenced(), repeater::duplicates);
    assertThat(repeater.duplicate(3).fenceReason().orElseThrow())
        .contains("applied up to seq 110 under epoch 1")
        .contains("deposed repeater");
    Await.await(
        WAIT,
        "duplicate 3 told FENCED",
        () -> p3.errors.stream().anyMatch(e -> e.code() == ErrorCode.FENCED),
        p3::toString);
    writePaced(repeater, client, 10, 1, 1, 2);
    assertThat(p3.received).as("nothing streamed to it from seq 110 on").isEmpty();
    assertThat(p1.receivedSeqs()).hasSize(11);
  }

  @Test
  void aLaggardNeedingWritesNoDuplicateStillHoldsIsFencedByTheNewRepeater() throws Exception {
    FakePlugin p1 =
        publishedPlugin(
            1, new FakePlugin.Durable(1, 10)); // applied 1..10 before it restarted: holds none
    publishedPlugin(2, new FakePlugin.Durable(1, 10));
    FakePlugin p3 = publishedPlugin(3, new FakePlugin.Durable(1, 6));
    writeState(1, new BookkeepingState(1, 10));
    writeState(2, new BookkeepingState(1, 10));
    writeState(3, new BookkeepingState(1, 6));
    Repeater repeater = startRepeater(b -> {});
    assertThat(repeater.takeover().recoveredWrites()).isZero();
    Await.await(
        WAIT, "duplicate 3 fenced", () -> repeater.duplicate(3).fenced(), repeater::duplicates);
    assertThat(repeater.duplicate(3).fenceReason().orElseThrow()).contains("needs 7");
    awaitStreaming(repeater, 1, 2);
    assertThat(p1.hellos.get()).as("asked for its recent writes, then connected").isEqualTo(2);
    assertThat(p3.received).isEmpty();
  }

  @Test
  void repeatersStartingTogetherNeverShareAnEpoch() throws Exception {
    pluginsForAll();
    ExecutorService starters = Executors.newFixedThreadPool(3);
    try {
      List<Future<Repeater>> starting = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        Repeater repeater = buildRepeater(b -> {});
        starting.add(starters.submit(repeater::start));
      }
      List<Long> epochs = new ArrayList<>();
      for (Future<Repeater> f : starting) {
        epochs.add(f.get(30, TimeUnit.SECONDS).epoch());
      }
      assertThat(epochs).doesNotHaveDuplicates();
      // Each duplicate holds the highest epoch claimed: every older repeater is fenced there.
      long newest = Collections.max(epochs);
      for (int d = 1; d <= DUPLICATES; d++) {
        assertThat(
                BookkeepingState.decode(ZK.get(d - 1).getData(base + "/state", false, null))
                    .epoch())
            .isEqualTo(newest);
      }
    } finally {
      starters.shutdownNow();
    }
  }

  @Test
  void clientsMustSayHelloFirstAndWriteOnlyForThemselves() throws Exception {
    Repeater repeater = startRepeater(b -> {});
    Client noHello = track(Client.raw(repeater.boundAddress()));
    noHello.send(Client.write(5, 1));
    awaitRejected(noHello);

    Client badId = track(Client.raw(repeater.boundAddress()));
    badId.send(Message.Hello.of(Role.CLIENT, "not-a-number"));
    awaitRejected(badId);

    Client plugin = track(Client.raw(repeater.boundAddress()));
    plugin.send(Message.Hello.of(Role.PLUGIN, "1"));
    awaitRejected(plugin);

    Client client = client(8);
    client.send(Client.write(9, 1));
    client.send(new Message.Read(8, 2, ReadKind.GET_DATA, "/a", 0));
    Await.await(
        WAIT, "two refusals", () -> client.errors().size() == 2, () -> client.errors().toString());
    assertThat(client.errors()).allMatch(e -> e.code() == ErrorCode.UNEXPECTED_MESSAGE);
    assertThat(client.errors().stream().map(Message.Error::requestId)).containsExactly(1L, 2L);
    assertThat(client.connected()).isTrue();
    assertThat(repeater.nextSeq()).isEqualTo(1);
  }

  // -------------------------------------------------------------------------------------------
  // state transfer

  @Test
  void aTransferInProgressReportsItsChunksAndIsGoneOnceDone() throws Exception {
    FakePlugin[] plugins = pluginsForAll();
    Repeater repeater = startRepeater(b -> b.logCapacity(64));
    awaitStreaming(repeater, 1, 2, 3);
    writePaced(repeater, client(7), 0, 5, 1, 2, 3);
    assertThat(repeater.transfers()).isEmpty();

    repeater.fence(3);
    CompletableFuture<Void> release = new CompletableFuture<>();
    plugins[0].holdLastChunk = release;
    plugins[1].holdLastChunk = release;
    CompletableFuture<Void> rejoined = repeater.rejoin(3);
    Await.await(
        WAIT,
        "the first chunk relayed",
        () -> repeater.transfers().stream().anyMatch(p -> p.chunksRelayed() == 1),
        () -> repeater.transfers().toString());
    TransferProgress progress = repeater.transfers().get(0);
    assertThat(progress.targetDuplicateId()).isEqualTo(3);
    assertThat(progress.sourceDuplicateId()).isIn(1, 2);
    assertThat(progress.chunkCount()).isEqualTo(2);
    assertThat(progress.znodes()).isEqualTo(1);
    assertThat(progress.bytes()).isEqualTo("/zoolander/data".length());
    assertThat(progress.fraction()).isEqualTo(0.5);
    assertThat(progress.remaining()).as("one chunk gives no rate yet").isEmpty();
    assertThat(progress.describe())
        .startsWith("state transfer " + progress.transferId() + " to duplicate 3 from duplicate ")
        .contains("1 of 2 chunks (50%)");
    assertThat(rejoined).isNotDone();

    release.complete(null);
    rejoined.get(10, TimeUnit.SECONDS);
    assertThat(repeater.transfers()).isEmpty();
  }

  @Test
  void anOperatorFencesADuplicateAndRejoinsItByStateTransferFromTheMostAdvancedOne()
      throws Exception {
    FakePlugin[] plugins = pluginsForAll();
    Repeater repeater = startRepeater(b -> b.logCapacity(64));
    awaitStreaming(repeater, 1, 2, 3);
    Client client = client(7);
    writePaced(repeater, client, 0, 10, 1, 2, 3);

    repeater.fence(3);
    assertThat(repeater.duplicate(3).fenced()).isTrue();
    assertThat(repeater.duplicate(3).fenceReason()).hasValue("fenced by the operator");
    Await.await(
        WAIT,
        "duplicate 3 told FENCED",
        () -> plugins[2].errors.stream().anyMatch(e -> e.code() == ErrorCode.FENCED),
        plugins[2]::toString);
    plugins[1].applyUpTo = 15; // duplicate 2 lags: duplicate 1 is the most advanced
    writePaced(repeater, client, 10, 10, 1);
    assertThat(plugins[2].receivedSeqs())
        .isEqualTo(range(1, 10)); // nothing sent to a fenced duplicate

    repeater.rejoin(3).get(10, TimeUnit.SECONDS);
    assertThat(plugins[0].transferRequests)
        .extracting(Message.TransferRequest::targetDuplicateId)
        .containsExactly(3);
    assertThat(plugins[1].transferRequests).isEmpty();
    assertThat(plugins[2].chunks).extracting(Message.TransferChunk::index).containsExactly(0, 1);
    Message.TransferChunk last = plugins[2].chunks.get(1);
    assertThat(last.sourceDuplicateId()).isEqualTo(1);
    assertThat(last.appliedSeq()).isEqualTo(20);
    assertThat(last.catchUpToSeq()).as("set by the repeater to its last seq").isEqualTo(20);
    assertThat(plugins[2].chunks.get(0).catchUpToSeq()).isEqualTo(20);
    Await.await(WAIT, "rejoin reported", () -> listener.rejoins.size() == 1, listener::toString);
    Rejoin rejoin = listener.rejoins.get(0);
    assertThat(rejoin)
        .isEqualTo(
            new Rejoin(
                3,
                1,
                20,
                2,
                "/zoolander/data".length() + "/zoolander/data/a".length() + 3,
                2,
                rejoin.millis(),
                false));
    assertThat(repeater.duplicate(3).fenced()).isFalse();
    assertThat(repeater.duplicate(3).linkState()).isEqualTo(LinkState.STREAMING);

    writePaced(repeater, client, 20, 5, 1, 3); // then it follows the stream from the snapshot's seq
    assertThat(plugins[2].appliedSeqs()).isEqualTo(range(21, 25));
    assertThat(repeater.rejoin(3).get(10, TimeUnit.SECONDS))
        .as("rejoining a streaming duplicate transfers again")
        .isNull();
    assertThat(plugins[0].transferRequests).hasSize(2);
  }

  @Test
  void aDuplicateThatComesBackNeedingWhatTheLogNoLongerHoldsRejoinsByItself() throws Exception {
    FakePlugin[] plugins = pluginsForAll();
    Repeater repeater = startRepeater(b -> b.logCapacity(8).autoRejoin(true));
    awaitStreaming(repeater, 1, 2, 3);
    Client client = client(7);
    writePaced(repeater, client, 0, 5, 1, 2, 3);
    plugins[1].dropConnection();
    plugins[1].close(); // duplicate 2 is down while the log moves on
    writePaced(repeater, client, 5, 20, 1, 3);
    FakePlugin back = publishedPlugin(2, plugins[1].durable);

    Await.await(
        WAIT, "duplicate 2 rejoined", () -> listener.rejoins.size() == 1, listener::toString);
    assertThat(listener.fenced).hasSize(1);
    assertThat(listener.fenced.get(0)).startsWith("2: ").contains("which the log no longer holds");
    Rejoin rejoin = listener.rejoins.get(0);
    assertThat(rejoin.duplicateId()).isEqualTo(2);
    assertThat(rejoin.automatic()).isTrue();
    assertThat(rejoin.snapshotSeq()).isEqualTo(25);
    writePaced(repeater, client, 25, 3, 1, 2, 3);
    assertThat(back.appliedSeqs()).isEqualTo(range(26, 28));
  }

  @Test
  void aFailedTransferLeavesTheDuplicateFencedAndUnknownIdsAreRefused() throws Exception {
    FakePlugin[] plugins = pluginsForAll();
    Repeater repeater = startRepeater(b -> b.autoRejoin(true));
    awaitStreaming(repeater, 1, 2, 3);
    assertThatThrownBy(() -> repeater.rejoin(4))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no duplicate 4");
    assertThatThrownBy(() -> repeater.fence(0)).isInstanceOf(IllegalArgumentException.class);

    plugins[0].refuseTransfer = true;
    plugins[1].refuseTransfer = true;
    repeater.fence(3);
    assertThatThrownBy(() -> repeater.rejoin(3).get(10, TimeUnit.SECONDS))
        .hasCauseInstanceOf(IllegalStateException.class)
        .hasMessageContaining("TRANSFER_TOO_LARGE");
    assertThat(repeater.duplicate(3).fenced()).isTrue();
    assertThat(repeater.duplicate(3).fenceReason().orElseThrow())
        .contains("state transfer 1 failed");
    assertThat(plugins[2].chunks).isEmpty();

    repeater.fence(2);
    repeater.fence(1);
    assertThatThrownBy(() -> repeater.rejoin(3).get(10, TimeUnit.SECONDS))
        .hasCauseInstanceOf(IllegalStateException.class)
        .hasMessageContaining("no other duplicate is streaming");
    assertThat(listener.rejoins)
        .as("nothing rejoined by itself after an operator's fence or a failure")
        .isEmpty();
  }

  // -------------------------------------------------------------------------------------------
  // helpers

  private void awaitRejected(Client c) {
    Await.await(
        WAIT,
        "rejected with UNEXPECTED_MESSAGE and closed",
        () ->
            !c.connected()
                && c.errors().size() == 1
                && c.errors().get(0).code() == ErrorCode.UNEXPECTED_MESSAGE,
        () -> c.errors().toString());
  }

  private static ZooKeeper connect(String connectString) throws Exception {
    ZooKeeper zk =
        ZooKeepers.connect(connectString, Duration.ofSeconds(10), Duration.ofSeconds(10));
    return zk;
  }

  private Repeater startRepeater(Consumer<Repeater.Builder> customize) throws Exception {
    return buildRepeater(customize).start();
  }

  private Repeater buildRepeater(Consumer<Repeater.Builder> customize) {
    Repeater.Builder builder =
        Repeater.builder()
            .basePath(base)
            .sessionTimeout(Duration.ofSeconds(4))
            .startTimeout(Duration.ofSeconds(10))
            .autoRejoin(false) // these tests show fencing; those of rejoining turn it on
            .listener(listener);
    for (int d = 1; d <= DUPLICATES; d++) {
      builder.duplicate(d, ENSEMBLES.get(d - 1).connectString());
    }
    customize.accept(builder);
    Repeater repeater = builder.build();
    closeables.add(repeater);
    return repeater;
  }

  private FakePlugin plugin(int duplicateId, long serverId, FakePlugin.Durable durable) {
    return track(new FakePlugin(group, duplicateId, serverId, durable));
  }

  private FakePlugin publishedPlugin(int duplicateId, FakePlugin.Durable durable) throws Exception {
    FakePlugin p = plugin(duplicateId, 1, durable);
    publish(duplicateId, p.start());
    return p;
  }

  private FakePlugin[] pluginsForAll() throws Exception {
    FakePlugin[] plugins = new FakePlugin[DUPLICATES];
    for (int d = 1; d <= DUPLICATES; d++) {
      plugins[d - 1] = publishedPlugin(d, new FakePlugin.Durable());
    }
    return plugins;
  }

  /** Publishes (or moves) a duplicate's endpoint, as its plugin would: an ephemeral znode. */
  private void publish(int duplicateId, PluginEndpoint endpoint) throws Exception {
    ZooKeeper zk = ZK.get(duplicateId - 1);
    try {
      zk.create(
          base + "/endpoint", endpoint.encode(), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
    } catch (KeeperException.NodeExistsException e) {
      zk.setData(base + "/endpoint", endpoint.encode(), -1);
    }
  }

  private void writeState(int duplicateId, BookkeepingState state) throws Exception {
    ZK.get(duplicateId - 1)
        .create(
            base + "/state", state.encode(), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
  }

  private Client client(long clientId) throws InterruptedException {
    Repeater repeater =
        (Repeater)
            closeables.stream()
                .filter(c -> c instanceof Repeater)
                .reduce((a, b) -> b)
                .orElseThrow();
    return track(Client.connect(repeater.boundAddress(), clientId));
  }

  private <T extends AutoCloseable> T track(T closeable) {
    closeables.add(closeable);
    return closeable;
  }

  private static void writeAll(Client client, int firstRequestId, int count) {
    for (int r = firstRequestId; r < firstRequestId + count; r++) {
      client.write(r);
    }
  }

  private static void writeInOneFlush(Client client, int firstRequestId, int count) {
    List<Message.Write> writes = new ArrayList<>();
    for (int r = firstRequestId; r < firstRequestId + count; r++) {
      writes.add(Client.write(client.clientId(), r));
    }
    client.peer().sendTogether(writes);
  }

  /**
   * Writes one at a time, each once the given duplicates have acked the previous one (no
   * OVERLOADED).
   */
  private static void writePaced(
      Repeater repeater, Client client, int firstRequestId, int count, int... duplicateIds) {
    for (int r = firstRequestId; r < firstRequestId + count; r++) {
      long seq = repeater.nextSeq();
      client.write(r);
      Await.await(
          WAIT,
          "duplicates " + Arrays.toString(duplicateIds) + " acked " + seq,
          () -> Arrays.stream(duplicateIds).allMatch(d -> repeater.duplicate(d).ackedSeq() >= seq),
          repeater::duplicates);
    }
  }

  private static void awaitStreaming(Repeater repeater, int... duplicateIds) {
    Await.await(
        WAIT,
        "duplicates " + Arrays.toString(duplicateIds) + " streaming",
        () ->
            Arrays.stream(duplicateIds)
                .allMatch(d -> repeater.duplicate(d).linkState() == LinkState.STREAMING),
        repeater::duplicates);
  }

  private static void awaitReceived(FakePlugin plugin, int count) {
    Await.await(
        WAIT,
        plugin + " received " + count,
        () -> plugin.received.size() >= count,
        plugin::toString);
  }

  private static List<Long> range(long from, long to) {
    return LongStream.rangeClosed(from, to).boxed().toList();
  }

  /**
   * A client of the repeater in these tests: a scripted peer that said HELLO as a CLIENT with its
   * id (none for a raw one). Writes are posted, not awaited, as a client pipelines them.
   */
  private record Client(ScriptedPeer peer, long clientId) implements AutoCloseable {

    static Client connect(InetSocketAddress repeater, long clientId) throws InterruptedException {
      Client c = raw(repeater, clientId);
      c.peer.send(Message.Hello.of(Role.CLIENT, Long.toString(clientId)));
      return c;
    }

    /** Connects without sending HELLO. */
    static Client raw(InetSocketAddress repeater) throws InterruptedException {
      return raw(repeater, 0);
    }

    private static Client raw(InetSocketAddress repeater, long clientId)
        throws InterruptedException {
      return new Client(
          ScriptedPeer.connect(repeater.getHostString(), repeater.getPort()), clientId);
    }

    static Message.Write write(long clientId, long requestId) {
      return new Message.Write(
          clientId,
          requestId,
          List.of(
              Op.setData(
                  "/k", ("c" + clientId + "r" + requestId).getBytes(StandardCharsets.UTF_8), -1)));
    }

    void write(long requestId) {
      peer.post(write(clientId, requestId));
    }

    void send(Message m) {
      peer.post(m);
    }

    /** The ERRORs received so far, in order. */
    List<Message.Error> errors() {
      return peer.received(Message.Error.class);
    }

    boolean connected() {
      return peer.isConnected();
    }

    @Override
    public void close() {
      peer.close();
    }
  }
}
