package io.zoolander.server.repeater;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zoolander.server.testing.EmbeddedCluster;
import io.zoolander.server.testing.ServerMode;
import io.zoolander.server.testing.ZooKeeperEnsemble;
import io.zoolander.testsupport.ZooKeepers;
import io.zoolander.wire.BookkeepingState;
import io.zoolander.wire.Membership;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Changes of the set of duplicates the repeater refuses, each with a clear error and nothing
 * changed: the deployment's record and links stay as they were.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class MembershipChangeTest {
  private static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir Path dir;

  @Test
  void refusedChangesSayWhyAndChangeNothing() throws Exception {
    try (EmbeddedCluster cluster =
            EmbeddedCluster.builder().duplicates(2).serverMode(ServerMode.IN_PROCESS).start();
        ZooKeeperEnsemble foreign =
            ZooKeeperEnsemble.builder()
                .servers(1)
                .serverMode(ServerMode.IN_PROCESS)
                .baseDir(dir.resolve("foreign"))
                .zoolanderDuplicate(3, cluster.znodes().basePath())
                .start()) {
      Repeater repeater = cluster.repeater();
      Membership before = repeater.membership();

      // A duplicate whose ensemble a newer repeater claimed belongs to another deployment.
      try (ZooKeeper zk = ZooKeepers.connect(foreign.connectString(), WAIT, WAIT)) {
        byte[] newer = new BookkeepingState(repeater.epoch() + 10, 0).encode();
        if (zk.exists(cluster.znodes().state(), false) == null) {
          for (String path : List.of(cluster.znodes().basePath(), cluster.znodes().state())) {
            try {
              zk.create(path, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            } catch (KeeperException.NodeExistsException e) {
              // the plugin made it meanwhile
            }
          }
        }
        zk.setData(cluster.znodes().state(), newer, -1);
      }
      assertThatThrownBy(() -> repeater.addDuplicate(3, foreign.connectString()).join())
          .isInstanceOf(CompletionException.class)
          .cause()
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("holds a newer repeater epoch");

      assertThatThrownBy(() -> repeater.addDuplicate(1, foreign.connectString()).join())
          .cause()
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("duplicateId: duplicate 1 is already a member");
      assertThatThrownBy(() -> repeater.addDuplicate(0, foreign.connectString()).join())
          .cause()
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("duplicateId must be >= 1, was 0");
      assertThatThrownBy(() -> repeater.addDuplicate(4, "h:1 h:2").join())
          .cause()
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("without spaces");
      assertThatThrownBy(() -> repeater.retireDuplicate(9).join())
          .cause()
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("duplicateId: duplicate 9 is not a member");

      assertThat(repeater.membership()).isEqualTo(before);
      assertThat(repeater.duplicates()).extracting(DuplicateView::id).containsExactly(1, 2);

      // The last active duplicate cannot be retired.
      repeater.retireDuplicate(1).get(WAIT.toSeconds(), TimeUnit.SECONDS);
      assertThatThrownBy(() -> repeater.retireDuplicate(2).join())
          .cause()
          .isInstanceOf(IllegalStateException.class)
          .hasMessage("cannot retire duplicate 2: it is the last active duplicate");
      assertThat(repeater.duplicates()).extracting(DuplicateView::id).containsExactly(2);
    }
  }

  @Test
  void theReadFanOutIsWrittenToTheDuplicatesAndKeptThroughLaterChanges() throws Exception {
    try (EmbeddedCluster cluster =
        EmbeddedCluster.builder().duplicates(2).serverMode(ServerMode.IN_PROCESS).start()) {
      Repeater repeater = cluster.repeater();
      Membership before = repeater.membership();
      assertThat(before.readFanOut()).isZero();

      Membership advised = repeater.setReadFanOut(2).get(WAIT.toSeconds(), TimeUnit.SECONDS);
      assertThat(advised.readFanOut()).isEqualTo(2);
      assertThat(advised.version()).isEqualTo(before.version() + 1);
      assertThat(advised.members()).isEqualTo(before.members());
      for (int id = 1; id <= 2; id++) {
        try (ZooKeeper zk = ZooKeepers.connect(cluster.duplicate(id).connectString(), WAIT, WAIT)) {
          assertThat(Membership.decode(zk.getData(cluster.znodes().members(), false, null)))
              .as("the record in duplicate %d", id)
              .isEqualTo(advised);
        }
      }
      assertThat(repeater.setReadFanOut(2).get(WAIT.toSeconds(), TimeUnit.SECONDS))
          .as("the same advice again is no change")
          .isEqualTo(advised);
      assertThatThrownBy(() -> repeater.setReadFanOut(-1).join())
          .cause()
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("fanOut must be >= 0, was -1");

      Membership retired = repeater.retireDuplicate(2).get(WAIT.toSeconds(), TimeUnit.SECONDS);
      assertThat(retired.readFanOut()).as("kept through a change of member").isEqualTo(2);
      assertThat(repeater.setReadFanOut(0).get(WAIT.toSeconds(), TimeUnit.SECONDS).readFanOut())
          .isZero();
    }
  }

  @Test
  void changesAreRefusedWhileAdmissionControlIsOn() throws Exception {
    try (EmbeddedCluster cluster =
        EmbeddedCluster.builder()
            .duplicates(2)
            .serverMode(ServerMode.IN_PROCESS)
            .startRepeater(false)
            .start()) {
      Repeater repeater =
          cluster.startRepeater(
              b -> b.admission(AdmissionSettings.builder().targetSla(0.5).tauMs(1_000).build()));
      assertThatThrownBy(() -> repeater.retireDuplicate(2).join())
          .cause()
          .isInstanceOf(IllegalStateException.class)
          .hasMessage(
              "cannot retire duplicate 2: admission control is on, and its model is sized by the"
                  + " configured duplicates");
      assertThat(repeater.duplicates()).hasSize(2);
      // The read fan-out changes no member: admission control's model is not concerned.
      assertThat(repeater.setReadFanOut(1).get(WAIT.toSeconds(), TimeUnit.SECONDS).readFanOut())
          .isEqualTo(1);
    }
  }
}
