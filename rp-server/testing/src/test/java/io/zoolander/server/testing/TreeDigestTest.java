package io.zoolander.server.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.zoolander.testsupport.ZooKeepers;
import io.zoolander.wire.BookkeepingState;
import io.zoolander.wire.Znodes;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The digest of a real server's tree: every znode under the data root, read level by level. */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class TreeDigestTest {

  private static final Znodes ZNODES = new Znodes("/digest-test");

  private static ZooKeeperEnsemble ensemble;
  private static ZooKeeper zk;

  @BeforeAll
  static void startServer() throws Exception {
    ensemble = ZooKeeperEnsemble.builder().servers(1).serverMode(ServerMode.IN_PROCESS).start();
    zk = ZooKeepers.connect(ensemble.connectString());
  }

  @AfterAll
  static void stopServer() throws Exception {
    if (zk != null) {
      zk.close();
    }
    if (ensemble != null) {
      ensemble.close();
    }
  }

  @Test
  void everyZnodeUnderTheDataRootWithItsDataAndVersions() throws Exception {
    create(ZNODES.basePath(), "");
    create(ZNODES.dataRoot(), "");
    create(ZNODES.state(), "");
    zk.setData(ZNODES.state(), new BookkeepingState(3, 42).encode(), -1);
    create(ZNODES.dataRoot() + "/a", "alpha");
    create(ZNODES.dataRoot() + "/a/x", "");
    zk.setData(ZNODES.dataRoot() + "/a/x", "x2".getBytes(StandardCharsets.UTF_8), -1);
    create(ZNODES.dataRoot() + "/b", "beta");
    create(ZNODES.dataRoot() + "/b/c", "gamma");
    create(ZNODES.dataRoot() + "/b/c/d", "delta");
    create(ZNODES.dataRoot() + "/b/gone", "");
    zk.delete(ZNODES.dataRoot() + "/b/gone", -1);
    // wider than the requests one level keeps outstanding
    List<Op> many = new ArrayList<>();
    for (int i = 0; i < 600; i++) {
      many.add(
          Op.create(
              ZNODES.dataRoot() + "/a/x/n" + i,
              ("v" + i).getBytes(StandardCharsets.UTF_8),
              ZooDefs.Ids.OPEN_ACL_UNSAFE,
              CreateMode.PERSISTENT));
    }
    zk.multi(many);

    TreeDigest digest = TreeDigest.of(zk, ZNODES);

    assertThat(digest.state()).isEqualTo(new BookkeepingState(3, 42));
    assertThat(digest.entries()).hasSize(6 + 600);
    assertThat(digest.entries().keySet())
        .startsWith("/", "/a", "/a/x", "/a/x/n0", "/a/x/n1", "/a/x/n10");
    assertThat(digest.entries().get("/")).isEqualTo(new TreeDigest.Entry(sha256(""), 0, 2));
    assertThat(digest.entries().get("/a/x")).isEqualTo(new TreeDigest.Entry(sha256("x2"), 1, 600));
    assertThat(digest.entries().get("/b")).isEqualTo(new TreeDigest.Entry(sha256("beta"), 0, 3));
    assertThat(digest.entries().get("/b/c/d"))
        .isEqualTo(new TreeDigest.Entry(sha256("delta"), 0, 0));
    assertThat(digest.entries().get("/a/x/n599"))
        .isEqualTo(new TreeDigest.Entry(sha256("v599"), 0, 0));
    assertThat(digest.entries()).doesNotContainKey("/b/gone");

    assertThat(TreeDigest.of(ensemble.connectString(), ZNODES)).isEqualTo(digest);
    zk.setData(ZNODES.dataRoot() + "/b/c", "gamma".getBytes(StandardCharsets.UTF_8), -1);
    TreeDigest after = TreeDigest.of(zk, ZNODES);
    assertThat(after).isNotEqualTo(digest);
    assertThat(after.differences(digest, 10))
        .containsExactly(
            "/b/c: "
                + new TreeDigest.Entry(sha256("gamma"), 1, 1)
                + " vs "
                + new TreeDigest.Entry(sha256("gamma"), 0, 1));
  }

  private static void create(String path, String data) throws Exception {
    zk.create(
        path,
        data.getBytes(StandardCharsets.UTF_8),
        ZooDefs.Ids.OPEN_ACL_UNSAFE,
        CreateMode.PERSISTENT);
  }

  private static String sha256(String data) throws Exception {
    return HexFormat.of()
        .formatHex(
            MessageDigest.getInstance("SHA-256").digest(data.getBytes(StandardCharsets.UTF_8)));
  }
}
