package io.zoolander.server.internal.repeater;

import static org.assertj.core.api.Assertions.assertThat;

import io.zoolander.model.SlaEstimate;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class LivePredictionTest {
  private final AtomicLong now = new AtomicLong();
  private final AtomicInteger runs = new AtomicInteger();
  private final LivePrediction prediction = new LivePrediction(now::get);

  private SlaEstimate run() {
    int n = runs.incrementAndGet();
    return new SlaEstimate(5, 1 - n / 100.0, 0.5, 1, 0.95, 0, 0, SlaEstimate.Method.SIMULATED, 0.1);
  }

  @Test
  void readsWithinASecondShareOneEngineRun() {
    SlaEstimate first = prediction.get(10, 2, this::run);
    now.addAndGet(LivePrediction.REUSE_NANOS - 1);
    assertThat(prediction.get(10, 2, this::run)).isSameAs(first);
    assertThat(runs).hasValue(1);

    now.addAndGet(1);
    assertThat(prediction.get(10, 2, this::run)).isNotSameAs(first);
    assertThat(runs).hasValue(2);
  }

  @Test
  void anotherLiveCountRecomputesAtOnceNewSamplesWaitForTheSecond() {
    SlaEstimate first = prediction.get(10, 2, this::run);
    assertThat(prediction.get(11, 2, this::run))
        .as("an ACK between two reads does not split them")
        .isSameAs(first);
    assertThat(prediction.get(11, 1, this::run)).isNotSameAs(first);
    assertThat(runs).hasValue(2);
  }

  @Test
  void noSamplesIsKeptAsNoPredictionUntilSamplesArriveAndTheOtherWayRound() {
    assertThat(prediction.get(0, 2, () -> null)).isNull();
    assertThat(prediction.get(3, 2, this::run)).isNotNull();
    assertThat(prediction.get(0, 2, () -> null)).as("the last sample aged out").isNull();
  }
}
