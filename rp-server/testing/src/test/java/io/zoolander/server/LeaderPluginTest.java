package io.zoolander.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.zoolander.server.testing.ServerMode;
import io.zoolander.server.testing.ZooKeeperEnsemble;
import io.zoolander.testsupport.Await;
import io.zoolander.testsupport.Slow;
import io.zoolander.testsupport.ZooKeepers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The leader plugin against real ZooKeeper servers in child JVMs and in-process: it runs on exactly
 * the leader, follows leadership across a kill (-9, or in-process as abrupt as it gets), stops when
 * leadership ends (quorum lost, shutdown), and its failures never take ZooKeeper down.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
@Slow
class LeaderPluginTest {

  private static final Duration WAIT = Duration.ofSeconds(30);

  private ZooKeeperEnsemble ensemble;
  private ZooKeeper client;

  @AfterEach
  void tearDown() throws InterruptedException {
    if (client != null) {
      client.close(1_000);
    }
    if (ensemble != null) {
      ensemble.close();
    }
  }

  @ParameterizedTest
  @EnumSource(ServerMode.class)
  void oneServerDuplicateRunsThePluginAndStopsItOnShutdown(ServerMode mode) throws Exception {
    ensemble = ensemble(1, LeaderZnodePluginFactory.class).serverMode(mode).start();
    client = connect(ensemble.connectString());

    awaitLeaderZnode(1);
    assertThat(ensemble.mode(1)).contains("leader");
    assertThat(PluginEvents.count(ensemble.dataDir(1), "start")).isEqualTo(1);

    ensemble.stop(1); // SIGTERM, or in-process a clean shutdown
    assertThat(ensemble.isRunning(1)).isFalse();
    assertThat(PluginEvents.read(ensemble.dataDir(1))).last().asString().startsWith("stop ");
  }

  @ParameterizedTest
  @EnumSource(ServerMode.class)
  void pluginRunsOnExactlyTheLeaderAndFollowsLeadership(ServerMode mode) throws Exception {
    ensemble = ensemble(3, LeaderZnodePluginFactory.class).serverMode(mode).start();
    client = connect(ensemble.connectString());

    // Exactly the leader runs the plugin.
    int first = ensemble.awaitLeader(WAIT);
    awaitLeaderZnode(first);
    for (int id : ensemble.serverIds()) {
      assertThat(PluginEvents.count(ensemble.dataDir(id), "start"))
          .as("plugin starts on server %d (leader %d)", id, first)
          .isEqualTo(id == first ? 1 : 0);
    }

    // Kill the leader: the plugin starts on the new leader.
    ensemble.kill(first);
    int second = ensemble.awaitLeader(WAIT);
    assertThat(second).isNotEqualTo(first);
    awaitLeaderZnode(second);
    assertThat(PluginEvents.count(ensemble.dataDir(second), "start")).isEqualTo(1);

    // The new leader loses its quorum: its plugin stops.
    int follower =
        ensemble.serverIds().stream()
            .filter(id -> id != first && id != second)
            .findFirst()
            .orElseThrow();
    ensemble.kill(follower);
    Await.await(
        WAIT,
        "plugin on server " + second + " stops when it loses its quorum",
        () -> PluginEvents.count(ensemble.dataDir(second), "stop") == 1,
        () -> diagnostics());
    assertThat(ensemble.isRunning(second)).isTrue();

    // A quorum again: the plugin runs on whichever server leads now.
    long startsBefore = totalStarts();
    ensemble.restart(follower);
    ensemble.restart(first);
    int third = ensemble.awaitLeader(WAIT);
    Await.await(
        WAIT,
        "the plugin starts again on leader " + third,
        () ->
            totalStarts() == startsBefore + 1
                && PluginEvents.count(ensemble.dataDir(third), "start")
                    == PluginEvents.count(ensemble.dataDir(third), "stop") + 1,
        () -> diagnostics());
    awaitLeaderZnode(third);
  }

  @Test
  void zooKeeperKeepsServingWhenThePluginFailsToStart() throws Exception {
    ensemble = ensemble(1, FailingPluginFactory.class).start();
    client = connect(ensemble.connectString());

    Await.await(
        WAIT,
        "the failing plugin was started, then stopped to release what it held",
        () ->
            PluginEvents.read(ensemble.dataDir(1)).stream()
                .map(l -> l.split(" ", -1)[0])
                .toList()
                .equals(List.of("start-failing", "stop")),
        () -> diagnostics());
    assertThat(Files.readString(ensemble.logFile(1))).contains("Leader plugin failed to start");

    client.create(
        "/still-serving",
        "yes".getBytes(StandardCharsets.UTF_8),
        ZooDefs.Ids.OPEN_ACL_UNSAFE,
        CreateMode.PERSISTENT);
    assertThat(new String(client.getData("/still-serving", false, null), StandardCharsets.UTF_8))
        .isEqualTo("yes");
    assertThat(ensemble.mode(1)).contains("leader");
  }

  // ---------------------------------------------------------------------------------------------

  private static ZooKeeperEnsemble.Builder ensemble(
      int servers, Class<? extends LeaderPluginFactory> factory) {
    return ZooKeeperEnsemble.builder()
        .servers(servers)
        .property(ZoolanderPeerMain.PLUGIN_FACTORY_KEY, factory.getName())
        .property(ZoolanderPeerMain.STOP_TIMEOUT_KEY, "2000")
        .jvmArgs("-XX:TieredStopAtLevel=1", "-Xshare:auto")
        .startTimeout(WAIT);
  }

  /**
   * Waits until the plugin on {@code serverId} holds the leader znode and has recorded its start
   * (it does so after).
   */
  private void awaitLeaderZnode(int serverId) throws InterruptedException {
    Await.await(
        WAIT,
        LeaderZnodePluginFactory.LEADER_PATH
            + " holds "
            + serverId
            + " and its plugin recorded start",
        () ->
            new String(readLeaderZnode(), StandardCharsets.UTF_8).equals(Integer.toString(serverId))
                && PluginEvents.count(ensemble.dataDir(serverId), "start") >= 1,
        this::diagnostics);
  }

  private byte[] readLeaderZnode() {
    try {
      return client.getData(LeaderZnodePluginFactory.LEADER_PATH, false, null);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private long totalStarts() {
    return ensemble.serverIds().stream()
        .mapToLong(id -> PluginEvents.count(ensemble.dataDir(id), "start"))
        .sum();
  }

  private String diagnostics() {
    return ensemble.serverIds().stream()
        .map(
            id ->
                "server "
                    + id
                    + " ("
                    + (ensemble.isRunning(id) ? ensemble.mode(id).orElse("not serving") : "down")
                    + ") events "
                    + PluginEvents.read(ensemble.dataDir(id))
                    + "\n"
                    + ensemble.logTail(id, 15))
        .collect(Collectors.joining("\n\n"));
  }

  private static ZooKeeper connect(String connectString) throws Exception {
    ZooKeeper zk = ZooKeepers.connect(connectString, Duration.ofSeconds(10), WAIT);
    return zk;
  }
}
