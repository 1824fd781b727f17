package io.zoolander.server.plugin;

import static io.zoolander.server.plugin.PluginTestSupport.ZNODES;
import static io.zoolander.server.plugin.PluginTestSupport.appData;
import static io.zoolander.server.plugin.PluginTestSupport.awaitEndpoint;
import static io.zoolander.server.plugin.PluginTestSupport.awaitLiveEndpoint;
import static io.zoolander.server.plugin.PluginTestSupport.state;
import static io.zoolander.server.plugin.PluginTestSupport.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zoolander.server.LeaderContext;
import io.zoolander.server.LeaderPlugin;
import io.zoolander.server.internal.repeater.DuplicateSource;
import io.zoolander.server.internal.repeater.EpochTakenException;
import io.zoolander.server.internal.repeater.ZooKeeperDuplicateSource;
import io.zoolander.server.testing.TreeDigest;
import io.zoolander.server.testing.ZooKeeperEnsemble;
import io.zoolander.testsupport.Await;
import io.zoolander.testsupport.ScriptedPeer;
import io.zoolander.wire.BookkeepingState;
import io.zoolander.wire.DuplicateState;
import io.zoolander.wire.ErrorCode;
import io.zoolander.wire.Message;
import io.zoolander.wire.Op;
import io.zoolander.wire.OpResult;
import io.zoolander.wire.PluginEndpoint;
import io.zoolander.wire.ReadKind;
import io.zoolander.wire.Role;
import io.zoolander.wire.Znodes;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The real plugin on a real one-server duplicate (a child JVM), driven by a fake repeater and a
 * fake client over TCP. The tests share the duplicate: each starts from the STATUS the plugin
 * reports and uses its own paths.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ZoolanderPluginTest {

  private static final int DUPLICATE_ID = 7;
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
    assertThat(endpoint.duplicateId()).isEqualTo(DUPLICATE_ID);
    assertThat(endpoint.serverId()).isEqualTo(1);
  }

  @Test
  void helloIsAnsweredWithStatusAndAnythingElseFirstIsRefused() throws Exception {
    try (ScriptedPeer admin = ScriptedPeer.hello(endpoint, Role.ADMIN, "console")) {
      Message.Status status = admin.status();
      BookkeepingState stored = state(zk);
      assertThat(status)
          .isEqualTo(
              new Message.Status(
                  DUPLICATE_ID, stored.epoch(), stored.appliedSeq(), DuplicateState.ACTIVE));
    }
    try (ScriptedPeer rude = ScriptedPeer.connect(endpoint)) {
      rude.send(new Message.Read(1, 1, ReadKind.GET_DATA, "/", 0));
      assertThat(rude.next(Message.Error.class).code()).isEqualTo(ErrorCode.UNEXPECTED_MESSAGE);
      assertThat(rude.awaitClosed()).as("closed after a first message that is not HELLO").isTrue();
    }
    try (ScriptedPeer badClient = ScriptedPeer.connect(endpoint)) {
      badClient.send(Message.Hello.of(Role.CLIENT, "not-a-number"));
      assertThat(badClient.next(Message.Error.class).code())
          .isEqualTo(ErrorCode.UNEXPECTED_MESSAGE);
      assertThat(badClient.awaitClosed()).isTrue();
    }
  }

  @Test
  void appliesCreateSetDataDeleteAndCheckAndRepliesWithTheirResults() throws Exception {
    long clientId = 101;
    try (ScriptedPeer client = ScriptedPeer.hello(endpoint, Role.CLIENT, Long.toString(clientId));
        ScriptedPeer repeater = ScriptedPeer.hello(endpoint, Role.REPEATER, "repeater")) {
      long epoch = Math.max(1, repeater.status().epoch());
      long seq = repeater.status().appliedSeq();

      repeater.send(
          new Message.Sequenced(epoch, ++seq, clientId, 1, List.of(Op.create("/w", utf8("w0")))));
      assertThat(client.next(Message.Reply.class))
          .isEqualTo(
              new Message.Reply(
                  clientId, 1, seq, DUPLICATE_ID, List.of(new OpResult.Created("/w"))));
      assertThat(repeater.next(Message.Ack.class))
          .isEqualTo(new Message.Ack(DUPLICATE_ID, epoch, seq));

      repeater.send(
          new Message.Sequenced(
              epoch,
              ++seq,
              clientId,
              2,
              List.of(
                  Op.setData("/w", utf8("w1"), 0),
                  Op.create("/w/c", utf8("c")),
                  Op.createSequential("/w/s-", utf8("s")))));
      assertThat(client.next(Message.Reply.class).results())
          .containsExactly(
              new OpResult.DataSet(1),
              new OpResult.Created("/w/c"),
              new OpResult.Created("/w/s-0000000001"));
      assertThat(repeater.next(Message.Ack.class).appliedSeq()).isEqualTo(seq);

      repeater.send(
          new Message.Sequenced(
              epoch, ++seq, clientId, 3, List.of(Op.check("/w", 1), Op.delete("/w/c", 0))));
      assertThat(client.next(Message.Reply.class).results())
          .containsExactly(new OpResult.Checked(), new OpResult.Deleted());
      assertThat(repeater.next(Message.Ack.class).appliedSeq()).isEqualTo(seq);

      assertThat(appData(zk, "/w")).isEqualTo("w1");
      assertThat(appData(zk, "/w/c")).isNull();
      assertThat(appData(zk, "/w/s-0000000001")).isEqualTo("s");
      assertThat(state(zk)).isEqualTo(new BookkeepingState(epoch, seq));
    }
  }

  @Test
  void aFailingOpFailsTheWholeMultiAndStillAdvancesTheSequence() throws Exception {
    long clientId = 102;
    try (ScriptedPeer client = ScriptedPeer.hello(endpoint, Role.CLIENT, Long.toString(clientId));
        ScriptedPeer repeater = ScriptedPeer.hello(endpoint, Role.REPEATER, "repeater")) {
      long epoch = Math.max(1, repeater.status().epoch());
      long seq = repeater.status().appliedSeq();

      repeater.send(
          new Message.Sequenced(epoch, ++seq, clientId, 1, List.of(Op.create("/f", utf8("f0")))));
      assertThat(client.next(Message.Reply.class).code()).isEqualTo(Code.OK);
      repeater.next(Message.Ack.class);

      // NodeExists on the second op: the first is rolled back, the third never ran.
      repeater.send(
          new Message.Sequenced(
              epoch,
              ++seq,
              clientId,
              2,
              List.of(
                  Op.create("/f/a", utf8("a")),
                  Op.create("/f", utf8("again")),
                  Op.create("/f/b", utf8("b")))));
      assertThat(client.next(Message.Reply.class))
          .isEqualTo(
              new Message.Reply(
                  clientId,
                  2,
                  seq,
                  DUPLICATE_ID,
                  List.of(
                      new OpResult.Failed(Code.OK),
                      new OpResult.Failed(Code.NODEEXISTS),
                      new OpResult.Failed(Code.RUNTIMEINCONSISTENCY))));
      assertThat(repeater.next(Message.Ack.class).appliedSeq()).isEqualTo(seq);
      assertThat(appData(zk, "/f/a")).isNull();
      assertThat(appData(zk, "/f/b")).isNull();

      repeater.send(
          new Message.Sequenced(
              epoch, ++seq, clientId, 3, List.of(Op.setData("/f", utf8("x"), 5))));
      assertThat(client.next(Message.Reply.class).results())
          .containsExactly(new OpResult.Failed(Code.BADVERSION));
      repeater.next(Message.Ack.class);

      repeater.send(
          new Message.Sequenced(epoch, ++seq, clientId, 4, List.of(Op.delete("/f/missing", -1))));
      assertThat(client.next(Message.Reply.class).results())
          .containsExactly(new OpResult.Failed(Code.NONODE));
      repeater.next(Message.Ack.class);

      // The data root itself cannot be deleted: refused as BADARGUMENTS, in ZooKeeper's multi
      // convention.
      repeater.send(
          new Message.Sequenced(
              epoch,
              ++seq,
              clientId,
              5,
              List.of(Op.setData("/f", utf8("y"), -1), Op.delete("/", -1))));
      assertThat(client.next(Message.Reply.class).results())
          .containsExactly(new OpResult.Failed(Code.OK), new OpResult.Failed(Code.BADARGUMENTS));
      assertThat(repeater.next(Message.Ack.class).appliedSeq()).isEqualTo(seq);

      assertThat(appData(zk, "/f")).isEqualTo("f0");
      assertThat(zk.exists(ZNODES.dataRoot(), false)).isNotNull();
      assertThat(state(zk)).isEqualTo(new BookkeepingState(epoch, seq));
    }
  }

  @Test
  void aWriteTooLargeForOneZooKeeperRequestFailsInsteadOfStallingTheDuplicate() throws Exception {
    long clientId = 107;
    try (ScriptedPeer client = ScriptedPeer.hello(endpoint, Role.CLIENT, Long.toString(clientId));
        ScriptedPeer repeater = ScriptedPeer.hello(endpoint, Role.REPEATER, "repeater")) {
      long epoch = Math.max(1, repeater.status().epoch());
      long seq = repeater.status().appliedSeq();
      // 1 MiB of data is a valid op on the wire but more than ZooKeeper's default jute.maxbuffer (1
      // MiB - 1).
      repeater.send(
          new Message.Sequenced(
              epoch,
              ++seq,
              clientId,
              1,
              List.of(Op.create("/big", new byte[io.zoolander.wire.WireSettings.MAX_DATA_BYTES]))));
      assertThat(client.next(Message.Reply.class).results())
          .containsExactly(new OpResult.Failed(Code.BADARGUMENTS));
      assertThat(repeater.next(Message.Ack.class).appliedSeq()).isEqualTo(seq);
      repeater.send(
          new Message.Sequenced(
              epoch, ++seq, clientId, 2, List.of(Op.create("/big", utf8("small")))));
      assertThat(client.next(Message.Reply.class).results())
          .containsExactly(new OpResult.Created("/big"));
      assertThat(state(zk).appliedSeq()).isEqualTo(seq);
    }
  }

  @Test
  void aReplayChangesNothingAndIsAckedAgain() throws Exception {
    long clientId = 103;
    try (ScriptedPeer client = ScriptedPeer.hello(endpoint, Role.CLIENT, Long.toString(clientId));
        ScriptedPeer repeater = ScriptedPeer.hello(endpoint, Role.REPEATER, "repeater")) {
      long epoch = Math.max(1, repeater.status().epoch());
      long seq = repeater.status().appliedSeq() + 1;
      Message.Sequenced write =
          new Message.Sequenced(epoch, seq, clientId, 1, List.of(Op.create("/r", utf8("r"))));
      repeater.send(write);
      assertThat(client.next(Message.Reply.class).code()).isEqualTo(Code.OK);
      assertThat(repeater.next(Message.Ack.class).appliedSeq()).isEqualTo(seq);
      Stat before = zk.exists(ZNODES.state(), false);

      repeater.send(write); // applied twice, it would fail with NODEEXISTS
      repeater.send(
          new Message.Sequenced(epoch, seq, clientId, 2, List.of(Op.create("/r2", utf8("r2")))));
      assertThat(repeater.next(Message.Ack.class))
          .isEqualTo(new Message.Ack(DUPLICATE_ID, epoch, seq));
      assertThat(repeater.next(Message.Ack.class))
          .isEqualTo(new Message.Ack(DUPLICATE_ID, epoch, seq));
      client.expectNothing(QUIET);
      assertThat(appData(zk, "/r2")).isNull();
      assertThat(zk.exists(ZNODES.state(), false).getVersion()).isEqualTo(before.getVersion());
    }
  }

  @Test
  void aHigherEpochIsRecordedAndAStaleOneIsRefused() throws Exception {
    long clientId = 104;
    try (ScriptedPeer client = ScriptedPeer.hello(endpoint, Role.CLIENT, Long.toString(clientId));
        ScriptedPeer repeater = ScriptedPeer.hello(endpoint, Role.REPEATER, "repeater")) {
      long newEpoch = repeater.status().epoch() + 1;
      long seq = repeater.status().appliedSeq();

      repeater.send(
          new Message.Sequenced(newEpoch, ++seq, clientId, 1, List.of(Op.create("/e", utf8("e")))));
      assertThat(client.next(Message.Reply.class).code()).isEqualTo(Code.OK);
      assertThat(repeater.next(Message.Ack.class))
          .isEqualTo(new Message.Ack(DUPLICATE_ID, newEpoch, seq));
      assertThat(state(zk)).isEqualTo(new BookkeepingState(newEpoch, seq));

      try (ScriptedPeer deposed = ScriptedPeer.hello(endpoint, Role.REPEATER, "old-repeater")) {
        assertThat(deposed.status().epoch()).isEqualTo(newEpoch);
        deposed.send(
            new Message.Sequenced(
                newEpoch - 1, seq + 1, clientId, 2, List.of(Op.create("/stale", utf8("s")))));
        Message.Error refused = deposed.next(Message.Error.class);
        assertThat(refused.code()).isEqualTo(ErrorCode.STALE_EPOCH);
        assertThat(refused.requestId()).isEqualTo(seq + 1);
      }
      client.expectNothing(QUIET);
      assertThat(appData(zk, "/stale")).isNull();
      assertThat(state(zk)).isEqualTo(new BookkeepingState(newEpoch, seq));
    }
  }

  @Test
  void aRepeaterClaimingAnEpochFencesTheOlderOneAndGetsTheRecentWrites() throws Exception {
    long clientId = 110;
    try (ScriptedPeer client = ScriptedPeer.hello(endpoint, Role.CLIENT, Long.toString(clientId));
        ScriptedPeer old = ScriptedPeer.hello(endpoint, Role.REPEATER, "repeater")) {
      long epoch = Math.max(1, old.status().epoch());
      long first = old.status().appliedSeq() + 1;
      List<Message.Sequenced> sent =
          List.of(
              new Message.Sequenced(
                  epoch, first, clientId, 1, List.of(Op.create("/claim", utf8("0")))),
              new Message.Sequenced(
                  epoch, first + 1, clientId, 2, List.of(Op.setData("/claim", utf8("1"), 0))),
              new Message.Sequenced(
                  epoch, first + 2, clientId, 3, List.of(Op.setData("/claim", utf8("2"), 1))));
      sent.forEach(old::send);
      for (int i = 0; i < sent.size(); i++) {
        assertThat(client.next(Message.Reply.class).code()).isEqualTo(Code.OK);
      }

      // A new repeater claims the next epoch, straight in the duplicate's ZooKeeper, as
      // Repeater.start() does.
      ZooKeeperDuplicateSource source =
          new ZooKeeperDuplicateSource(DUPLICATE_ID, ensemble.connectString(), ZNODES, 10_000);
      DuplicateSource.Claim claim = source.claim(epoch + 1, 10_000);
      assertThat(claim.state()).isEqualTo(new BookkeepingState(epoch + 1, first + 2));
      assertThat(claim.endpoint()).contains(endpoint);
      assertThatThrownBy(() -> source.claim(epoch + 1, 10_000))
          .isInstanceOf(EpochTakenException.class);

      // The old repeater can get nothing applied any more.
      old.send(
          new Message.Sequenced(
              epoch, first + 3, clientId, 4, List.of(Op.setData("/claim", utf8("x"), -1))));
      Message.Error refused = old.nextOf(Message.Error.class);
      assertThat(refused.code()).isEqualTo(ErrorCode.STALE_EPOCH);
      assertThat(refused.requestId()).isEqualTo(first + 3);
      assertThat(appData(zk, "/claim")).isEqualTo("2");
      assertThat(state(zk)).isEqualTo(new BookkeepingState(epoch + 1, first + 2));

      // The new one asks for what this duplicate applied: the writes as received, then STATUS.
      try (ScriptedPeer recovering = ScriptedPeer.hello(endpoint, Role.REPEATER, "repeater")) {
        recovering.send(new Message.Retransmit(DUPLICATE_ID, epoch + 1, first, first + 10));
        for (Message.Sequenced write : sent) {
          assertThat(recovering.next(Message.Sequenced.class)).isEqualTo(write);
        }
        assertThat(recovering.next(Message.Status.class))
            .isEqualTo(
                new Message.Status(DUPLICATE_ID, epoch + 1, first + 2, DuplicateState.ACTIVE));
        recovering.send(new Message.Retransmit(DUPLICATE_ID, epoch + 1, first + 3, first + 10));
        assertThat(recovering.next(Message.Status.class).appliedSeq()).isEqualTo(first + 2);
      }
    }
  }

  @Test
  void aGapIsHeldAndRetransmittedAndApplyingResumesInOrder() throws Exception {
    long clientId = 105;
    try (ScriptedPeer client = ScriptedPeer.hello(endpoint, Role.CLIENT, Long.toString(clientId));
        ScriptedPeer repeater = ScriptedPeer.hello(endpoint, Role.REPEATER, "repeater")) {
      long epoch = Math.max(1, repeater.status().epoch());
      long base = repeater.status().appliedSeq();

      // base+1 and base+2 are "lost"; base+3 and base+4 arrive.
      repeater.send(
          new Message.Sequenced(
              epoch, base + 3, clientId, 3, List.of(Op.create("/g/c", utf8("3")))));
      assertThat(repeater.next(Message.Retransmit.class))
          .isEqualTo(new Message.Retransmit(DUPLICATE_ID, epoch, base + 1, base + 2));
      repeater.send(
          new Message.Sequenced(
              epoch, base + 4, clientId, 4, List.of(Op.setData("/g", utf8("4"), 0))));
      try (ScriptedPeer admin = ScriptedPeer.hello(endpoint, Role.ADMIN, "console")) {
        assertThat(admin.status().state()).isEqualTo(DuplicateState.CATCHING_UP);
        assertThat(admin.status().appliedSeq()).isEqualTo(base);
      }
      // Not asked again for the same gap until the retransmission timeout (300 ms here) passes.
      assertThat(repeater.next(Message.Retransmit.class))
          .isEqualTo(new Message.Retransmit(DUPLICATE_ID, epoch, base + 1, base + 2));
      client.expectNothing(Duration.ZERO);

      repeater.send(
          new Message.Sequenced(
              epoch, base + 2, clientId, 2, List.of(Op.create("/g/b", utf8("2")))));
      repeater.send(
          new Message.Sequenced(epoch, base + 1, clientId, 1, List.of(Op.create("/g", utf8("1")))));
      for (long requestId = 1; requestId <= 4; requestId++) {
        Message.Reply reply = client.next(Message.Reply.class);
        assertThat(reply.requestId()).isEqualTo(requestId);
        assertThat(reply.seq()).isEqualTo(base + requestId);
        assertThat(reply.code()).as("request %d", requestId).isEqualTo(Code.OK);
      }
      Message.Ack ack;
      do {
        ack =
            repeater.nextOf(Message.Ack.class); // a RETRANSMIT may have crossed the missing writes
      } while (ack.appliedSeq() < base + 4);
      assertThat(ack.appliedSeq()).isEqualTo(base + 4);
      assertThat(appData(zk, "/g")).isEqualTo("4");
      assertThat(state(zk).appliedSeq()).isEqualTo(base + 4);
      try (ScriptedPeer admin = ScriptedPeer.hello(endpoint, Role.ADMIN, "console")) {
        assertThat(admin.status().state()).isEqualTo(DuplicateState.ACTIVE);
      }
    }
  }

  @Test
  void readsAreServedOnceTheirMinSeqIsApplied() throws Exception {
    long clientId = 106;
    try (ScriptedPeer client = ScriptedPeer.hello(endpoint, Role.CLIENT, Long.toString(clientId));
        ScriptedPeer repeater = ScriptedPeer.hello(endpoint, Role.REPEATER, "repeater")) {
      long epoch = Math.max(1, repeater.status().epoch());
      long seq = repeater.status().appliedSeq();
      repeater.send(
          new Message.Sequenced(
              epoch,
              ++seq,
              clientId,
              1,
              List.of(
                  Op.create("/q", utf8("q")),
                  Op.create("/q/b", new byte[0]),
                  Op.create("/q/a", new byte[0]))));
      client.next(Message.Reply.class);

      client.send(new Message.Read(clientId, 10, ReadKind.GET_DATA, "/q", seq));
      assertThat(client.next(Message.ReadReply.class))
          .isEqualTo(
              new Message.ReadReply(
                  clientId, 10, DUPLICATE_ID, seq, Code.OK, utf8("q"), 0, List.of()));
      client.send(new Message.Read(clientId, 11, ReadKind.GET_CHILDREN, "/q", 0));
      assertThat(client.next(Message.ReadReply.class).children()).containsExactly("a", "b");
      client.send(new Message.Read(clientId, 12, ReadKind.EXISTS, "/q/none", 0));
      Message.ReadReply absent = client.next(Message.ReadReply.class);
      assertThat(absent.code()).isEqualTo(Code.NONODE);
      assertThat(absent.version()).isEqualTo(-1);

      // A read ahead of this duplicate waits for the write it needs...
      client.send(new Message.Read(clientId, 13, ReadKind.GET_DATA, "/q", seq + 1));
      client.expectNothing(Duration.ofMillis(100));
      repeater.send(
          new Message.Sequenced(epoch, ++seq, 1061, 1, List.of(Op.setData("/q", utf8("q2"), -1))));
      Message.ReadReply waited = client.next(Message.ReadReply.class);
      assertThat(waited.appliedSeq()).isEqualTo(seq);
      assertThat(new String(waited.data(), StandardCharsets.UTF_8)).isEqualTo("q2");
      // ...but not forever.
      client.send(new Message.Read(clientId, 14, ReadKind.GET_DATA, "/q", seq + 100));
      Message.Error refused = client.next(Message.Error.class);
      assertThat(refused.code()).isEqualTo(ErrorCode.OVERLOADED);
      assertThat(refused.requestId()).isEqualTo(14);
    }
  }

  @Test
  void restartKeepsTheStateAndAppliesNothingTwice() throws Exception {
    long clientId = 108;
    long epoch;
    long seq;
    Message.Sequenced last;
    try (ScriptedPeer client = ScriptedPeer.hello(endpoint, Role.CLIENT, Long.toString(clientId));
        ScriptedPeer repeater = ScriptedPeer.hello(endpoint, Role.REPEATER, "repeater")) {
      epoch = Math.max(1, repeater.status().epoch());
      seq = repeater.status().appliedSeq();
      repeater.send(
          new Message.Sequenced(epoch, ++seq, clientId, 1, List.of(Op.create("/k", utf8("0")))));
      last =
          new Message.Sequenced(
              epoch, ++seq, clientId, 2, List.of(Op.createSequential("/k/n-", utf8("1"))));
      repeater.send(last);
      client.next(Message.Reply.class);
      assertThat(client.next(Message.Reply.class).results())
          .containsExactly(new OpResult.Created("/k/n-0000000000"));
    }
    long ownerBefore = zk.exists(ZNODES.endpoint(), false).getEphemeralOwner();

    ensemble.restart(1); // kill -9, then start again

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
      assertThat(repeater.status())
          .isEqualTo(new Message.Status(DUPLICATE_ID, epoch, seq, DuplicateState.ACTIVE));
      repeater.send(last); // a new repeater connection resends from its log: ignored
      assertThat(repeater.next(Message.Ack.class))
          .isEqualTo(new Message.Ack(DUPLICATE_ID, epoch, seq));
      client.expectNothing(QUIET);
      assertThat(zk.getChildren(ZNODES.toZnode("/k"), false)).containsExactly("n-0000000000");

      repeater.send(
          new Message.Sequenced(
              epoch, ++seq, clientId, 3, List.of(Op.createSequential("/k/n-", utf8("2")))));
      assertThat(client.next(Message.Reply.class).results())
          .containsExactly(new OpResult.Created("/k/n-0000000001"));
      assertThat(state(zk)).isEqualTo(new BookkeepingState(epoch, seq));
    }
  }

  /**
   * A plugin started in this JVM against the same server, on its own base path: its read-only view,
   * fencing, and the end of its endpoint when it stops.
   */
  @Test
  void aPluginInThisJvmShowsItsViewIsFencedAndUnpublishesOnStop() throws Exception {
    Znodes znodes = new Znodes("/inproc/zl");
    ZoolanderPluginFactory factory = new ZoolanderPluginFactory();
    LeaderPlugin plugin = factory.newPlugin();
    LeaderContext context = TestLeaderContext.onOwnBasePath(ensemble, 9, znodes, Map.of());
    try {
      plugin.start(context);
      ZoolanderPluginView view = factory.plugin().orElseThrow();
      assertThat(view.duplicateId()).isEqualTo(9);
      assertThat(view.snapshot())
          .isEqualTo(new ZoolanderPluginView.Snapshot(0, 0, DuplicateState.ACTIVE));
      PluginEndpoint published = view.endpoint().orElseThrow();
      assertThat(PluginEndpoint.decode(zk.getData(znodes.endpoint(), false, null)))
          .isEqualTo(published);

      try (ScriptedPeer client = ScriptedPeer.hello(published, Role.CLIENT, "1");
          ScriptedPeer repeater = ScriptedPeer.hello(published, Role.REPEATER, "repeater")) {
        repeater.send(new Message.Sequenced(5, 1, 1, 1, List.of(Op.create("/v", utf8("v")))));
        assertThat(repeater.next(Message.Ack.class)).isEqualTo(new Message.Ack(9, 5, 1));
        assertThat(client.next(Message.Reply.class).seq()).isEqualTo(1);
        assertThat(view.snapshot())
            .isEqualTo(new ZoolanderPluginView.Snapshot(5, 1, DuplicateState.ACTIVE));
        assertThat(zk.getData(znodes.toZnode("/v"), false, null)).isEqualTo(utf8("v"));

        repeater.send(Message.Error.of(ErrorCode.FENCED, "your range is gone from my log"));
        Await.await(
            ScriptedPeer.WAIT,
            "the plugin is fenced",
            () -> view.state() == DuplicateState.FENCED,
            () -> "view: " + view.snapshot());
        repeater.send(new Message.Sequenced(5, 2, 1, 2, List.of(Op.create("/w", utf8("w")))));
        client.send(new Message.Read(1, 3, ReadKind.GET_DATA, "/v", 0));
        assertThat(client.next(Message.Error.class).code()).isEqualTo(ErrorCode.FENCED);
        repeater.expectNothing(QUIET);
        try (ScriptedPeer admin = ScriptedPeer.hello(published, Role.ADMIN, "console")) {
          assertThat(admin.status()).isEqualTo(new Message.Status(9, 5, 1, DuplicateState.FENCED));
        }
        assertThat(zk.exists(znodes.toZnode("/w"), false)).isNull();
      }
    } finally {
      plugin.stop();
    }
    assertThat(factory.plugin().orElseThrow().state()).isEqualTo(DuplicateState.STOPPED);
    assertThat(factory.plugin().orElseThrow().endpoint()).isEmpty();
    assertThat(zk.exists(znodes.endpoint(), false))
        .as("the endpoint ends with the plugin's session")
        .isNull();
  }

  /**
   * A state transfer through real plugins: two in this JVM under two base paths of the shared
   * duplicate (the test moves the snapshot's paths from one base to the other, as every duplicate
   * of a deployment shares one). The source snapshots its tree at its applied seq; the rejoining
   * plugin serves no reads (REJOINING) from the first chunk until it has applied the seq the last
   * chunk names, replaces its stale tree, and then applies the stream, conditional writes included,
   * exactly as the source does.
   */
  @Test
  void aStateTransferReplacesTheTreeAndTheRejoiningPluginServesNoReadsUntilCaughtUp()
      throws Exception {
    Znodes from = new Znodes("/st/source");
    Znodes to = new Znodes("/st/target");
    ZoolanderPluginFactory sourceFactory = new ZoolanderPluginFactory();
    ZoolanderPluginFactory targetFactory = new ZoolanderPluginFactory();
    LeaderPlugin source = sourceFactory.newPlugin();
    LeaderPlugin target = targetFactory.newPlugin();
    try {
      source.start(
          TestLeaderContext.of(
              ensemble,
              1,
              Map.of(
                  ZoolanderPluginConfig.DUPLICATE_ID_KEY,
                  "1",
                  ZoolanderPluginConfig.BASE_PATH_KEY,
                  from.basePath())));
      target.start(
          TestLeaderContext.of(
              ensemble,
              1,
              Map.of(
                  ZoolanderPluginConfig.DUPLICATE_ID_KEY,
                  "2",
                  ZoolanderPluginConfig.BASE_PATH_KEY,
                  to.basePath())));
      ZoolanderPluginView targetView = targetFactory.plugin().orElseThrow();
      try (ScriptedPeer toSource =
              ScriptedPeer.hello(
                  sourceFactory.plugin().orElseThrow().endpoint().orElseThrow(),
                  Role.REPEATER,
                  "repeater");
          ScriptedPeer toTarget =
              ScriptedPeer.hello(targetView.endpoint().orElseThrow(), Role.REPEATER, "repeater");
          ScriptedPeer client =
              ScriptedPeer.hello(targetView.endpoint().orElseThrow(), Role.CLIENT, "5")) {
        List<Message.Sequenced> writes =
            List.of(
                new Message.Sequenced(4, 1, 5, 1, List.of(Op.create("/a", utf8("a")))),
                new Message.Sequenced(4, 2, 5, 2, List.of(Op.setData("/a", utf8("a2"), 0))),
                new Message.Sequenced(
                    4, 3, 5, 3, List.of(Op.createSequential("/a/s-", utf8("s")))));
        writes.forEach(toSource::send);
        long acked = 0;
        while (acked < 3) { // an ACK per write or per burst, each within ScriptedPeer.WAIT
          acked = toSource.nextOf(Message.Ack.class).appliedSeq();
        }
        toTarget.send(new Message.Sequenced(4, 1, 6, 1, List.of(Op.create("/stale", utf8("old")))));
        assertThat(toTarget.next(Message.Ack.class).appliedSeq()).isEqualTo(1);
        client.send(new Message.Read(5, 10, ReadKind.GET_DATA, "/stale", 0));
        assertThat(client.nextOf(Message.ReadReply.class).code()).isEqualTo(Code.OK);

        toSource.send(new Message.TransferRequest(1, 2));
        Message.TransferChunk snapshot = toSource.next(Message.TransferChunk.class);
        assertThat(snapshot.last()).isTrue();
        assertThat(snapshot.appliedSeq()).isEqualTo(3);
        assertThat(snapshot.epoch()).isEqualTo(4);
        assertThat(snapshot.nodes())
            .extracting(Message.TransferChunk.Node::path)
            .containsExactly(
                from.dataRoot(),
                from.toZnode("/a"),
                from.toZnode("/a/s-0000000000"),
                from.client(5));
        List<Message.TransferChunk.Node> moved =
            snapshot.nodes().stream()
                .map(
                    n ->
                        new Message.TransferChunk.Node(
                            n.path().replace(from.basePath(), to.basePath()),
                            n.data(),
                            n.version(),
                            n.cversion()))
                .toList();

        // The first chunk: from now on the target serves no reads.
        toTarget.send(new Message.TransferChunk(1, 1, 4, 3, 3, 0, 2, moved.subList(0, 1)));
        Await.await(
            ScriptedPeer.WAIT,
            "the target is installing",
            () -> targetView.state() == DuplicateState.CATCHING_UP,
            () -> "view: " + targetView.snapshot());
        client.send(new Message.Read(5, 11, ReadKind.GET_DATA, "/stale", 0));
        Message.Error refused = client.nextOf(Message.Error.class);
        assertThat(refused.code()).isEqualTo(ErrorCode.REJOINING);
        assertThat(refused.requestId()).isEqualTo(11);
        // The last: installed at seq 3, but reads wait until seq 4, which the repeater sequenced
        // meanwhile.
        toTarget.send(
            new Message.TransferChunk(1, 1, 4, 3, 4, 1, 2, moved.subList(1, moved.size())));
        assertThat(toTarget.nextOf(Message.Status.class))
            .isEqualTo(new Message.Status(2, 4, 3, DuplicateState.CATCHING_UP));
        assertThat(zk.exists(to.toZnode("/stale"), false)).isNull();
        assertThat(zk.exists(to.transferMarker(), false)).isNull();
        client.send(new Message.Read(5, 12, ReadKind.GET_DATA, "/a", 0));
        assertThat(client.nextOf(Message.Error.class).code()).isEqualTo(ErrorCode.REJOINING);

        Message.Sequenced next =
            new Message.Sequenced(
                4,
                4,
                5,
                4,
                List.of(Op.setData("/a", utf8("a3"), 1), Op.createSequential("/a/s-", utf8("t"))));
        toSource.send(next);
        toTarget.send(next);
        assertThat(toSource.nextOf(Message.Ack.class).appliedSeq()).isEqualTo(4);
        assertThat(toTarget.nextOf(Message.Ack.class).appliedSeq()).isEqualTo(4);
        Message.Reply reply = client.nextOf(Message.Reply.class);
        assertThat(reply.results())
            .containsExactly(new OpResult.DataSet(2), new OpResult.Created("/a/s-0000000001"));
        client.send(new Message.Read(5, 13, ReadKind.GET_DATA, "/a", 4));
        Message.ReadReply read = client.nextOf(Message.ReadReply.class);
        assertThat(read.data()).isEqualTo(utf8("a3"));
        assertThat(read.version()).isEqualTo(2);
        assertThat(targetView.snapshot())
            .isEqualTo(new ZoolanderPluginView.Snapshot(4, 4, DuplicateState.ACTIVE));
        assertThat(TreeDigest.of(zk, to)).isEqualTo(TreeDigest.of(zk, from));
      }
    } finally {
      source.stop();
      target.stop();
    }
  }

  /**
   * The own server dies and comes back while writes stream in (a plugin in this JVM, so that it
   * survives): the plugin retries, finds out from the state znode what its lost attempts did, and
   * applies every write exactly once, in order.
   */
  @Test
  void writesInFlightWhenTheOwnServerRestartsAreAppliedExactlyOnce() throws Exception {
    Znodes znodes = new Znodes("/inproc/retry");
    ZoolanderPluginFactory factory = new ZoolanderPluginFactory();
    LeaderPlugin plugin = factory.newPlugin();
    plugin.start(
        TestLeaderContext.onOwnBasePath(
            ensemble, 11, znodes, Map.of(ZoolanderPluginConfig.SESSION_TIMEOUT_MS_KEY, "10000")));
    int writes = 40;
    try (ScriptedPeer repeater =
        ScriptedPeer.hello(
            factory.plugin().orElseThrow().endpoint().orElseThrow(), Role.REPEATER, "repeater")) {
      repeater.send(new Message.Sequenced(1, 1, 1, 1, List.of(Op.create("/s", new byte[0]))));
      for (int seq = 2; seq <= writes; seq++) {
        repeater.send(
            new Message.Sequenced(
                1,
                seq,
                1,
                seq,
                List.of(Op.createSequential("/s/n-", utf8(Integer.toString(seq))))));
        if (seq == writes / 2) {
          ensemble.restart(1);
        }
      }
      Message.Ack ack;
      do {
        ack = repeater.nextOf(Message.Ack.class);
      } while (ack.appliedSeq() < writes);
      assertThat(ack.appliedSeq()).isEqualTo(writes);
    } finally {
      plugin.stop();
    }
    ZooKeeper reader = PluginTestSupport.connect(ensemble.connectString());
    try {
      List<String> children = reader.getChildren(znodes.toZnode("/s"), false);
      assertThat(children).hasSize(writes - 1);
      for (int i = 0; i < writes - 1; i++) {
        String child = String.format("/s/n-%010d", i);
        assertThat(
                new String(
                    reader.getData(znodes.toZnode(child), false, null), StandardCharsets.UTF_8))
            .as(child)
            .isEqualTo(Integer.toString(i + 2));
      }
      assertThat(BookkeepingState.decode(reader.getData(znodes.state(), false, null)))
          .isEqualTo(new BookkeepingState(1, writes));
    } finally {
      reader.close(1_000);
    }
  }
}
