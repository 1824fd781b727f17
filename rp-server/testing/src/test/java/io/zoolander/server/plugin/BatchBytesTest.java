package io.zoolander.server.plugin;

import static io.zoolander.server.plugin.PluginTestSupport.ZNODES;
import static io.zoolander.server.plugin.PluginTestSupport.awaitEndpoint;
import static io.zoolander.server.plugin.PluginTestSupport.state;
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
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@value ZoolanderPluginConfig#MAX_BATCH_BYTES_KEY} bounds the multi a batch is applied with
 * (ZooKeeper keeps its last 500 proposals in memory, so this bounds what they hold). One in-process
 * one-server duplicate whose plugin may put 8 KiB in one multi; writes of 3 KiB sent together: two
 * fit in one multi, three do not. As in {@link BatchApplyTest}, a batch shows in the tree: the
 * znodes one multi created share its zxid.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class BatchBytesTest {

  private static final int DUPLICATE_ID = 10;
  private static final int MAX_BATCH_BYTES = 8 * 1024;
  private static final int VALUE_BYTES = 3 * 1024;

  private static ZooKeeperEnsemble ensemble;
  private static ZooKeeper zk;

  @BeforeAll
  static void startDuplicate() throws Exception {
    ensemble =
        PluginTestSupport.ensemble(1, DUPLICATE_ID)
            .serverMode(ServerMode.IN_PROCESS)
            .property(ZoolanderPluginConfig.MAX_BATCH_BYTES_KEY, Integer.toString(MAX_BATCH_BYTES))
            .start();
    zk = PluginTestSupport.connect(ensemble.connectString());
  }

  @AfterAll
  static void stopDuplicate() throws InterruptedException {
    PluginTestSupport.close(zk, ensemble);
  }

  @Test
  void batchesStayWithinMaxBatchBytesAndEveryWriteApplies() throws Exception {
    PluginEndpoint endpoint = awaitEndpoint(zk, ensemble, e -> true);
    long clientId = 301;
    int count = 8;
    try (ScriptedPeer client = ScriptedPeer.hello(endpoint, Role.CLIENT, Long.toString(clientId));
        ScriptedPeer repeater = ScriptedPeer.hello(endpoint, Role.REPEATER, "repeater")) {
      long epoch = Math.max(1, repeater.status().epoch());
      long seq = repeater.status().appliedSeq();
      List<Message.Sequenced> writes = new ArrayList<>();
      for (int i = 1; i <= count; i++) {
        writes.add(
            new Message.Sequenced(
                epoch,
                seq + i,
                clientId,
                i,
                List.of(Op.create("/cap" + i, new byte[VALUE_BYTES]))));
      }
      repeater.sendTogether(writes); // 24 KiB together: one multi without the bound

      for (int i = 0; i < count; i++) {
        Message.Reply reply = client.nextOf(Message.Reply.class);
        assertThat(reply.results())
            .containsExactly(new OpResult.Created("/cap" + (reply.seq() - seq)));
      }
      while (repeater.nextOf(Message.Ack.class).appliedSeq() < seq + count) {
        // cumulative ACKs: wait for the one covering the last write (nextOf fails after its
        // timeout)
      }
      assertThat(state(zk)).isEqualTo(new BookkeepingState(epoch, seq + count));

      Map<Long, List<String>> byMulti = new TreeMap<>(); // czxid -> the znodes that multi created
      for (int i = 1; i <= count; i++) {
        long czxid = zk.exists(ZNODES.toZnode("/cap" + i), false).getCzxid();
        byMulti.computeIfAbsent(czxid, z -> new ArrayList<>()).add("/cap" + i);
      }
      Collection<List<String>> multis = byMulti.values();
      assertThat(multis)
          .as("znodes by the multi that created them")
          .allSatisfy(m -> assertThat(m).hasSizeLessThanOrEqualTo(2))
          .anySatisfy(m -> assertThat(m).hasSize(2)); // still batched, within the bound
    }
  }
}
