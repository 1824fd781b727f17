package io.zoolander.server.internal.leader;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zoolander.testsupport.StandaloneZooKeeper;
import io.zoolander.testsupport.ZooKeepers;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.server.ServerCnxn.DisconnectReason;
import org.apache.zookeeper.server.ZoolanderLocalConnection;
import org.apache.zookeeper.server.auth.DigestAuthenticationProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Multis submitted in-process to a real ZooKeeper server's request pipeline: applied, failed as a
 * ZooKeeper client would see them, refused by ACLs unless the connection has the identity.
 */
class LocalConnectionTest {
  private static final String IDENTITY = "plugin:secret";

  @TempDir Path dir;
  private StandaloneZooKeeper zooKeeper;
  private ZooKeeper zk;

  @BeforeEach
  void start() throws Exception {
    zooKeeper = StandaloneZooKeeper.start(dir);
    zk = ZooKeepers.connect(zooKeeper.connectString());
  }

  @AfterEach
  void stop() throws Exception {
    zk.close();
    zooKeeper.close();
  }

  private ZoolanderLocalConnection connection(List<Id> identities) {
    return new ZoolanderLocalConnection(
        zooKeeper.server(), zk.getSessionId(), zk.getSessionTimeout(), identities);
  }

  private record Outcome(Code rc, List<OpResult> results) {}

  private static Outcome submit(ZoolanderLocalConnection c, List<Op> ops) throws Exception {
    CompletableFuture<Outcome> done = new CompletableFuture<>();
    c.submitMulti(ops, (rc, results) -> done.complete(new Outcome(rc, results)));
    return done.get(30, TimeUnit.SECONDS);
  }

  @Test
  void appliesAMultiAndReportsEachOpsResult() throws Exception {
    ZoolanderLocalConnection c = connection(List.of());
    Outcome o =
        submit(
            c,
            List.of(
                Op.create(
                    "/a", "1".getBytes(UTF_8), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT),
                Op.create(
                    "/a/s-",
                    new byte[0],
                    ZooDefs.Ids.OPEN_ACL_UNSAFE,
                    CreateMode.PERSISTENT_SEQUENTIAL),
                Op.setData("/a", "2".getBytes(UTF_8), 0)));
    assertThat(o.rc()).isEqualTo(Code.OK);
    assertThat(o.results()).hasSize(3);
    assertThat(((OpResult.CreateResult) o.results().get(1)).getPath()).isEqualTo("/a/s-0000000000");
    assertThat(((OpResult.SetDataResult) o.results().get(2)).getStat().getVersion()).isEqualTo(1);
    assertThat(zk.getData("/a", false, null)).asString(UTF_8).isEqualTo("2");
    assertThat(c.pendingRequests()).isZero();
  }

  @Test
  void aFailedOpFailsTheWholeMultiWithItsCodeAsTheClientWouldSeeIt() throws Exception {
    zk.create("/taken", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    Outcome o =
        submit(
            connection(List.of()),
            List.of(
                Op.create("/new", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT),
                Op.create(
                    "/taken", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT)));
    assertThat(o.rc()).isEqualTo(Code.NODEEXISTS);
    assertThat(o.results()).hasSize(2).allMatch(r -> r instanceof OpResult.ErrorResult);
    assertThat(zk.exists("/new", false)).as("nothing of a failed multi is applied").isNull();
  }

  @Test
  void aclsAreCheckedAgainstTheConnectionsIdentities() throws Exception {
    Id plugin = new Id("digest", DigestAuthenticationProvider.generateDigest(IDENTITY));
    zk.addAuthInfo("digest", IDENTITY.getBytes(UTF_8));
    zk.create(
        "/guarded",
        new byte[0],
        new ArrayList<>(
            List.of(new ACL(ZooDefs.Perms.ALL, plugin))), // the client asks contains(null)
        CreateMode.PERSISTENT);
    List<Op> write = List.of(Op.setData("/guarded", "x".getBytes(UTF_8), -1));

    assertThat(submit(connection(List.of()), write).rc()).isEqualTo(Code.NOAUTH);
    assertThat(submit(connection(List.of(plugin)), write).rc()).isEqualTo(Code.OK);
    assertThat(zk.getData("/guarded", false, null)).asString(UTF_8).isEqualTo("x");
  }

  @Test
  void requestsOfOneConnectionAreAppliedInOrder() throws Exception {
    zk.create("/n", "0".getBytes(UTF_8), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    ZoolanderLocalConnection c = connection(List.of());
    int count = 500;
    CountDownLatch done = new CountDownLatch(count);
    ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
    for (int i = 0; i < count; i++) {
      int expectedVersion = i;
      c.submitMulti(
          List.of(Op.setData("/n", Integer.toString(i + 1).getBytes(UTF_8), expectedVersion)),
          (rc, results) -> {
            if (rc != Code.OK) {
              problems.add("write " + expectedVersion + ": " + rc);
            }
            done.countDown();
          });
    }
    assertThat(done.await(60, TimeUnit.SECONDS)).isTrue();
    assertThat(problems).as("each write expects the version its predecessor left").isEmpty();
    assertThat(zk.getData("/n", false, null)).asString(UTF_8).isEqualTo(Integer.toString(count));
  }

  @Test
  void closingFailsWhatIsPendingAndRefusesMore() throws Exception {
    ZoolanderLocalConnection c = connection(List.of());
    c.close(DisconnectReason.CLIENT_CLOSED_SESSION);
    assertThatThrownBy(() -> c.submitMulti(List.of(Op.check("/", -1)), (rc, results) -> {}))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
    assertThat(c.pendingRequests()).isZero();
  }
}
