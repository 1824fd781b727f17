package io.zoolander.server.repeater;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.channel.nio.NioEventLoopGroup;
import io.zoolander.server.testing.ZooKeeperEnsemble;
import io.zoolander.testsupport.Await;
import io.zoolander.testsupport.ZooKeepers;
import io.zoolander.wire.BookkeepingState;
import io.zoolander.wire.ErrorCode;
import io.zoolander.wire.PluginEndpoint;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A takeover while one of three duplicates is down: the repeater claims its epoch at the other two
 * (a majority), records at them that the third was left out, and fences the third when it comes
 * back, whatever it reports (here writes of the deposed repeater past the claim), so it rejoins by
 * state transfer; a later repeater still distrusts it until it has. Real single-server ensembles
 * (child JVMs), fake plugins.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TakeoverWithADuplicateDownTest {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final String BASE = "/zoolander";

  private final List<ZooKeeperEnsemble> ensembles = new ArrayList<>();
  private final List<AutoCloseable> closeables = new ArrayList<>();
  private NioEventLoopGroup group;

  @BeforeEach
  void start() throws Exception {
    group = new NioEventLoopGroup(1);
    for (int i = 0; i < 3; i++) {
      ensembles.add(
          ZooKeeperEnsemble.builder()
              .servers(1)
              .jvmArgs("-XX:TieredStopAtLevel=1", "-Xss512k")
              .start());
    }
  }

  @AfterEach
  void stop() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
    ensembles.forEach(ZooKeeperEnsemble::close);
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  @Test
  void theDuplicateDownAtTheClaimIsFencedWhenBackAndDistrustedUntilItRejoins() throws Exception {
    // Duplicates 1 and 2 applied up to 100; duplicate 3 also applied 101..105 (acknowledged by it
    // alone), then went down with the repeater: the double fault, where those writes are lost.
    writeState(1, new BookkeepingState(1, 100));
    writeState(2, new BookkeepingState(1, 100));
    writeState(3, new BookkeepingState(1, 105));
    ensembles.get(2).stop(1);
    publishedPlugin(1, new FakePlugin.Durable(1, 100));
    publishedPlugin(2, new FakePlugin.Durable(1, 100));

    Repeater first = repeater();
    first.start();
    assertThat(first.epoch()).isEqualTo(2);
    assertThat(first.takeover().appliedSeqs()).containsOnlyKeys(1, 2);
    assertThat(first.nextSeq()).as("continues after the majority's seq").isEqualTo(101);
    for (int d = 1; d <= 2; d++) {
      assertThat(leftOutEpoch(d, 3)).as("duplicate %d records 3 left out", d).isEqualTo("2");
    }

    ensembles.get(2).restart(1);
    FakePlugin p3 = publishedPlugin(3, new FakePlugin.Durable(1, 105));
    Await.await(WAIT, "duplicate 3 fenced", () -> first.duplicate(3).fenced(), first::duplicates);
    assertThat(first.duplicate(3).fenceReason().orElseThrow())
        .contains("left out of the claim of epoch 2");
    Await.await(
        WAIT,
        "duplicate 3 told FENCED",
        () -> p3.errors.stream().anyMatch(e -> e.code() == ErrorCode.FENCED),
        p3::toString);
    assertThat(p3.received).as("nothing streamed to it").isEmpty();
    first.close();

    // Duplicate 3 is reachable now but has not rejoined (still epoch 1): the next repeater leaves
    // it out too, though its applied seq is the highest.
    Repeater second = repeater();
    second.start();
    assertThat(second.epoch()).isEqualTo(3);
    assertThat(second.takeover().appliedSeqs()).containsOnlyKeys(1, 2);
    assertThat(second.nextSeq()).isEqualTo(101);
    assertThat(leftOutEpoch(1, 3)).isEqualTo("3");
    assertThat(readState(3).epoch()).as("not claimed at duplicate 3").isEqualTo(1);
  }

  @Test
  void aDuplicateThatGotTheClaimLateIsStillDistrusted() throws Exception {
    // The claim of epoch 2 reached duplicate 3 after the repeater had left it out: it holds epoch 2
    // over writes 101..105 of the deposed repeater, which the others never applied; repeater 2
    // died before rejoining it.
    writeState(1, new BookkeepingState(2, 100));
    writeState(2, new BookkeepingState(2, 100));
    writeState(3, new BookkeepingState(2, 105));
    recordLeftOut(1, 3, 2);
    recordLeftOut(2, 3, 2);
    publishedPlugin(1, new FakePlugin.Durable(2, 100));
    publishedPlugin(2, new FakePlugin.Durable(2, 100));

    Repeater repeater = repeater();
    repeater.start();
    assertThat(repeater.epoch()).isEqualTo(3);
    assertThat(repeater.takeover().appliedSeqs()).containsOnlyKeys(1, 2);
    assertThat(repeater.nextSeq()).as("not after duplicate 3's orphans").isEqualTo(101);
  }

  @Test
  void withoutAMajorityNoEpochIsClaimed() throws Exception {
    writeState(1, new BookkeepingState(1, 100));
    ensembles.get(1).stop(1);
    ensembles.get(2).stop(1);
    Repeater repeater = repeater();
    assertThatThrownBy(repeater::start)
        .isInstanceOf(TimeoutException.class)
        .hasMessageContaining("2 of 3 duplicates")
        .hasMessageContaining("duplicate 2")
        .hasMessageContaining("duplicate 3");
    assertThat(readState(1)).as("nothing claimed").isEqualTo(new BookkeepingState(1, 100));
  }

  private Repeater repeater() {
    Repeater.Builder builder =
        Repeater.builder()
            .basePath(BASE)
            .sessionTimeout(Duration.ofSeconds(4))
            .startTimeout(Duration.ofSeconds(5))
            .autoRejoin(false); // shows the fence; rejoining is StateTransferIT's
    for (int d = 1; d <= 3; d++) {
      builder.duplicate(d, ensembles.get(d - 1).connectString());
    }
    Repeater repeater = builder.build();
    closeables.add(repeater);
    return repeater;
  }

  private FakePlugin publishedPlugin(int duplicateId, FakePlugin.Durable durable) throws Exception {
    FakePlugin p = new FakePlugin(group, duplicateId, 1, durable);
    closeables.add(p);
    PluginEndpoint endpoint = p.start();
    try (ZooKeeper zk = connect(duplicateId)) {
      // Persistent here (the test's session closes); the repeater only reads it.
      zk.create(
          BASE + "/endpoint",
          endpoint.encode(),
          ZooDefs.Ids.OPEN_ACL_UNSAFE,
          CreateMode.PERSISTENT);
    }
    return p;
  }

  private void writeState(int duplicateId, BookkeepingState state) throws Exception {
    try (ZooKeeper zk = connect(duplicateId)) {
      zk.create(BASE, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
      zk.create(
          BASE + "/state", state.encode(), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    }
  }

  private void recordLeftOut(int at, int leftOut, long epoch) throws Exception {
    try (ZooKeeper zk = connect(at)) {
      zk.create(BASE + "/leftOut", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
      zk.create(
          BASE + "/leftOut/" + leftOut,
          Long.toString(epoch).getBytes(StandardCharsets.US_ASCII),
          ZooDefs.Ids.OPEN_ACL_UNSAFE,
          CreateMode.PERSISTENT);
    }
  }

  private BookkeepingState readState(int duplicateId) throws Exception {
    try (ZooKeeper zk = connect(duplicateId)) {
      return BookkeepingState.decode(zk.getData(BASE + "/state", false, null));
    }
  }

  private String leftOutEpoch(int duplicateId, int leftOut) throws Exception {
    try (ZooKeeper zk = connect(duplicateId)) {
      return new String(
          zk.getData(BASE + "/leftOut/" + leftOut, false, null), StandardCharsets.US_ASCII);
    } catch (KeeperException.NoNodeException e) {
      return "(none)";
    }
  }

  private ZooKeeper connect(int duplicateId) throws Exception {
    return ZooKeepers.connect(
        ensembles.get(duplicateId - 1).connectString(),
        Duration.ofSeconds(10),
        Duration.ofSeconds(10));
  }
}
