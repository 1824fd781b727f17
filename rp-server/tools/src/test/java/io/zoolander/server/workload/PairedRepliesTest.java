package io.zoolander.server.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zoolander.client.ReplyEvent;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class PairedRepliesTest {
  private static ReplyEvent reply(boolean write, long request, int duplicate, double ms) {
    return new ReplyEvent(write, request, duplicate, (long) (ms * 1e6), duplicate == 0);
  }

  @Test
  void rowsAreInRequestOrderWithOneColumnPerDuplicateAndReadsApartFromWrites() {
    PairedReplies paired = new PairedReplies(2);
    paired.record(reply(false, 7, 1, 3.0));
    paired.record(reply(false, 5, 0, 1.0));
    paired.record(reply(true, 5, 0, 9.0)); // a write with the same id as a read
    paired.record(reply(false, 7, 0, 2.0));
    paired.record(reply(false, 5, 1, 1.5));
    paired.record(reply(true, 5, 1, 8.0));

    assertThat(paired.rows(false)).isDeepEqualTo(new double[][] {{1.0, 1.5}, {2.0, 3.0}});
    assertThat(paired.rows(true)).isDeepEqualTo(new double[][] {{9.0, 8.0}});
    assertThat(paired.incomplete()).isZero();
  }

  @Test
  void anAccessStillMissingAReplyIsLeftOutAndWaitedForAtMostTheTimeout() {
    PairedReplies paired = new PairedReplies(3);
    paired.record(reply(true, 1, 0, 1.0));
    paired.record(reply(true, 1, 2, 1.0));
    paired.record(reply(true, 2, 0, 1.0));
    paired.record(reply(true, 2, 1, 1.0));
    paired.record(reply(true, 2, 2, 1.0));
    // A duplicate the client does not compare (index >= duplicates) is ignored.
    paired.record(reply(true, 2, 3, 1.0));

    assertThat(paired.incomplete()).isEqualTo(1);
    assertThat(paired.awaitComplete(Duration.ofMillis(20))).isFalse();
    assertThat(paired.rows(true)).hasNumberOfRows(1);
    paired.record(reply(true, 1, 1, 4.0));
    assertThat(paired.awaitComplete(Duration.ofMillis(20))).isTrue();
    assertThat(paired.rows(true)).isDeepEqualTo(new double[][] {{1, 4, 1}, {1, 1, 1}});
  }

  @Test
  void clearForgetsTheAccessesSoFar() {
    PairedReplies paired = new PairedReplies(1);
    paired.record(reply(false, 1, 0, 1.0));
    paired.clear();
    paired.record(reply(false, 2, 0, 2.0));
    assertThat(paired.rows(false)).isDeepEqualTo(new double[][] {{2.0}});
  }

  @Test
  void noDuplicatesIsRefused() {
    assertThatThrownBy(() -> new PairedReplies(0)).hasMessageContaining("duplicates");
  }
}
