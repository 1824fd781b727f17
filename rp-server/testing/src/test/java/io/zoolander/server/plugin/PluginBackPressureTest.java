package io.zoolander.server.plugin;

import static io.zoolander.server.plugin.PluginTestSupport.ZNODES;
import static org.assertj.core.api.Assertions.assertThat;

import io.zoolander.server.testing.ZooKeeperEnsemble;
import io.zoolander.testsupport.ScriptedPeer;
import io.zoolander.testsupport.Slow;
import io.zoolander.wire.Message;
import io.zoolander.wire.Op;
import io.zoolander.wire.PluginEndpoint;
import io.zoolander.wire.Role;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A duplicate that cannot keep up pushes back on the repeater's connection instead of queueing what
 * it is sent without bound: with the applier stalled (the anomaly injector holds every write), a
 * flood of SEQUENCED far beyond {@code zoolander.plugin.maxQueuedMessages} stays mostly on the
 * sender's side, and once the stall ends every write is applied and acknowledged, none lost. The
 * plugin runs in a child JVM with the harness's 256 MiB heap; before the threshold counted messages
 * (it counted reads, each up to a thousand SEQUENCED) a lagging duplicate under a 16,000 writes/s
 * benchmark queued until it ran out of memory.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
@Slow
class PluginBackPressureTest {

  private static final int DUPLICATE_ID = 1;
  private static final int MAX_QUEUED_MESSAGES = 64;

  /**
   * Writes sent in all, {@link #PER_FLUSH} per flush, each carrying {@link #VALUE_BYTES}: about 33
   * MB.
   */
  private static final int WRITES = 30_000;

  private static final int PER_FLUSH = 1_000;
  private static final int VALUE_BYTES = 1_024;

  /**
   * What the plugin's side can absorb when it pauses reading at the threshold: the messages it took
   * (the threshold plus one read of up to about 1 MiB) and the two sockets' kernel buffers
   * (loopback autotuning: at most 6 MiB received, 4 MiB sent), with room to spare. Without
   * back-pressure by messages it took every byte.
   */
  private static final long ABSORBED_AT_MOST_BYTES = 16L << 20;

  private static ZooKeeperEnsemble ensemble;
  private static ZooKeeper zk;

  @BeforeAll
  static void start() throws Exception {
    ensemble =
        PluginTestSupport.ensemble(1, DUPLICATE_ID)
            .property(
                ZoolanderPluginConfig.MAX_QUEUED_MESSAGES_KEY,
                Integer.toString(MAX_QUEUED_MESSAGES))
            .start();
    zk = PluginTestSupport.connect(ensemble.connectString());
  }

  @AfterAll
  static void stop() throws InterruptedException {
    PluginTestSupport.close(zk, ensemble);
  }

  @Test
  void aStalledApplierStopsReadingAndLosesNothing() throws Exception {
    PluginEndpoint endpoint = PluginTestSupport.awaitEndpoint(zk, ensemble, e -> true);
    zk.create("/bp", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    setAnomaly("probability=1;delayMs=3000;applies=writes"); // every write: 3 s each
    try (ScriptedPeer repeater = ScriptedPeer.hello(endpoint, Role.REPEATER, "repeater")) {
      long epoch = Math.max(1, repeater.status().epoch());
      long seq = repeater.status().appliedSeq();
      byte[] value = new byte[VALUE_BYTES];

      repeater.send(write(epoch, ++seq, value));
      repeater.expectNothing(
          Duration.ofSeconds(1)); // the stall is in force: no ACK for the first write

      for (int sent = 1; sent < WRITES; sent += PER_FLUSH) {
        List<Message.Sequenced> flush = new ArrayList<>();
        for (int i = 0; i < PER_FLUSH && sent + i < WRITES; i++) {
          flush.add(write(epoch, ++seq, value));
        }
        repeater.sendTogether(flush);
      }
      long sentBytes =
          (long) WRITES * VALUE_BYTES; // at least: each frame also has its header and path
      // Wait until the plugin's side has taken what it will, at most 15 s: "stopped falling" has no
      // event to wait
      // on, so the pending bytes are sampled once a second until two samples agree.
      long pending = repeater.pendingWriteBytes();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
      while (System.nanoTime() < deadline) {
        TimeUnit.MILLISECONDS.sleep(1_000);
        long now = repeater.pendingWriteBytes();
        if (now == pending) {
          break;
        }
        pending = now;
      }
      assertThat(pending)
          .as("bytes still on the sender's side, of more than %d sent", sentBytes)
          .isGreaterThan(sentBytes - ABSORBED_AT_MOST_BYTES);

      setAnomaly(
          "probability=0;delayMs=0"); // itself held up to 3 s: a plain client's write is slowed too
      long last = seq;
      long acked = -1;
      long ackDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
      while (acked < last && System.nanoTime() < ackDeadline) {
        acked = Math.max(acked, repeater.nextOf(Message.Ack.class).appliedSeq());
      }
      assertThat(acked).as("every write applied once the stall ended").isEqualTo(last);
      assertThat(repeater.pendingWriteBytes()).isZero();
    }
  }

  private static Message.Sequenced write(long epoch, long seq, byte[] value) {
    return new Message.Sequenced(epoch, seq, 7, seq, List.of(Op.setData("/bp", value, -1)));
  }

  private static void setAnomaly(String settings) throws Exception {
    AnomalySettings.parse(settings);
    byte[] data = settings.getBytes(StandardCharsets.UTF_8);
    if (zk.exists(ZNODES.anomaly(), false) == null) {
      zk.create(ZNODES.anomaly(), data, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    } else {
      zk.setData(ZNODES.anomaly(), data, -1);
    }
  }
}
