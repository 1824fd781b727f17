package io.zoolander.server.repeater;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class TransferProgressTest {
  private static final long MS = 1_000_000;

  @Test
  void theTimeLeftIsTheRateSinceTheFirstChunkTimesTheChunksLeft() {
    // 30 chunks; the first at 1 s, the 12th at 5.4 s: 0.4 s a chunk, 18 left.
    TransferProgress p =
        TransferProgress.of(
            3, 2, 1, 12, 30, 12_000, 3 * 1024 * 1024, 0, 1_000 * MS, 5_400 * MS, 5_500 * MS);
    assertThat(p.remaining()).contains(Duration.ofMillis(7_200));
    assertThat(p.elapsed()).isEqualTo(Duration.ofMillis(5_500));
    assertThat(p.fraction()).isEqualTo(0.4);
    assertThat(p.describe())
        .isEqualTo(
            "state transfer 3 to duplicate 2 from duplicate 1: 12 of 30 chunks (40%), 12000 znodes,"
                + " 3.0 MiB in 5.5 s, about 7.2 s left");
  }

  @Test
  void beforeTheFirstChunkAndAfterTheLastNothingIsEstimated() {
    TransferProgress waiting = TransferProgress.of(1, 2, 1, 0, 0, 0, 0, 0, 0, 0, 2_000 * MS);
    assertThat(waiting.remaining()).isEmpty();
    assertThat(waiting.fraction()).isZero();
    assertThat(waiting.describe())
        .isEqualTo(
            "state transfer 1 to duplicate 2 from duplicate 1: waiting for the snapshot, 2.0 s");

    TransferProgress one = TransferProgress.of(1, 2, 1, 1, 4, 10, 100, 0, MS, MS, 2 * MS);
    assertThat(one.remaining()).as("one chunk gives no rate").isEmpty();

    TransferProgress all = TransferProgress.of(1, 2, 1, 4, 4, 40, 400, 0, MS, 9 * MS, 10 * MS);
    assertThat(all.remaining()).isEmpty();
    assertThat(all.describe()).endsWith("all relayed, the duplicate is installing it");
  }
}
