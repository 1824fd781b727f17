package io.zoolander.server.internal.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.zoolander.server.testing.ServerMode;
import io.zoolander.server.testing.ZooKeeperEnsemble;
import java.lang.reflect.Field;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.server.persistence.FileTxnLog;
import org.apache.zookeeper.server.persistence.FileTxnSnapLog;
import org.apache.zookeeper.server.quorum.QuorumPeer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** In-process servers of one JVM keep their own settings where ZooKeeper reads JVM-wide state. */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class InProcessPeerTest {

  private static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir Path dir;

  /**
   * {@code forceSync} reaches ZooKeeper as the system property {@code zookeeper.forceSync}, set by
   * each parse and read when the transaction log is created: two servers launched at the same time
   * must each get their own.
   */
  @Test
  void serversLaunchedTogetherKeepTheirOwnFsyncSetting() throws Exception {
    try (ZooKeeperEnsemble fsyncOn = oneServer("on", true);
        ZooKeeperEnsemble fsyncOff = oneServer("off", false)) {
      for (int round = 0; round < 3; round++) {
        CompletableFuture<InProcessPeer> on = launchAsync("on-" + round, fsyncOn.configFile(1));
        CompletableFuture<InProcessPeer> off = launchAsync("off-" + round, fsyncOff.configFile(1));
        InProcessPeer onPeer = on.join();
        InProcessPeer offPeer = off.join();
        try {
          assertThat(forceSync(onPeer)).as("round %d, fsync on", round).isTrue();
          assertThat(forceSync(offPeer)).as("round %d, fsync off", round).isFalse();
        } finally {
          onPeer.kill();
          offPeer.kill();
        }
        assertThat(onPeer.isRunning()).isFalse();
        assertThat(offPeer.isRunning()).isFalse();
      }
    }
  }

  private ZooKeeperEnsemble oneServer(String name, boolean fsync) throws Exception {
    return ZooKeeperEnsemble.builder()
        .servers(1)
        .baseDir(dir.resolve(name))
        .fsync(fsync)
        .serverMode(ServerMode.IN_PROCESS)
        .build();
  }

  private static CompletableFuture<InProcessPeer> launchAsync(String name, Path configFile) {
    return CompletableFuture.supplyAsync(
        () -> {
          try {
            return InProcessPeer.launch(name, configFile, WAIT);
          } catch (InterruptedException e) {
            throw new CompletionException(e);
          }
        });
  }

  private static boolean forceSync(InProcessPeer server) throws ReflectiveOperationException {
    QuorumPeer peer =
        server
            .quorumPeer()
            .orElseThrow(
                () ->
                    new AssertionError(
                        "no QuorumPeer: "
                            + server.failure().map(Throwable::toString).orElse("still launching")));
    Field txnLog = FileTxnSnapLog.class.getDeclaredField("txnLog"); // ZooKeeper 3.9.5: no accessor
    txnLog.setAccessible(true);
    return ((FileTxnLog) txnLog.get(peer.getTxnFactory())).isForceSync();
  }
}
