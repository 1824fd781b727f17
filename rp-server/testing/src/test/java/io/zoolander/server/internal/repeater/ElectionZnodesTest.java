package io.zoolander.server.internal.repeater;

import static org.assertj.core.api.Assertions.assertThat;

import io.zoolander.server.internal.repeater.CandidateOrder.Candidate;
import io.zoolander.server.testing.ZooKeeperEnsemble;
import io.zoolander.wire.ActiveRepeater;
import io.zoolander.wire.Znodes;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.ZooDefs;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The election's znodes in real ZooKeeper: two duplicates, one of them down for part of the test (a
 * port nothing listens on).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ElectionZnodesTest {
  private static ZooKeeperEnsemble ensemble;

  @BeforeAll
  static void start() throws Exception {
    ensemble = ZooKeeperEnsemble.builder().servers(1).start();
  }

  @AfterAll
  static void stop() {
    ensemble.close();
  }

  private static ElectionZnodes znodes(String base) {
    return new ElectionZnodes(
        Map.of(1, ensemble.connectString(), 2, "127.0.0.1:1"),
        new Znodes(base),
        4_000,
        null,
        ZooDefs.Ids.OPEN_ACL_UNSAFE,
        1_000);
  }

  @Test
  void candidatesAreListedInTheOrderTheyRegisteredAndLeaveWithTheirSession() {
    try (ElectionZnodes first = znodes("/e1");
        ElectionZnodes second = znodes("/e1")) {
      first.register("a:1");
      second.register("b:1");
      first.register("a:1"); // again: no second znode
      List<Candidate> listed = second.candidates();
      assertThat(listed).extracting(Candidate::heartbeat).containsExactlyInAnyOrder("a:1", "b:1");
      assertThat(new CandidateOrder(listed).rank("a:1", null)).isZero();
      assertThat(new CandidateOrder(listed).rank("b:1", null)).isEqualTo(1);
      first.close();
      assertThat(second.candidates()).extracting(Candidate::heartbeat).containsExactly("b:1");
    }
  }

  @Test
  void theHighestPublishedEpochWinsAndAnOlderOneCannotOverwriteIt() {
    try (ElectionZnodes znodes = znodes("/e2")) {
      assertThat(znodes.active()).isEmpty();
      ActiveRepeater second = new ActiveRepeater(2, "127.0.0.1", 7000, "127.0.0.1", 7001);
      ActiveRepeater first = new ActiveRepeater(1, "127.0.0.1", 8000, "127.0.0.1", 8001);
      assertThat(znodes.publish(second)).as("in the duplicate that answers").isEqualTo(1);
      assertThat(znodes.publish(first)).isZero();
      assertThat(znodes.active()).contains(second);
    }
  }
}
