package io.zoolander.server.internal.repeater;

import static org.assertj.core.api.Assertions.assertThat;

import io.zoolander.model.SlaEstimate;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class LivePredictionTest {
  private static final double TAU = 5;

  private final AtomicLong now = new AtomicLong();
  private final AtomicInteger runs = new AtomicInteger();
  private final LivePrediction prediction = new LivePrediction(now::get);

  private SlaEstimate run() {
    int n = runs.incrementAndGet();
    return new SlaEstimate(5, 1 - n / 100.0, 0.5, 1, 0.95, 0, 0, SlaEstimate.Method.SIMULATED, 0.1);
  }

  @Test
  void readsWithinASecondShareOneEngineRun() {
    SlaEstimate first = prediction.get(TAU, true, 2, this::run);
    now.addAndGet(LivePrediction.REUSE_NANOS - 1);
    assertThat(prediction.get(TAU, true, 2, this::run)).isSameAs(first);
    assertThat(runs).hasValue(1);

    now.addAndGet(1);
    assertThat(prediction.get(TAU, true, 2, this::run)).isNotSameAs(first);
    assertThat(runs).hasValue(2);
  }

  @Test
  void anotherLiveCountRecomputesAtOnceNewSamplesWaitForTheSecond() {
    SlaEstimate first = prediction.get(TAU, true, 2, this::run);
    assertThat(prediction.get(TAU, true, 2, this::run))
        .as("an ACK between two reads does not split them")
        .isSameAs(first);
    assertThat(prediction.get(TAU, true, 1, this::run)).isNotSameAs(first);
    assertThat(runs).hasValue(2);
  }

  @Test
  void noSamplesIsKeptAsNoPredictionUntilSamplesArriveAndTheOtherWayRound() {
    assertThat(prediction.get(TAU, false, 2, () -> null)).isNull();
    assertThat(prediction.get(TAU, true, 2, this::run)).isNotNull();
    assertThat(prediction.get(TAU, false, 2, () -> null)).as("the last sample aged out").isNull();
  }

  @Test
  void anotherBoundRecomputesAtOnce() {
    SlaEstimate first = prediction.get(TAU, true, 2, this::run);
    assertThat(prediction.get(2 * TAU, true, 2, this::run))
        .as("a prediction for 5 ms is not one for 10 ms")
        .isNotSameAs(first);
    assertThat(runs).hasValue(2);
  }
}
