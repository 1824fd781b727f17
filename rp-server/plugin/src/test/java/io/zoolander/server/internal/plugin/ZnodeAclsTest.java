package io.zoolander.server.internal.plugin;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zoolander.server.security.PluginSecurity;
import io.zoolander.testsupport.StandaloneZooKeeper;
import io.zoolander.testsupport.ZooKeepers;
import io.zoolander.wire.Znodes;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An existing deployment without ACLs meets a plugin with a ZooKeeper identity: its open znodes are
 * tightened once, and an identity that may not change them fails clearly. One in-process standalone
 * ZooKeeper server.
 */
class ZnodeAclsTest {
  private static final Znodes ZNODES = new Znodes("/legacy");
  private static final List<ACL> ACL = PluginSecurity.aclFor("plugin:secret");

  @TempDir Path dir;
  private StandaloneZooKeeper zooKeeper;
  private String connectString;

  @BeforeEach
  void startServer() throws Exception {
    zooKeeper = StandaloneZooKeeper.start(dir);
    connectString = zooKeeper.connectString();
  }

  @AfterEach
  void stopServer() {
    zooKeeper.close();
  }

  @Test
  void openZnodesOfAnEarlierDeploymentAreTightenedOnce() throws Exception {
    ZooKeeper plain = session(null);
    ZooKeeper plugin = session("plugin:secret");
    try {
      for (String path :
          List.of(
              ZNODES.basePath(),
              ZNODES.dataRoot(),
              ZNODES.dataRoot() + "/app",
              ZNODES.dataRoot() + "/app/deep",
              ZNODES.clients(),
              ZNODES.client(7),
              ZNODES.state())) {
        plain.create(
            path, "old".getBytes(UTF_8), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
      }
      assertThat(ZnodeAcls.ensure(plugin, ZNODES, ACL)).isEqualTo(7);
      assertThat(ZnodeAcls.ensure(plugin, ZNODES, ACL)).as("nothing left to change").isZero();

      String deep = ZNODES.dataRoot() + "/app/deep";
      assertThat(plain.getData(deep, false, null))
          .asString(UTF_8)
          .isEqualTo("old"); // reads stay open
      assertThatThrownBy(() -> plain.setData(deep, new byte[0], -1))
          .isInstanceOf(KeeperException.NoAuthException.class);
      assertThatThrownBy(() -> plain.delete(deep, -1))
          .isInstanceOf(KeeperException.NoAuthException.class);
      assertThatThrownBy(() -> plain.setData(ZNODES.client(7), new byte[0], -1))
          .isInstanceOf(KeeperException.NoAuthException.class);
      assertThatThrownBy(
              () ->
                  plain.create(
                      ZNODES.basePath() + "/endpoint",
                      new byte[0],
                      ZooDefs.Ids.OPEN_ACL_UNSAFE,
                      CreateMode.EPHEMERAL))
          .isInstanceOf(KeeperException.NoAuthException.class);
      plugin.setData(deep, "new".getBytes(UTF_8), -1); // the plugin's identity still writes

      ZooKeeper intruder = session("plugin:wrong-password");
      try {
        List<ACL> other = PluginSecurity.aclFor("plugin:wrong-password");
        assertThatThrownBy(() -> ZnodeAcls.ensure(intruder, ZNODES, other))
            .isInstanceOf(IllegalStateException.class)
            .hasMessageContaining(ZNODES.basePath())
            .hasMessageContaining("passwordFile");
      } finally {
        intruder.close(1_000);
      }
    } finally {
      plain.close(1_000);
      plugin.close(1_000);
    }
  }

  private ZooKeeper session(String digest) throws Exception {
    ZooKeeper zk =
        ZooKeepers.connect(connectString, Duration.ofSeconds(10), Duration.ofSeconds(10));
    if (digest != null) {
      zk.addAuthInfo("digest", digest.getBytes(UTF_8));
    }
    return zk;
  }
}
