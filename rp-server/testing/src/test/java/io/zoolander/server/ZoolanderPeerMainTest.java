package io.zoolander.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.zookeeper.Version;
import org.apache.zookeeper.server.quorum.QuorumPeerConfig.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Configurations the launcher refuses before starting anything. */
class ZoolanderPeerMainTest {

  @TempDir Path dir;

  @Test
  void zooKeeperIsTheVersionTheHookWasVerifiedAgainst() {
    assertThat(Version.getVersion())
        .as(
            "the leader hook subclasses ZooKeeper internals (QuorumPeer.makeLeader, LeaderZooKeeperServer"
                + ".startup/shutdownComponents, Leader.lead/shutdown) as of 3.9.5: re-verify them before a bump")
        .startsWith("3.9.5");
  }

  @Test
  void refusesAPluginOnAStandaloneServer() throws Exception {
    Path cfg =
        config(
            "server.1=127.0.0.1:2888:3888",
            "zoolander.pluginFactory=" + LeaderZnodePluginFactory.class.getName());
    assertThatThrownBy(
            () -> new ZoolanderPeerMain().initializeAndRun(new String[] {cfg.toString()}))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("standaloneEnabled=false");
  }

  @Test
  void refusesAnUnknownPluginFactory() throws Exception {
    Path cfg =
        config(
            "standaloneEnabled=false",
            "server.1=127.0.0.1:2888:3888",
            "zoolander.pluginFactory=no.such.Factory");
    assertThatThrownBy(
            () -> new ZoolanderPeerMain().initializeAndRun(new String[] {cfg.toString()}))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("no.such.Factory");
  }

  private Path config(String... lines) throws Exception {
    Path data = Files.createDirectories(dir.resolve("data"));
    Files.writeString(data.resolve("myid"), "1\n");
    Path cfg = dir.resolve("zoo.cfg");
    Files.writeString(
        cfg,
        String.join(
                "\n",
                "tickTime=500",
                "initLimit=10",
                "syncLimit=5",
                "dataDir=" + data,
                "clientPort=0",
                "admin.enableServer=false")
            + "\n"
            + String.join("\n", lines)
            + "\n");
    return cfg;
  }
}
