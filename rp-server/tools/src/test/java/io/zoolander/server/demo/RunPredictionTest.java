package io.zoolander.server.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.zoolander.server.workload.InterleavedHalves;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class RunPredictionTest {
  /** {@code accesses} rows of {@code duplicates} independent exponential latencies (mean 1). */
  private static double[][] independent(int accesses, int duplicates, long seed) {
    SplittableRandom rng = new SplittableRandom(seed);
    double[][] rows = new double[accesses][duplicates];
    for (double[] row : rows) {
      for (int j = 0; j < duplicates; j++) {
        row[j] = -Math.log(1 - rng.nextDouble());
      }
    }
    return rows;
  }

  private static InterleavedHalves none() {
    return InterleavedHalves.of(new double[0][]);
  }

  @Test
  void oneDuplicateIsItsCalibrationAndTheIntervalHoldsBothHalvesSizes() {
    InterleavedHalves reads = InterleavedHalves.of(independent(4_000, 1, 1));
    RunPrediction.Band band = RunPrediction.of(1, reads, none()).at(Math.log(10)); // p90
    assertThat(band.sla()).isCloseTo(0.9, within(0.015));
    // The observation's binomial error alone is sqrt(0.09 / 2000); the calibration's adds to it.
    double observationAlone = Math.sqrt(0.09 / 2_000);
    assertThat(band.standardError()).isGreaterThan(observationAlone * 1.2);
    assertThat(band.standardError()).isLessThan(observationAlone * 2);
    assertThat(band.low(RunPrediction.Z999)).isLessThan(band.low(RunPrediction.Z95));
  }

  @Test
  void independentDuplicatesArePredictedAsIndependent() {
    InterleavedHalves writes = InterleavedHalves.of(independent(20_000, 2, 2));
    RunPrediction prediction = RunPrediction.of(2, none(), writes);
    double tau = Math.log(10);
    assertThat(prediction.at(tau).sla()).isCloseTo(0.99, within(0.003));
    assertThat(prediction.thesis(tau)).isCloseTo(0.99, within(0.003));
    assertThat(writes.observedSla(2, tau))
        .isBetween(prediction.at(tau).low(RunPrediction.Z999), 1.0);
  }

  @Test
  void fewerDuplicatesThanColumnsAndTwiceTheColumnsArePredicted() {
    // ModelValidationIT's use: the dependence fitted on every measured duplicate, N below it, and
    // N = 8 from four measured columns.
    InterleavedHalves four = InterleavedHalves.of(independent(20_000, 4, 3));
    double tau = Math.log(10);
    assertThat(RunPrediction.of(2, four, none()).at(tau).sla()).isCloseTo(0.99, within(0.003));
    assertThat(RunPrediction.of(8, four, none()).at(tau).sla()).isCloseTo(1 - 1e-8, within(1e-3));
  }

  @Test
  void readsAndWritesArePredictedApartAndCombinedPerTheObservedMix() {
    // Reads within 1 ms, writes at 5 ms: at tau = 2 ms the run's SLA is its share of reads.
    double[][] reads = new double[300][];
    double[][] writes = new double[100][];
    java.util.Arrays.setAll(reads, i -> new double[] {0.5, 0.6});
    java.util.Arrays.setAll(writes, i -> new double[] {5, 5.5});
    RunPrediction prediction =
        RunPrediction.of(2, InterleavedHalves.of(reads), InterleavedHalves.of(writes));
    assertThat(prediction.at(2).sla()).isCloseTo(0.75, within(1e-9));
    assertThat(prediction.thesis(2)).isCloseTo(0.75, within(1e-9));
    List<RunPrediction.Band> curve = prediction.curve(0.1, 10, 5);
    assertThat(curve).hasSize(5);
    assertThat(curve.get(0).sla()).isZero();
    assertThat(curve.get(4).sla()).isEqualTo(1.0);
  }

  @Test
  void aRunWithNothingObservedIsRefused() {
    assertThatThrownBy(() -> RunPrediction.of(1, none(), none()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("nothing to compare");
  }
}
