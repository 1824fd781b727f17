package io.zoolander.server.workload;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class InterleavedHalvesTest {
  @Test
  void evenRowsCalibrateAndOddRowsAreObserved() {
    double[][] rows = {{1, 9}, {2, 8}, {3, 7}, {4, 6}, {5, 5}};
    InterleavedHalves halves = InterleavedHalves.of(rows);
    assertThat(halves.calibration()).isDeepEqualTo(new double[][] {rows[0], rows[2], rows[4]});
    assertThat(halves.observation()).isDeepEqualTo(new double[][] {rows[1], rows[3]});
  }

  @Test
  void theObservedSlaIsTheFirstReplyAmongTheFirstNDuplicates() {
    // Observed rows: {5, 1, 9} and {6, 7, 2}.
    InterleavedHalves halves =
        InterleavedHalves.of(new double[][] {{0, 0, 0}, {5, 1, 9}, {0, 0, 0}, {6, 7, 2}});
    assertThat(halves.observedSla(1, 4)).isEqualTo(0.0);
    assertThat(halves.observedSla(2, 4)).isEqualTo(0.5);
    assertThat(halves.observedSla(3, 4)).isEqualTo(1.0);
    assertThat(InterleavedHalves.of(new double[][] {{1}}).observedSla(1, 4)).isNaN();
  }
}
