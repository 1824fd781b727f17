package io.zoolander.server.internal.repeater;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.zoolander.model.EmpiricalLatency;
import io.zoolander.model.SlaEngine;
import io.zoolander.model.SlaEstimate;
import io.zoolander.model.Strategy;
import io.zoolander.server.jmx.MeterNames;
import java.time.Duration;
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
    long forever = Long.MAX_VALUE;
    assertThat(window.samplesMs(0, forever)).isEmpty();
    window.record(1_000_000, 0);
    window.record(2_500_000, 0);
    assertThat(window.samplesMs(0, forever)).containsExactly(1.0, 2.5);
    window.record(3_000_000, 0);
    window.record(4_000_000, 0);
    assertThat(window.samplesMs(0, forever)).containsExactly(2.5, 3.0, 4.0);
  }

  @Test
  void latencyWindowLeavesOutSamplesOlderThanTheMaximumAge() {
    LatencyWindow window = new LatencyWindow(4);
    window.record(1_000_000, 0);
    window.record(2_000_000, 10 * SECOND);
    window.record(3_000_000, 20 * SECOND);
    assertThat(window.samplesMs(20 * SECOND, 15 * SECOND)).containsExactly(2.0, 3.0);
    assertThat(window.samplesMs(20 * SECOND, 10 * SECOND))
        .as("exactly the age")
        .containsExactly(2.0, 3.0);
    assertThat(window.samplesMs(31 * SECOND, 10 * SECOND)).isEmpty();
    window.record(4_000_000, 31 * SECOND);
    window.record(5_000_000, 32 * SECOND); // the ring wraps: the first slot is reused
    assertThat(window.samplesMs(32 * SECOND, 10 * SECOND)).containsExactly(4.0, 5.0);
  }

  @Test
  void theDuplicatesSamplesAgeOutByTheInjectedTicker() {
    long[] now = {0};
    RepeaterMeters meters =
        new RepeaterMeters(new SimpleMeterRegistry(), 5, () -> now[0], Duration.ofSeconds(60));
    RepeaterMeters.Duplicate duplicate = meters.duplicate(1);
    duplicate.ackLatency(TimeUnit.MILLISECONDS.toNanos(40), true); // a burst
    now[0] += 59 * SECOND;
    assertThat(duplicate.samplesMs()).containsExactly(40.0);
    now[0] += 2 * SECOND;
    assertThat(duplicate.samplesMs()).as("a minute later the burst no longer counts").isEmpty();
    duplicate.ackLatency(TimeUnit.MILLISECONDS.toNanos(1), true);
    assertThat(duplicate.samplesMs()).containsExactly(1.0);
    assertThat(meters.sampleMaxAgeMs()).isEqualTo(60_000);
    assertThatThrownBy(
            () -> new RepeaterMeters(new SimpleMeterRegistry(), 5, () -> 0, Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("sampleMaxAge");
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
  void whatIfAsksTheEngineWithThePooledSamples() {
    double[] fast = {0.2, 0.3, 0.4, 6.0};
    double[] slow = {0.5, 0.7, 9.0, 12.0};
    SlaWhatIf whatIf = new SlaWhatIf();
    assertThat(whatIf.predict(List.of(new double[0]), 2, 100, 5)).as("nothing measured").isNull();
    SlaEstimate three = whatIf.predict(List.of(fast, new double[0], slow), 3, 100, 5);
    SlaEstimate direct =
        SlaEngine.builder()
            .strategy(Strategy.predictability(3))
            .serviceTime(EmpiricalLatency.of(0.2, 0.3, 0.4, 6.0, 0.5, 0.7, 9.0, 12.0))
            .writeFraction(1)
            .arrivalRatePerSec(100)
            .build()
            .predict(5);
    assertThat(three.sla()).isCloseTo(direct.sla(), within(1e-12));
    assertThat(three.low()).isCloseTo(direct.low(), within(1e-12)).isLessThan(three.sla());
    assertThat(three.high()).isCloseTo(direct.high(), within(1e-12));
    assertThat(whatIf.predict(List.of(fast, new double[0], slow), 3, 100, 5))
        .as("the same question on the same samples: the kept answer")
        .isSameAs(three);
    SlaEstimate one = whatIf.predict(List.of(fast, slow), 1, 100, 5);
    assertThat(one.sla()).isLessThan(three.sla());
    assertThatThrownBy(() -> whatIf.predict(List.of(fast), 0, 100, 5))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("duplicates");
    assertThatThrownBy(() -> whatIf.predict(List.of(fast), 1, Double.NaN, 5))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("arrivalRatePerSec");
  }
}
