package io.zoolander.server.plugin;

import static io.zoolander.server.plugin.PluginTestSupport.ZNODES;
import static io.zoolander.server.plugin.PluginTestSupport.appData;
import static io.zoolander.server.plugin.PluginTestSupport.awaitEndpoint;
import static io.zoolander.server.plugin.PluginTestSupport.awaitLiveEndpoint;
import static io.zoolander.server.plugin.PluginTestSupport.state;
import static io.zoolander.server.plugin.PluginTestSupport.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import io.zoolander.server.LeaderPlugin;
import io.zoolander.server.testing.ZooKeeperEnsemble;
import io.zoolander.testsupport.Await;
import io.zoolander.testsupport.ScriptedPeer;
import io.zoolander.wire.ClientRecord;
import io.zoolander.wire.ErrorCode;
import io.zoolander.wire.Message;
import io.zoolander.wire.Op;
import io.zoolander.wire.OpResult;
import io.zoolander.wire.PluginEndpoint;
import io.zoolander.wire.ReadKind;
import io.zoolander.wire.Role;
import io.zoolander.wire.Znodes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Retried writes (the same client and request id, sequenced again under a new seq) and the anomaly
 * injector, on a real one-server duplicate (a child JVM) driven by a fake repeater and a fake
 * client. The tests share the duplicate: each starts from the STATUS the plugin reports and uses
 * its own client ids and paths.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ZoolanderPluginRetryTest {

  private static final int DUPLICATE_ID = 8;
  private static final Duration QUIET = Duration.ofMillis(300);

  private static ZooKeeperEnsemble ensemble;
  private static ZooKeeper zk;

  private PluginEndpoint endpoint;

  @BeforeAll
  static void startDuplicate() throws Exception {
    ensemble = PluginTestSupport.ensemble(1, DUPLICATE_ID).start();
    zk = PluginTestSupport.connect(ensemble.connectString());
  }

  @AfterAll
  static void stopDuplicate() throws InterruptedException {
    PluginTestSupport.close(zk, ensemble);
  }

  @BeforeEach
  void findPlugin() throws InterruptedException {
    endpoint = awaitLiveEndpoint(zk, ensemble);
  }

  /**
   * @return the version of the client's record znode: one update per write, none more
   */
  private static int recordVersion(long clientId) throws Exception {
    return zk.exists(ZNODES.client(clientId), false).getVersion();
  }

  @Test
  void aRetriedWriteIsAppliedOnceAndAnsweredWithTheOriginalSeqAndResults() throws Exception {
    long clientId = 201;
    try (ScriptedPeer client = ScriptedPeer.hello(endpoint, Role.CLIENT, Long.toString(clientId));
        ScriptedPeer repeater = ScriptedPeer.hello(endpoint, Role.REPEATER, "repeater")) {
      long epoch = Math.max(1, repeater.status().epoch());
      long seq = repeater.status().appliedSeq();
      repeater.send(
          new Message.Sequenced(epoch, ++seq, clientId, 1, List.of(Op.create("/rt", utf8("0")))));
      assertThat(client.next(Message.Reply.class).code()).isEqualTo(Code.OK);
      repeater.next(Message.Ack.class);

      // Results that need the tree to predict: an unconditional setData and sequential creates.
      List<Op> ops =
          List.of(
              Op.setData("/rt", utf8("1"), -1),
              Op.createSequential("/rt/n-", utf8("a")),
              Op.create("/rt/plain", utf8("p")),
              Op.createSequential("/rt/n-", utf8("b")),
              Op.setData("/rt/plain", utf8("p2"), -1),
              Op.check("/rt", 1));
      long firstSeq = ++seq;
      repeater.send(new Message.Sequenced(epoch, firstSeq, clientId, 2, ops));
      Message.Reply first = client.next(Message.Reply.class);
      assertThat(first.results())
          .containsExactly(
              new OpResult.DataSet(1),
              new OpResult.Created("/rt/n-0000000000"),
              new OpResult.Created("/rt/plain"),
              new OpResult.Created("/rt/n-0000000002"),
              new OpResult.DataSet(1),
              new OpResult.Checked());
      assertThat(repeater.next(Message.Ack.class).appliedSeq()).isEqualTo(firstSeq);

      repeater.send(
          new Message.Sequenced(epoch, ++seq, clientId, 2, ops)); // the retry, under a new seq
      assertThat(client.next(Message.Reply.class)).isEqualTo(first);
      assertThat(repeater.next(Message.Ack.class).appliedSeq())
          .as("the sequence still advances")
          .isEqualTo(seq);
      assertThat(state(zk).appliedSeq()).isEqualTo(seq);
      assertThat(zk.getChildren(ZNODES.toZnode("/rt"), false))
          .containsExactlyInAnyOrder("n-0000000000", "plain", "n-0000000002");
      assertThat(zk.exists(ZNODES.toZnode("/rt"), false).getVersion())
          .as("setData applied once")
          .isEqualTo(1);
      assertThat(recordVersion(clientId))
          .as("created, then updated once: the prediction held")
          .isEqualTo(1);

      // The client goes on with its next request as usual.
      repeater.send(
          new Message.Sequenced(
              epoch, ++seq, clientId, 3, List.of(Op.setData("/rt", utf8("3"), 1))));
      assertThat(client.next(Message.Reply.class))
          .isEqualTo(
              new Message.Reply(clientId, 3, seq, DUPLICATE_ID, List.of(new OpResult.DataSet(2))));
      assertThat(appData(zk, "/rt")).isEqualTo("3");
    }
  }

  @Test
  void aRetriedFailedWriteGetsTheSameFailureEvenIfItWouldSucceedNow() throws Exception {
    long clientId = 202;
    try (ScriptedPeer client = ScriptedPeer.hello(endpoint, Role.CLIENT, Long.toString(clientId));
        ScriptedPeer repeater = ScriptedPeer.hello(endpoint, Role.REPEATER, "repeater")) {
      long epoch = Math.max(1, repeater.status().epoch());
      long seq = repeater.status().appliedSeq();
      List<Op> orphan = List.of(Op.create("/rf/child", utf8("c")));
      long failedSeq = ++seq;
      repeater.send(new Message.Sequenced(epoch, failedSeq, clientId, 1, orphan));
      Message.Reply failed = client.next(Message.Reply.class);
      assertThat(failed.results()).containsExactly(new OpResult.Failed(Code.NONODE));
      repeater.send(
          new Message.Sequenced(epoch, ++seq, clientId, 2, List.of(Op.create("/rf", utf8("p")))));
      assertThat(client.next(Message.Reply.class).code()).isEqualTo(Code.OK);

      repeater.send(new Message.Sequenced(epoch, ++seq, clientId, 1, orphan)); // would succeed now
      assertThat(client.next(Message.Reply.class)).isEqualTo(failed);
      assertThat(appData(zk, "/rf/child")).isNull();
      Message.Ack ack;
      do {
        ack = repeater.next(Message.Ack.class);
      } while (ack.appliedSeq() < seq);
      assertThat(state(zk).appliedSeq()).isEqualTo(seq);
    }
  }

  @Test
  void aRetryOlderThanTheWindowGetsDuplicateRequest() throws Exception {
    long clientId = 203;
    try (ScriptedPeer client = ScriptedPeer.hello(endpoint, Role.CLIENT, Long.toString(clientId));
        ScriptedPeer repeater = ScriptedPeer.hello(endpoint, Role.REPEATER, "repeater")) {
      long epoch = Math.max(1, repeater.status().epoch());
      long seq = repeater.status().appliedSeq();
      repeater.send(
          new Message.Sequenced(epoch, ++seq, clientId, 1, List.of(Op.create("/rw", utf8("0")))));
      for (long requestId = 2; requestId <= ClientRecord.WINDOW + 1; requestId++) {
        repeater.send(
            new Message.Sequenced(
                epoch,
                ++seq,
                clientId,
                requestId,
                List.of(Op.setData("/rw", utf8(Long.toString(requestId)), -1))));
      }
      for (long requestId = 1; requestId <= ClientRecord.WINDOW + 1; requestId++) {
        assertThat(client.next(Message.Reply.class).requestId()).isEqualTo(requestId);
      }
      String data = appData(zk, "/rw");

      repeater.send(
          new Message.Sequenced(epoch, ++seq, clientId, 1, List.of(Op.create("/rw", utf8("0")))));
      Message.Error forgotten = client.next(Message.Error.class);
      assertThat(forgotten.code()).isEqualTo(ErrorCode.DUPLICATE_REQUEST);
      assertThat(forgotten.requestId()).isEqualTo(1);
      repeater.send(
          new Message.Sequenced(
              epoch, ++seq, clientId, 2, List.of(Op.setData("/rw", utf8("2"), -1))));
      Message.Reply held = client.next(Message.Reply.class);
      assertThat(held.seq())
          .as("the oldest request still in the window")
          .isEqualTo(seq - ClientRecord.WINDOW - 1);
      assertThat(held.results()).containsExactly(new OpResult.DataSet(1));
      Message.Ack ack;
      do {
        ack = repeater.next(Message.Ack.class);
      } while (ack.appliedSeq() < seq);
      assertThat(appData(zk, "/rw")).as("neither retry applied").isEqualTo(data);
    }
  }

  @Test
  void aRequestIdSentAfterAHigherOneWasAppliedIsRefusedNotTakenForARetry() throws Exception {
    long clientId = 205;
    try (ScriptedPeer client = ScriptedPeer.hello(endpoint, Role.CLIENT, Long.toString(clientId));
        ScriptedPeer repeater = ScriptedPeer.hello(endpoint, Role.REPEATER, "repeater")) {
      long epoch = Math.max(1, repeater.status().epoch());
      long seq = repeater.status().appliedSeq();
      repeater.send(
          new Message.Sequenced(epoch, ++seq, clientId, 1, List.of(Op.create("/ro", utf8("1")))));
      repeater.send(
          new Message.Sequenced(
              epoch, ++seq, clientId, 3, List.of(Op.setData("/ro", utf8("3"), 0))));
      repeater.send(
          new Message.Sequenced(
              epoch, ++seq, clientId, 2, List.of(Op.setData("/ro", utf8("2"), -1))));
      assertThat(client.next(Message.Reply.class).requestId()).isEqualTo(1);
      assertThat(client.next(Message.Reply.class).requestId()).isEqualTo(3);
      Message.Error refused = client.next(Message.Error.class);
      assertThat(refused.code()).isEqualTo(ErrorCode.INVALID_OP);
      assertThat(refused.requestId()).isEqualTo(2);
      Message.Ack ack;
      do {
        ack = repeater.next(Message.Ack.class);
      } while (ack.appliedSeq() < seq);
      assertThat(appData(zk, "/ro")).isEqualTo("3");
    }
  }

  @Test
  void aRetryAfterTheServerRestartedIsStillAppliedOnce() throws Exception {
    long clientId = 204;
    long epoch;
    long seq;
    Message.Reply first;
    List<Op> ops = List.of(Op.create("/rr", utf8("0")), Op.createSequential("/rr/n-", utf8("1")));
    try (ScriptedPeer client = ScriptedPeer.hello(endpoint, Role.CLIENT, Long.toString(clientId));
        ScriptedPeer repeater = ScriptedPeer.hello(endpoint, Role.REPEATER, "repeater")) {
      epoch = Math.max(1, repeater.status().epoch());
      seq = repeater.status().appliedSeq();
      repeater.send(new Message.Sequenced(epoch, ++seq, clientId, 7, ops));
      first = client.next(Message.Reply.class);
      assertThat(first.results())
          .containsExactly(new OpResult.Created("/rr"), new OpResult.Created("/rr/n-0000000000"));
    }
    long ownerBefore = zk.exists(ZNODES.endpoint(), false).getEphemeralOwner();

    ensemble.restart(1); // kill -9, then start again: the plugin's cache is gone, the record is not

    PluginEndpoint restarted =
        awaitEndpoint(
            zk,
            ensemble,
            e -> {
              Stat stat = PluginTestSupport.stat(zk, ZNODES.endpoint());
              return stat != null && stat.getEphemeralOwner() != ownerBefore;
            });
    try (ScriptedPeer client = ScriptedPeer.hello(restarted, Role.CLIENT, Long.toString(clientId));
        ScriptedPeer repeater = ScriptedPeer.hello(restarted, Role.REPEATER, "repeater")) {
      repeater.send(new Message.Sequenced(epoch, ++seq, clientId, 7, ops));
      assertThat(client.next(Message.Reply.class)).isEqualTo(first);
      assertThat(repeater.next(Message.Ack.class).appliedSeq()).isEqualTo(seq);
      assertThat(zk.getChildren(ZNODES.toZnode("/rr"), false)).containsExactly("n-0000000000");
      client.expectNothing(QUIET);

      // The restarted plugin knows nothing of the tree yet: it reads the stats its prediction
      // needs.
      repeater.send(
          new Message.Sequenced(
              epoch,
              ++seq,
              clientId,
              8,
              List.of(Op.setData("/rr", utf8("1"), -1), Op.createSequential("/rr/n-", utf8("2")))));
      assertThat(client.next(Message.Reply.class).results())
          .containsExactly(new OpResult.DataSet(1), new OpResult.Created("/rr/n-0000000001"));
      assertThat(recordVersion(clientId))
          .as("created, then updated once: the prediction held")
          .isEqualTo(1);
    }
  }

  /**
   * A plugin started in this JVM against the same server, on its own base path, so that its view
   * can be read: the anomaly injector follows its znode, slows reads and writes by at least the
   * configured delay, ignores a malformed record and stops when the znode goes; the view also
   * counts the retries it recognised.
   */
  @Test
  void theAnomalyInjectorFollowsItsZnodeAndSlowsReadsAndWrites() throws Exception {
    Znodes znodes = new Znodes("/inproc/anomaly");
    ZoolanderPluginFactory factory = new ZoolanderPluginFactory();
    LeaderPlugin plugin = factory.newPlugin();
    plugin.start(TestLeaderContext.onOwnBasePath(ensemble, 12, znodes, Map.of()));
    try {
      ZoolanderPluginView view = factory.plugin().orElseThrow();
      assertThat(view.anomalyInjector()).isEqualTo(AnomalySettings.OFF);
      PluginEndpoint published = view.endpoint().orElseThrow();
      try (ScriptedPeer client = ScriptedPeer.hello(published, Role.CLIENT, "5");
          ScriptedPeer repeater = ScriptedPeer.hello(published, Role.REPEATER, "repeater")) {
        repeater.send(new Message.Sequenced(1, 1, 5, 1, List.of(Op.create("/a", utf8("a")))));
        Message.Reply created = client.next(Message.Reply.class);
        repeater.send(new Message.Sequenced(1, 2, 5, 1, List.of(Op.create("/a", utf8("a")))));
        assertThat(client.next(Message.Reply.class)).isEqualTo(created);
        assertThat(view.duplicateRequests()).isEqualTo(1);

        String slow = "probability=1;delayMs=200;distribution=fixed";
        zk.create(znodes.anomaly(), utf8(slow), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
        awaitInjector(view, true);
        assertThat(view.anomalyInjector()).isEqualTo(AnomalySettings.parse(slow));

        long start = System.nanoTime();
        repeater.send(new Message.Sequenced(1, 3, 5, 2, List.of(Op.setData("/a", utf8("b"), -1))));
        assertThat(client.next(Message.Reply.class).results())
            .containsExactly(new OpResult.DataSet(1));
        assertThat(elapsedMs(start))
            .as("a write stalled by the injector")
            .isGreaterThanOrEqualTo(200);
        start = System.nanoTime();
        client.send(new Message.Read(5, 10, ReadKind.GET_DATA, "/a", 3));
        assertThat(client.next(Message.ReadReply.class).data()).isEqualTo(utf8("b"));
        assertThat(elapsedMs(start))
            .as("a read held back by the injector")
            .isGreaterThanOrEqualTo(200);

        zk.setData(znodes.anomaly(), utf8("probability=2;delayMs=200"), -1);
        awaitInjector(view, false); // malformed: ignored, off
        zk.setData(znodes.anomaly(), utf8(slow), -1);
        awaitInjector(view, true);
        zk.delete(znodes.anomaly(), -1);
        awaitInjector(view, false);
        assertThat(view.anomalyInjector()).isEqualTo(AnomalySettings.OFF);

        repeater.send(new Message.Sequenced(1, 4, 5, 3, List.of(Op.setData("/a", utf8("c"), 1))));
        assertThat(client.next(Message.Reply.class).results())
            .containsExactly(new OpResult.DataSet(2));
        client.send(new Message.Read(5, 11, ReadKind.GET_DATA, "/a", 4));
        assertThat(client.next(Message.ReadReply.class).data()).isEqualTo(utf8("c"));
      }
    } finally {
      plugin.stop();
    }
  }

  /**
   * A snapshot asked for while the applier works through a backlog (a stalled duplicate, far behind
   * the repeater) is taken between two runs of it, at the seq applied then, not once the whole
   * backlog is applied: a duplicate joining by state transfer from it would otherwise wait as long
   * as the backlog lasts (7 s in the diurnal bench). The backlog is still applied in full.
   */
  @Test
  void aSnapshotAskedDuringABacklogIsTakenBetweenTwoRunsOfIt() throws Exception {
    Znodes znodes = new Znodes("/inproc/backlog");
    ZoolanderPluginFactory factory = new ZoolanderPluginFactory();
    LeaderPlugin plugin = factory.newPlugin();
    plugin.start(TestLeaderContext.onOwnBasePath(ensemble, 13, znodes, Map.of()));
    try {
      ZoolanderPluginView view = factory.plugin().orElseThrow();
      try (ScriptedPeer repeater =
          ScriptedPeer.hello(view.endpoint().orElseThrow(), Role.REPEATER, "repeater")) {
        repeater.send(new Message.Sequenced(1, 1, 5, 1, List.of(Op.create("/b", utf8("0")))));
        assertThat(repeater.nextOf(Message.Ack.class).appliedSeq()).isEqualTo(1);
        zk.create(
            znodes.anomaly(),
            utf8("probability=1;delayMs=10;distribution=fixed;applies=writes"),
            ZooDefs.Ids.OPEN_ACL_UNSAFE,
            CreateMode.PERSISTENT);
        awaitInjector(view, true);

        // Four runs' worth (a run is one batch, 64 writes), each write stalled 10 ms: 2.5 s.
        int last = 1 + 256;
        List<Message.Sequenced> backlog = new ArrayList<>();
        for (int seq = 2; seq <= last; seq++) {
          backlog.add(
              new Message.Sequenced(
                  1, seq, 5, seq, List.of(Op.setData("/b", utf8(Integer.toString(seq)), -1))));
        }
        repeater.sendTogether(backlog);
        repeater.send(new Message.TransferRequest(1, 99));
        Message.TransferChunk snapshot = repeater.nextOf(Message.TransferChunk.class);
        assertThat(snapshot.appliedSeq())
            .as("taken between two runs of the backlog, not after it")
            .isBetween(1L, (long) last - 1);

        long acked = 0;
        while (acked < last) { // an ACK per run, each within ScriptedPeer.WAIT
          acked = repeater.nextOf(Message.Ack.class).appliedSeq();
        }
        assertThat(acked).isEqualTo(last);
      }
    } finally {
      plugin.stop();
    }
  }

  private static void awaitInjector(ZoolanderPluginView view, boolean enabled)
      throws InterruptedException {
    Await.await(
        ScriptedPeer.WAIT,
        "the anomaly injector is " + (enabled ? "on" : "off"),
        () -> view.anomalyInjector().enabled() == enabled,
        () -> "injector: " + view.anomalyInjector());
  }

  private static long elapsedMs(long startNanos) {
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
  }
}
