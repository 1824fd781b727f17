package io.zoolander.client.internal;

import static io.zoolander.testsupport.Await.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.zoolander.client.ConnectionState;
import io.zoolander.client.Peer;
import io.zoolander.client.ReadPolicy;
import io.zoolander.client.ZoolanderClient;
import io.zoolander.testsupport.ScriptedPeer;
import io.zoolander.testsupport.StandaloneZooKeeper;
import io.zoolander.testsupport.ZooKeepers;
import io.zoolander.wire.Membership;
import io.zoolander.wire.Membership.Member;
import io.zoolander.wire.Membership.State;
import io.zoolander.wire.Message;
import io.zoolander.wire.PluginEndpoint;
import io.zoolander.wire.Znodes;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Changing N online, client side, on real ZooKeeper servers: three duplicates' ensembles (one
 * standalone server each) hold each plugin's endpoint record, and a fake plugin ({@link
 * ScriptedPeer}) per duplicate answers reads. The client is configured with duplicate 1 only; the
 * membership record, written into the ensembles as the repeater would, makes it read from the
 * duplicates added and stop reading from a retired one; an older record is ignored, and a joining
 * member is not read from until it is active. A client with {@link ReadPolicy#advised} reads from
 * as many duplicates as the newest record advises.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class MembershipClientTest {
  /** Bound on every wait: far beyond what it takes, so only a real failure reaches it. */
  private static final Duration WAIT = Duration.ofSeconds(30);

  private static final Znodes ZNODES = Znodes.defaults();

  @TempDir Path dir;

  private final List<StandaloneZooKeeper> servers = new ArrayList<>();
  private final List<ZooKeeper> admins = new ArrayList<>();
  private final List<ScriptedPeer> plugins = new ArrayList<>();
  private ScriptedPeer repeater;

  @BeforeEach
  void start() throws Exception {
    repeater = ScriptedPeer.listen();
    for (int id = 1; id <= 3; id++) {
      StandaloneZooKeeper server = StandaloneZooKeeper.start(dir.resolve("zk" + id));
      servers.add(server);
      ZooKeeper admin = ZooKeepers.connect(server.connectString());
      admins.add(admin);
      ScriptedPeer plugin = ScriptedPeer.listenAsPlugin(id);
      int duplicateId = id;
      plugin.on(Message.Read.class, (p, r) -> p.post(reply(duplicateId, r)));
      plugins.add(plugin);
      admin.create(
          ZNODES.basePath(), new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
      admin.create(
          ZNODES.endpoint(),
          new PluginEndpoint(duplicateId, 1, "127.0.0.1", plugin.port()).encode(),
          ZooDefs.Ids.OPEN_ACL_UNSAFE,
          CreateMode.PERSISTENT);
    }
  }

  @AfterEach
  void stop() throws Exception {
    for (ZooKeeper admin : admins) {
      admin.close();
    }
    for (StandaloneZooKeeper server : servers) {
      server.close();
    }
    for (ScriptedPeer plugin : plugins) {
      plugin.close();
    }
    repeater.close();
  }

  private static Message reply(int duplicateId, Message.Read r) {
    return new Message.ReadReply(
        r.clientId(),
        r.requestId(),
        duplicateId,
        0,
        KeeperException.Code.OK,
        new byte[0],
        0,
        List.of());
  }

  private String connectString(int duplicateId) {
    return servers.get(duplicateId - 1).connectString();
  }

  private Member member(int duplicateId, State state) {
    return new Member(duplicateId, state, connectString(duplicateId));
  }

  /** Writes {@code record} into the ensembles of duplicates {@code into}, as the repeater would. */
  private void write(Membership record, int... into) throws Exception {
    for (int id : into) {
      ZooKeeper admin = admins.get(id - 1);
      // Through create and multi only: their signatures name no ZooKeeper record class (Stat), so
      // this module's tests need no direct dependency on zookeeper-jute.
      try {
        admin.create(
            ZNODES.members(), record.encode(), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
      } catch (KeeperException.NodeExistsException e) {
        admin.multi(List.of(Op.setData(ZNODES.members(), record.encode(), -1)));
      }
    }
  }

  private int readsAt(int duplicateId) {
    return plugins.get(duplicateId - 1).received(Message.Read.class).size();
  }

  /** Does {@code count} reads, each answered. */
  private static void read(ZoolanderClient client, int count) throws Exception {
    for (int i = 0; i < count; i++) {
      client.getData("/x").get(10, TimeUnit.SECONDS);
    }
  }

  private ZoolanderClient client() {
    return ZoolanderClient.builder()
        .clientId(11)
        .repeater("127.0.0.1", repeater.port())
        .duplicate(connectString(1))
        .readPolicy(ReadPolicy.all()) // every read to every active duplicate: who is read is plain
        .connectTimeout(Duration.ofSeconds(20))
        .build();
  }

  @Test
  void theClientReadsFromDuplicatesAddedOnlineAndStopsReadingFromARetiredOne() throws Exception {
    try (ZoolanderClient client = client()) {
      DefaultZoolanderClient internal = (DefaultZoolanderClient) client;
      read(client, 5);
      assertThat(readsAt(1)).isEqualTo(5);
      assertThat(readsAt(2)).as("not a duplicate of this client yet").isZero();

      // Duplicate 2 added (active) in duplicate 1's ensemble: the client links it and reads there.
      write(new Membership(1, List.of(member(1, State.ACTIVE), member(2, State.ACTIVE))), 1);
      await(
          WAIT,
          "reads reach duplicate 2, learned from the membership record",
          () -> {
            try {
              read(client, 1);
            } catch (Exception e) {
              throw new AssertionError(e);
            }
            return readsAt(2) > 0;
          });
      assertThat(client.readConcurrency()).as("C follows N = 2").isEqualTo(2);
      assertThat(client.connectionState(Peer.duplicate(1))).isEqualTo(ConnectionState.CONNECTED);

      // Duplicate 1 retired: no read goes there any more.
      write(new Membership(2, List.of(member(2, State.ACTIVE))), 1, 2);
      await(
          WAIT,
          "duplicate 1 retired",
          () -> client.connectionState(Peer.duplicate(0)) == ConnectionState.LOST);
      plugins.get(0).expectClosed();
      int atOne = readsAt(1);
      int atTwo = readsAt(2);
      read(client, 10);
      assertThat(readsAt(1)).as("reads to the retired duplicate").isEqualTo(atOne);
      assertThat(readsAt(2)).isEqualTo(atTwo + 10);
      assertThat(client.readConcurrency()).isEqualTo(1);
      // A barrier waits for the live duplicates only: duplicate 2 answers it.
      assertThat(client.barrier(0).get(10, TimeUnit.SECONDS)).isNull();

      // An older record (as a lagging ensemble may still hold) is read but not followed.
      long readBefore = internal.membershipRecordsRead();
      write(new Membership(1, List.of(member(1, State.ACTIVE), member(2, State.ACTIVE))), 2);
      await(
          WAIT,
          "the older record read in duplicate 2's ensemble",
          () -> internal.membershipRecordsRead() > readBefore);
      assertThat(internal.membershipVersion()).isEqualTo(2);
      read(client, 10);
      assertThat(readsAt(1)).as("an older record does not bring duplicate 1 back").isEqualTo(atOne);
      assertThat(plugins.get(0).isConnected()).isFalse();
    }
  }

  @Test
  void aJoiningMemberIsNotReadFromUntilItIsActive() throws Exception {
    try (ZoolanderClient client = client()) {
      DefaultZoolanderClient internal = (DefaultZoolanderClient) client;
      write(new Membership(1, List.of(member(1, State.ACTIVE), member(3, State.JOINING))), 1);
      await(WAIT, "the record followed", () -> internal.membershipVersion() == 1);
      read(client, 10);
      assertThat(readsAt(1)).isEqualTo(10);
      assertThat(readsAt(3)).as("reads to a joining duplicate").isZero();
      assertThat(plugins.get(2).isConnected()).as("a joining duplicate is not linked").isFalse();
      assertThat(client.readConcurrency()).isEqualTo(1);

      write(new Membership(2, List.of(member(1, State.ACTIVE), member(3, State.ACTIVE))), 1);
      await(
          WAIT,
          "reads reach duplicate 3 once it is active",
          () -> {
            try {
              read(client, 1);
            } catch (Exception e) {
              throw new AssertionError(e);
            }
            return readsAt(3) > 0;
          });
      assertThat(client.readConcurrency()).isEqualTo(2);
    }
  }

  private int readsAtAll() {
    return readsAt(1) + readsAt(2) + readsAt(3);
  }

  /**
   * Does {@code count} reads, then waits until the plugins received {@code perRead} read requests
   * for each (a losing duplicate's request may still be on its way when the read returns), and
   * checks that no more arrived.
   */
  private void readEach(ZoolanderClient client, int count, int perRead) throws Exception {
    int before = readsAtAll();
    read(client, count);
    await(
        WAIT,
        count * perRead + " read requests received",
        () -> readsAtAll() >= before + count * perRead);
    assertThat(readsAtAll())
        .as("read requests for %d reads, each to %d duplicates", count, perRead)
        .isEqualTo(before + count * perRead);
  }

  @Test
  void anAdvisedClientReadsFromAsManyDuplicatesAsTheNewestRecordAdvises() throws Exception {
    try (ZoolanderClient client =
        ZoolanderClient.builder()
            .clientId(11)
            .repeater("127.0.0.1", repeater.port())
            .duplicate(connectString(1))
            .duplicate(connectString(2))
            .duplicate(connectString(3))
            .readPolicy(ReadPolicy.advised(1))
            .connectTimeout(Duration.ofSeconds(20))
            .build()) {
      DefaultZoolanderClient internal = (DefaultZoolanderClient) client;
      assertThat(client.readConcurrency()).as("no record read yet: C without advice").isEqualTo(1);
      readEach(client, 10, 1);

      // The configured set, no advice: nothing changes.
      Membership set =
          new Membership(
              1,
              List.of(member(1, State.ACTIVE), member(2, State.ACTIVE), member(3, State.ACTIVE)));
      write(set, 1, 2, 3);
      await(WAIT, "the record followed", () -> internal.membershipVersion() == 1);
      assertThat(client.readConcurrency()).isEqualTo(1);

      // The same members, a fan-out of 2 advised: a new version whose only change is the advice.
      Membership advising = set.withReadFanOut(2);
      assertThat(advising.members()).isEqualTo(set.members());
      write(advising, 1, 2, 3);
      // The version is followed a moment before the advice is applied, on the client's loop.
      await(WAIT, "the advice followed", () -> client.readConcurrency() == 2);
      assertThat(internal.membershipVersion()).isEqualTo(2);
      readEach(client, 10, 2);

      // More than the active duplicates advised: capped at them.
      write(advising.withReadFanOut(5), 1, 2, 3);
      await(WAIT, "the larger advice followed", () -> client.readConcurrency() == 3);
      assertThat(internal.membershipVersion()).as("capped at the 3 active duplicates").isEqualTo(3);
      readEach(client, 10, 3);

      // The advice withdrawn: back to C without advice.
      write(advising.withReadFanOut(5).withReadFanOut(0), 1, 2, 3);
      await(WAIT, "the advice withdrawn", () -> client.readConcurrency() == 1);
      assertThat(internal.membershipVersion()).as("no advice: C without advice").isEqualTo(4);
      readEach(client, 10, 1);
    }
  }
}
