package io.zoolander.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zoolander.server.plugin.ZoolanderPluginFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.zookeeper.Version;
import org.apache.zookeeper.server.quorum.QuorumPeerConfig;
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

  @Test
  void refusesAMisspelledZoolanderKeyNamingTheNearestKnownOne() throws Exception {
    Path cfg =
        config(
            "standaloneEnabled=false",
            "server.1=127.0.0.1:2888:3888",
            "zoolander.pluginFactory=" + ZoolanderPluginFactory.class.getName(),
            "zoolander.duplicateId=1",
            "zoolander.plugin.prot=7001");
    // Started as ZooKeeper's QuorumPeerMain would be, not through the zoolander command.
    assertThatThrownBy(
            () -> new ZoolanderPeerMain().initializeAndRun(new String[] {cfg.toString()}))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("unknown Zoolander setting zoolander.plugin.prot")
        .hasMessageContaining("did you mean zoolander.plugin.port?");
    // A parsed configuration handed to runFromConfig is checked the same way, before anything runs.
    QuorumPeerConfig parsed = new QuorumPeerConfig();
    parsed.parse(cfg.toString());
    assertThatThrownBy(() -> new ZoolanderPeerMain().runFromConfig(parsed))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("zoolander.plugin.prot")
        .hasMessageContaining("did you mean zoolander.plugin.port?");
  }

  @Test
  void refusesMisspelledSecurityAndLauncherKeysToo() throws Exception {
    Path cfg =
        config(
            "standaloneEnabled=false",
            "server.1=127.0.0.1:2888:3888",
            "zoolander.pluginFactory=" + ZoolanderPluginFactory.class.getName(),
            "zoolander.duplicateId=1",
            "zoolander.tls.enable=true",
            "zoolander.plugin.stopTimeoutMS=100");
    assertThatThrownBy(
            () -> new ZoolanderPeerMain().initializeAndRun(new String[] {cfg.toString()}))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(
            "unknown Zoolander settings zoolander.plugin.stopTimeoutMS (did you mean"
                + " zoolander.plugin.stopTimeoutMs?), zoolander.tls.enable (did you mean"
                + " zoolander.tls.enabled?)");
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
