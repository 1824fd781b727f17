package io.zoolander.server.plugin;

import static io.zoolander.server.plugin.PluginTestSupport.WAIT;
import static io.zoolander.server.plugin.PluginTestSupport.appData;
import static io.zoolander.server.plugin.PluginTestSupport.awaitEndpoint;
import static io.zoolander.server.plugin.PluginTestSupport.state;
import static io.zoolander.server.plugin.PluginTestSupport.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import io.zoolander.server.testing.ZooKeeperEnsemble;
import io.zoolander.testsupport.ScriptedPeer;
import io.zoolander.wire.BookkeepingState;
import io.zoolander.wire.DuplicateState;
import io.zoolander.wire.Message;
import io.zoolander.wire.Op;
import io.zoolander.wire.OpResult;
import io.zoolander.wire.PluginEndpoint;
import io.zoolander.wire.Role;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A three-server duplicate: the plugin follows leadership across a kill -9 of the leader, with its
 * state.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ZoolanderPluginFailoverTest {

  private static final int DUPLICATE_ID = 3;
  private static final long CLIENT_ID = 55;

  private ZooKeeperEnsemble ensemble;
  private ZooKeeper zk;

  @AfterEach
  void tearDown() throws InterruptedException {
    if (zk != null) {
      zk.close(1_000);
    }
    if (ensemble != null) {
      ensemble.close();
    }
  }

  @Test
  void thePluginMovesToTheNewLeaderWithTheSameAppliedSeq() throws Exception {
    ensemble = PluginTestSupport.ensemble(3, DUPLICATE_ID).start();
    zk = PluginTestSupport.connect(ensemble.connectString());
    int leader = ensemble.awaitLeader(WAIT);
    PluginEndpoint first = awaitEndpoint(zk, ensemble, e -> e.serverId() == leader);

    long epoch = 1;
    long seq = 0;
    Message.Sequenced last;
    try (ScriptedPeer client = ScriptedPeer.hello(first, Role.CLIENT, Long.toString(CLIENT_ID));
        ScriptedPeer repeater = ScriptedPeer.hello(first, Role.REPEATER, "repeater")) {
      assertThat(repeater.status())
          .isEqualTo(new Message.Status(DUPLICATE_ID, 0, 0, DuplicateState.ACTIVE));
      repeater.send(
          new Message.Sequenced(epoch, ++seq, CLIENT_ID, 1, List.of(Op.create("/x", utf8("1")))));
      repeater.send(
          new Message.Sequenced(
              epoch, ++seq, CLIENT_ID, 2, List.of(Op.setData("/x", utf8("2"), 0))));
      last =
          new Message.Sequenced(epoch, ++seq, CLIENT_ID, 3, List.of(Op.create("/x/y", utf8("3"))));
      repeater.send(last);
      for (int i = 0; i < 3; i++) {
        assertThat(client.next(Message.Reply.class).code()).isEqualTo(Code.OK);
      }
    }

    ensemble.kill(leader);
    int newLeader = ensemble.awaitLeader(WAIT);
    assertThat(newLeader).isNotEqualTo(leader);
    PluginEndpoint second = awaitEndpoint(zk, ensemble, e -> e.serverId() == newLeader);

    try (ScriptedPeer client = ScriptedPeer.hello(second, Role.CLIENT, Long.toString(CLIENT_ID));
        ScriptedPeer repeater = ScriptedPeer.hello(second, Role.REPEATER, "repeater")) {
      assertThat(repeater.status())
          .isEqualTo(new Message.Status(DUPLICATE_ID, epoch, seq, DuplicateState.ACTIVE));
      repeater.send(last); // already applied by the old leader's plugin: ignored
      assertThat(repeater.next(Message.Ack.class))
          .isEqualTo(new Message.Ack(DUPLICATE_ID, epoch, seq));
      repeater.send(
          new Message.Sequenced(
              epoch, ++seq, CLIENT_ID, 4, List.of(Op.setData("/x/y", utf8("4"), 0))));
      assertThat(client.next(Message.Reply.class))
          .isEqualTo(
              new Message.Reply(CLIENT_ID, 4, seq, DUPLICATE_ID, List.of(new OpResult.DataSet(1))));
    }
    assertThat(appData(zk, "/x")).isEqualTo("2");
    assertThat(appData(zk, "/x/y")).isEqualTo("4");
    assertThat(state(zk)).isEqualTo(new BookkeepingState(epoch, seq));
  }
}
