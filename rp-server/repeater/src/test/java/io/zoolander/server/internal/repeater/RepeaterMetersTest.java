package io.zoolander.server.internal.repeater;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.zoolander.model.Deployment;
import io.zoolander.model.DistributionModel;
import io.zoolander.model.EmpiricalLatency;
import io.zoolander.server.jmx.MeterNames;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The predictor's inputs, with explicit times: the arrival-rate window, the latency window and the
 * what-if.
 */
class RepeaterMetersTest {
  private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

  @Test
  void arrivalRateIsTheCountPerSecondOverTheLastWindow() {
    ArrivalRate rate = new ArrivalRate(10 * SECOND, 10);
    assertThat(rate.perSecond()).isZero();
    rate.sample(0, 0);
    assertThat(rate.perSecond()).as("one sample is no rate").isZero();
    for (int s = 1; s <= 10; s++) {
      rate.sample(s * SECOND, 100L * s); // 100 writes a second
    }
    assertThat(rate.perSecond()).isCloseTo(100, within(1e-9));
    for (int s = 11; s <= 15; s++) {
      rate.sample(s * SECOND, 1000 + 400L * (s - 10)); // then 400 a second for 5 s
    }
    // The window is seconds 5..15: 500 writes in 5 s at 100/s, then 2000 in 5 s at 400/s.
    assertThat(rate.perSecond()).isCloseTo(2500 / 10.0, within(1e-9));
    for (int s = 16; s <= 40; s++) {
      rate.sample(s * SECOND, 3000); // idle
    }
    assertThat(rate.perSecond()).isZero();
  }

  @Test
  void latencyWindowKeepsTheLastSamplesOldestFirstInMilliseconds() {
    LatencyWindow window = new LatencyWindow(3);
    assertThat(window.samplesMs()).isEmpty();
    window.record(1_000_000);
    window.record(2_500_000);
    assertThat(window.samplesMs()).containsExactly(1.0, 2.5);
    window.record(3_000_000);
    window.record(4_000_000);
    assertThat(window.samplesMs()).containsExactly(2.5, 3.0, 4.0);
  }

  @Test
  void everyProbeIsTimedButOnlyProbesOfAnIdleDuplicateFeedThePredictor() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    RepeaterMeters.Duplicate duplicate = new RepeaterMeters(registry, 5).duplicate(1);
    duplicate.ackLatency(
        TimeUnit.MILLISECONDS.toNanos(30), false); // waited behind earlier writes: queueing
    duplicate.ackLatency(TimeUnit.MILLISECONDS.toNanos(2), true);
    assertThat(registry.get(MeterNames.REPEATER_ACK_LATENCY).timer().count()).isEqualTo(2);
    assertThat(duplicate.samplesMs()).as("the model adds the queueing itself").containsExactly(2.0);
  }

  @Test
  void whatIfUsesTheMeasuredDuplicatesInTurn() {
    double[] fast = {0.2, 0.3, 0.4, 6.0};
    double[] slow = {0.5, 0.7, 9.0, 12.0};
    assertThat(SlaWhatIf.predict(List.of(new double[0]), 2, 100, 5))
        .as("nothing measured")
        .isNull();
    double three = SlaWhatIf.predict(List.of(fast, new double[0], slow), 3, 100, 5).sla();
    double direct =
        DistributionModel.create()
            .predict(
                Deployment.builder()
                    .arrivalRatePerSec(100)
                    .duplicate(EmpiricalLatency.of(fast))
                    .duplicate(EmpiricalLatency.of(slow))
                    .duplicate(EmpiricalLatency.of(fast))
                    .build(),
                5)
            .sla();
    assertThat(three).isCloseTo(direct, within(1e-12));
    double one = SlaWhatIf.predict(List.of(fast, slow), 1, 100, 5).sla();
    assertThat(one).isLessThan(three);
    assertThatThrownBy(() -> SlaWhatIf.predict(List.of(fast), 0, 100, 5))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("duplicates");
    assertThatThrownBy(() -> SlaWhatIf.predict(List.of(fast), 1, Double.NaN, 5))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("arrivalRatePerSec");
  }
}
