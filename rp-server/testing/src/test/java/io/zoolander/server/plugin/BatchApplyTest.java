package io.zoolander.server.plugin;

import static io.zoolander.server.plugin.PluginTestSupport.ZNODES;
import static io.zoolander.server.plugin.PluginTestSupport.appData;
import static io.zoolander.server.plugin.PluginTestSupport.awaitEndpoint;
import static io.zoolander.server.plugin.PluginTestSupport.awaitLiveEndpoint;
import static io.zoolander.server.plugin.PluginTestSupport.state;
import static io.zoolander.server.plugin.PluginTestSupport.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import io.zoolander.server.testing.ServerMode;
import io.zoolander.server.testing.ZooKeeperEnsemble;
import io.zoolander.testsupport.ScriptedPeer;
import io.zoolander.wire.BookkeepingState;
import io.zoolander.wire.Message;
import io.zoolander.wire.Op;
import io.zoolander.wire.OpResult;
import io.zoolander.wire.PluginEndpoint;
import io.zoolander.wire.Role;
import java.util.ArrayList;
import java.util.HashMap;
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
 * Batches: consecutive SEQUENCED writes that reach the plugin together are applied as one ZooKeeper
 * multi, yet each write's result is as if applied alone. One in-process one-server duplicate
 * running the real plugin, a fake repeater sending a handoff's frames in one buffer, a fake client
 * reading its replies. A batch shows in the tree: every znode its multi touched, the state znode
 * included, carries that multi's zxid.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class BatchApplyTest {

  private static final int DUPLICATE_ID = 9;

  private static ZooKeeperEnsemble ensemble;
  private static ZooKeeper zk;

  private PluginEndpoint endpoint;

  @BeforeAll
  static void startDuplicate() throws Exception {
    ensemble =
        PluginTestSupport.ensemble(1, DUPLICATE_ID).serverMode(ServerMode.IN_PROCESS).start();
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

  @Test
  void aFailingWriteInTheMiddleFailsAloneAndItsNeighboursApplyInBatches() throws Exception {
    long clientId = 201;
    try (ScriptedPeer client = ScriptedPeer.hello(endpoint, Role.CLIENT, Long.toString(clientId));
        ScriptedPeer repeater = ScriptedPeer.hello(endpoint, Role.REPEATER, "repeater")) {
      long epoch = Math.max(1, repeater.status().epoch());
      long seq = repeater.status().appliedSeq();
      List<Message.Sequenced> writes =
          List.of(
              new Message.Sequenced(
                  epoch, seq + 1, clientId, 1, List.of(Op.create("/m", utf8("m")))),
              new Message.Sequenced(
                  epoch, seq + 2, clientId, 2, List.of(Op.create("/m/a", utf8("a")))),
              new Message.Sequenced(
                  epoch, seq + 3, clientId, 3, List.of(Op.create("/m/a", utf8("again")))),
              new Message.Sequenced(
                  epoch, seq + 4, clientId, 4, List.of(Op.setData("/m", utf8("x"), 7))),
              new Message.Sequenced(
                  epoch, seq + 5, clientId, 5, List.of(Op.create("/m/b", utf8("b")))),
              new Message.Sequenced(
                  epoch, seq + 6, clientId, 6, List.of(Op.create("/m/c", utf8("c")))));
      repeater.sendTogether(writes);

      Map<Long, Message.Reply> replies = replies(client, writes.size());
      assertThat(replies.get(seq + 1).results()).containsExactly(new OpResult.Created("/m"));
      assertThat(replies.get(seq + 2).results()).containsExactly(new OpResult.Created("/m/a"));
      assertThat(replies.get(seq + 3).results())
          .containsExactly(new OpResult.Failed(Code.NODEEXISTS));
      assertThat(replies.get(seq + 4).results())
          .containsExactly(new OpResult.Failed(Code.BADVERSION));
      assertThat(replies.get(seq + 5).results()).containsExactly(new OpResult.Created("/m/b"));
      assertThat(replies.get(seq + 6).results()).containsExactly(new OpResult.Created("/m/c"));
      awaitAck(repeater, seq + 6);

      assertThat(appData(zk, "/m")).isEqualTo("m");
      assertThat(appData(zk, "/m/a")).isEqualTo("a");
      assertThat(state(zk)).isEqualTo(new BookkeepingState(epoch, seq + 6));
      // Two batches around the failures: /m with /m/a, and /m/b with /m/c (the state znode's last
      // change).
      assertThat(czxid("/m/a")).isEqualTo(czxid("/m"));
      assertThat(czxid("/m/c")).isEqualTo(czxid("/m/b")).isNotEqualTo(czxid("/m"));
      assertThat(stateMzxid()).isEqualTo(czxid("/m/c"));
    }
  }

  @Test
  void writesInOneBatchSeeTheWritesBeforeThemAndAMultiWriteStaysAtomic() throws Exception {
    long clientA = 202;
    long clientB = 203;
    try (ScriptedPeer a = ScriptedPeer.hello(endpoint, Role.CLIENT, Long.toString(clientA));
        ScriptedPeer b = ScriptedPeer.hello(endpoint, Role.CLIENT, Long.toString(clientB));
        ScriptedPeer repeater = ScriptedPeer.hello(endpoint, Role.REPEATER, "repeater")) {
      long epoch = Math.max(1, repeater.status().epoch());
      long seq = repeater.status().appliedSeq();
      List<Message.Sequenced> writes =
          List.of(
              new Message.Sequenced(
                  epoch, seq + 1, clientA, 1, List.of(Op.create("/d", utf8("d0")))),
              new Message.Sequenced(
                  epoch, seq + 2, clientB, 1, List.of(Op.setData("/d", utf8("d1"), 0))),
              new Message.Sequenced(
                  epoch, seq + 3, clientA, 2, List.of(Op.setData("/d", utf8("d2"), -1))),
              new Message.Sequenced(
                  epoch,
                  seq + 4,
                  clientB,
                  2,
                  List.of(
                      Op.create("/d/x", utf8("x")),
                      Op.createSequential("/d/s-", utf8("s")),
                      Op.check("/d", 2))),
              // A multi-write whose second op fails: neither op applies, its neighbours do.
              new Message.Sequenced(
                  epoch,
                  seq + 5,
                  clientA,
                  3,
                  List.of(Op.create("/d/y", utf8("y")), Op.create("/d/x", utf8("again")))),
              new Message.Sequenced(
                  epoch,
                  seq + 6,
                  clientB,
                  3,
                  List.of(Op.delete("/d/x", 0), Op.setData("/d", utf8("d3"), -1))));
      repeater.sendTogether(writes);

      Map<Long, Message.Reply> fromA = replies(a, 3);
      Map<Long, Message.Reply> fromB = replies(b, 3);
      assertThat(fromA.get(seq + 1).results()).containsExactly(new OpResult.Created("/d"));
      assertThat(fromB.get(seq + 2).results()).containsExactly(new OpResult.DataSet(1));
      assertThat(fromA.get(seq + 3).results()).containsExactly(new OpResult.DataSet(2));
      assertThat(fromB.get(seq + 4).results())
          .containsExactly(
              new OpResult.Created("/d/x"),
              new OpResult.Created("/d/s-0000000001"),
              new OpResult.Checked());
      assertThat(fromA.get(seq + 5).results())
          .containsExactly(new OpResult.Failed(Code.OK), new OpResult.Failed(Code.NODEEXISTS));
      assertThat(fromB.get(seq + 6).results())
          .containsExactly(new OpResult.Deleted(), new OpResult.DataSet(3));
      awaitAck(repeater, seq + 6);

      assertThat(appData(zk, "/d")).isEqualTo("d3");
      assertThat(appData(zk, "/d/y")).isNull();
      assertThat(appData(zk, "/d/x")).isNull();
      assertThat(state(zk)).isEqualTo(new BookkeepingState(epoch, seq + 6));
      // Writes 1-4 were one multi: the sequential child and /d share /d's creating zxid.
      assertThat(czxid("/d/s-0000000001")).isEqualTo(czxid("/d"));
    }
  }

  @Test
  void aBatchReplayedAfterTheServerCrashedAppliesEachWriteExactlyOnce() throws Exception {
    long clientId = 204;
    long epoch;
    long seq;
    List<Message.Sequenced> writes = new ArrayList<>();
    try (ScriptedPeer repeater = ScriptedPeer.hello(endpoint, Role.REPEATER, "repeater")) {
      epoch = Math.max(1, repeater.status().epoch());
      seq = repeater.status().appliedSeq();
      writes.add(
          new Message.Sequenced(epoch, seq + 1, clientId, 1, List.of(Op.create("/r", utf8("0")))));
      for (int i = 2; i <= 8; i++) {
        writes.add(
            new Message.Sequenced(
                epoch,
                seq + i,
                clientId,
                i,
                List.of(Op.setData("/r", utf8(Integer.toString(i)), -1))));
      }
      repeater.sendTogether(writes.subList(0, 5));
      ensemble.kill(1); // mid-batch, or just after it: either way, nothing may apply twice
    }
    ensemble.restart(1);
    PluginEndpoint before = endpoint;
    endpoint = awaitEndpoint(zk, ensemble, e -> !e.equals(before));
    try (ScriptedPeer client = ScriptedPeer.hello(endpoint, Role.CLIENT, Long.toString(clientId));
        ScriptedPeer repeater = ScriptedPeer.hello(endpoint, Role.REPEATER, "repeater")) {
      long applied = repeater.status().appliedSeq();
      assertThat(applied).isBetween(seq, seq + 5);
      // The repeater resends everything after the crash, overlapping what was applied.
      repeater.sendTogether(writes);
      awaitAck(repeater, seq + 8);
      Map<Long, Message.Reply> replies = replies(client, (int) (seq + 8 - applied));
      assertThat(replies.keySet()).allMatch(s -> s > applied);
      assertThat(replies.get(seq + 8).results()).containsExactly(new OpResult.DataSet(7));
    }
    Stat stat = zk.exists(ZNODES.toZnode("/r"), false);
    assertThat(stat.getVersion()).as("seven setData, each applied once").isEqualTo(7);
    assertThat(appData(zk, "/r")).isEqualTo("8");
    assertThat(state(zk)).isEqualTo(new BookkeepingState(epoch, seq + 8));
  }

  @Test
  void writesTooLargeForOneRequestTogetherAreSplitAndAllApply() throws Exception {
    long clientId = 205;
    byte[] large = new byte[300 * 1024]; // four of them exceed jute.maxbuffer (1 MB) as one request
    try (ScriptedPeer client = ScriptedPeer.hello(endpoint, Role.CLIENT, Long.toString(clientId));
        ScriptedPeer repeater = ScriptedPeer.hello(endpoint, Role.REPEATER, "repeater")) {
      long epoch = Math.max(1, repeater.status().epoch());
      long seq = repeater.status().appliedSeq();
      List<Message.Sequenced> writes = new ArrayList<>();
      for (int i = 1; i <= 4; i++) {
        writes.add(
            new Message.Sequenced(
                epoch, seq + i, clientId, i, List.of(Op.create("/big" + i, large))));
      }
      repeater.sendTogether(writes);
      Map<Long, Message.Reply> replies = replies(client, 4);
      for (int i = 1; i <= 4; i++) {
        assertThat(replies.get(seq + i).results())
            .containsExactly(new OpResult.Created("/big" + i));
      }
      awaitAck(repeater, seq + 4);
      assertThat(state(zk)).isEqualTo(new BookkeepingState(epoch, seq + 4));
    }
  }

  /**
   * @return the next {@code count} REPLYs on {@code client}, by seq
   */
  private static Map<Long, Message.Reply> replies(ScriptedPeer client, int count)
      throws InterruptedException {
    Map<Long, Message.Reply> replies = new HashMap<>();
    for (int i = 0; i < count; i++) {
      Message.Reply reply = client.nextOf(Message.Reply.class);
      replies.put(reply.seq(), reply);
    }
    assertThat(replies).hasSize(count);
    return replies;
  }

  private static void awaitAck(ScriptedPeer repeater, long seq) throws InterruptedException {
    while (repeater.nextOf(Message.Ack.class).appliedSeq() < seq) {
      // cumulative ACKs: wait for the one covering seq (nextOf fails after its timeout)
    }
  }

  private static long czxid(String path) throws Exception {
    return zk.exists(ZNODES.toZnode(path), false).getCzxid();
  }

  private static long stateMzxid() throws Exception {
    return zk.exists(ZNODES.state(), false).getMzxid();
  }
}
