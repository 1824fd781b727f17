package io.zoolander.server.internal.repeater;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.zoolander.server.repeater.BatchingPolicy;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The batching interval's controller, driven by an injected clock: no sleeping, no real latency.
 */
class BatchingControllerTest {

  private long now = 1_000_000_000L;
  private long seq;

  private final BatchingPolicy adaptive =
      BatchingPolicy.builder()
          .minIntervalMicros(100)
          .maxIntervalMicros(1_600)
          .backoffFactor(2)
          .accelerateFactor(0.5)
          .tolerance(0.2)
          .build();

  /**
   * One batch of {@code writes}, flushed now and first acknowledged {@code latencyMicros} later.
   */
  private void batch(BatchingController controller, int writes, long latencyMicros) {
    seq += writes;
    controller.flushed(seq);
    now += TimeUnit.MICROSECONDS.toNanos(latencyMicros);
    controller.acked(seq);
  }

  @Test
  void aFixedIntervalNeverMoves() {
    BatchingController fixed = new BatchingController(BatchingPolicy.fixed(1_000), () -> now, null);
    assertThat(fixed.intervalNanos()).isEqualTo(1_000_000);
    for (int i = 0; i < 50; i++) {
      batch(fixed, 1, i < 25 ? 500 : 20_000);
    }
    assertThat(fixed.intervalNanos()).isEqualTo(1_000_000);
    assertThat(BatchingController.none().intervalNanos()).isZero();
  }

  @Test
  void steadyLatencyKeepsTheIntervalAtItsShortest() {
    BatchingController controller = new BatchingController(adaptive, () -> now, null);
    assertThat(controller.intervalNanos()).isEqualTo(TimeUnit.MICROSECONDS.toNanos(100));
    for (int i = 0; i < 200; i++) {
      batch(controller, 1, 800 + (i % 3) * 50); // +-10%: within the tolerance
      assertThat(controller.intervalNanos()).isEqualTo(TimeUnit.MICROSECONDS.toNanos(100));
    }
  }

  @Test
  void risingLatencyBacksOffUpToTheBoundAndFallingLatencyAccelerates() {
    BatchingController controller = new BatchingController(adaptive, () -> now, null);
    for (int i = 0; i < 50; i++) {
      batch(controller, 1, 500);
    }
    batch(controller, 1, 5_000); // the recent average jumps above the level: back off
    assertThat(controller.intervalNanos()).isEqualTo(TimeUnit.MICROSECONDS.toNanos(200));
    batch(controller, 1, 5_000);
    assertThat(controller.intervalNanos()).isEqualTo(TimeUnit.MICROSECONDS.toNanos(400));
    for (int i = 0; i < 10; i++) {
      batch(controller, 1, 5_000);
    }
    assertThat(controller.intervalNanos())
        .as("bounded")
        .isEqualTo(TimeUnit.MICROSECONDS.toNanos(1_600));

    // Latency back at its old value: once the recent average falls below the (raised) level,
    // accelerate to the
    // shortest interval, never backing off on the way, and no further.
    long max = controller.intervalNanos();
    int samples = 0;
    while (controller.intervalNanos() == max && samples < 20) {
      batch(controller, 1, 500);
      samples++;
    }
    assertThat(controller.intervalNanos())
        .as("accelerating after %d samples", samples)
        .isLessThan(max);
    long previous = controller.intervalNanos();
    for (int i = 0; i < 20; i++) {
      batch(controller, 1, 500);
      assertThat(controller.intervalNanos()).isLessThanOrEqualTo(previous);
      previous = controller.intervalNanos();
    }
    assertThat(controller.intervalNanos()).isEqualTo(TimeUnit.MICROSECONDS.toNanos(100));
  }

  @Test
  void aSustainedNewLevelStopsCountingAsRising() {
    BatchingController controller = new BatchingController(adaptive, () -> now, null);
    for (int i = 0; i < 50; i++) {
      batch(controller, 1, 500);
    }
    for (int i = 0; i < 400; i++) {
      batch(controller, 1, 2_000);
    }
    assertThat(controller.intervalNanos())
        .as("the level caught up; no more backing off")
        .isEqualTo(TimeUnit.MICROSECONDS.toNanos(100));
  }

  @Test
  void anAdaptivePolicyHoldsWritesOnlyWhileTheFastestDuplicateOwesAnAck() {
    BatchingController controller = new BatchingController(adaptive, () -> now, null);
    for (int i = 0; i < 50; i++) {
      batch(controller, 1, 500);
    }
    batch(controller, 1, 5_000);
    batch(controller, 1, 5_000); // backed off: the hold is now 400 us
    long interval = controller.intervalNanos();
    assertThat(interval).isEqualTo(TimeUnit.MICROSECONDS.toNanos(400));

    // Every flush acknowledged: a duplicate is idle, a write goes at once whatever the interval.
    assertThat(controller.holdNanos()).isZero();
    assertThat(controller.releaseHeldWrites()).isTrue();

    controller.flushed(seq + 2);
    controller.flushed(seq + 5);
    assertThat(controller.holdNanos())
        .as("every duplicate owes an ACK: hold up to the interval")
        .isEqualTo(interval);
    assertThat(controller.releaseHeldWrites()).isFalse();
    controller.acked(seq + 2);
    assertThat(controller.releaseHeldWrites()).as("the later flush is still owed").isFalse();
    assertThat(controller.holdNanos()).isEqualTo(controller.intervalNanos());
    controller.acked(seq + 5);
    assertThat(controller.releaseHeldWrites())
        .as("the ACK that settles every flush releases the held writes")
        .isTrue();
    assertThat(controller.holdNanos()).isZero();
  }

  @Test
  void aFixedIntervalHoldsWhateverIsOwed() {
    BatchingController fixed = new BatchingController(BatchingPolicy.fixed(1_000), () -> now, null);
    assertThat(fixed.holdNanos()).isEqualTo(1_000_000);
    fixed.flushed(1);
    assertThat(fixed.holdNanos()).isEqualTo(1_000_000);
    fixed.acked(1);
    assertThat(fixed.holdNanos()).isEqualTo(1_000_000);
    assertThat(fixed.releaseHeldWrites()).as("only the timer ends a fixed hold").isFalse();
    assertThat(BatchingController.none().holdNanos()).isZero();
  }

  @Test
  void oneAckMeasuresEveryBatchItCoversAndOlderAcksNothing() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    BatchingController controller = new BatchingController(adaptive, () -> now, registry);
    controller.flushed(3);
    now += 1_000;
    controller.flushed(7);
    now += 1_000;
    controller.flushed(8);
    now += 1_000;
    controller.acked(7);
    controller.acked(5); // older: nothing
    assertThat(registry.get("zoolander.repeater.batch.latency").timer().count()).isEqualTo(2);
    assertThat(registry.get("zoolander.repeater.batch.latency").timer().max(TimeUnit.NANOSECONDS))
        .isEqualTo(3_000);
    controller.acked(8);
    assertThat(registry.get("zoolander.repeater.batch.latency").timer().count()).isEqualTo(3);
    // Sizes are counted from the second flush on (the first has no known start).
    assertThat(registry.get("zoolander.repeater.batch.size").summary().count()).isEqualTo(2);
    assertThat(registry.get("zoolander.repeater.batch.size").summary().totalAmount()).isEqualTo(5);
  }

  @Test
  void theIntervalGaugeFollowsTheController() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    BatchingController controller = new BatchingController(adaptive, () -> now, registry);
    for (int i = 0; i < 50; i++) {
      batch(controller, 2, 500);
    }
    assertThat(registry.get("zoolander.repeater.batch.interval").gauge().value()).isEqualTo(100);
    batch(controller, 2, 5_000);
    batch(controller, 2, 5_000);
    assertThat(registry.get("zoolander.repeater.batch.interval").gauge().value()).isEqualTo(400);
    assertThat(registry.get("zoolander.repeater.batch.size").summary().mean()).isEqualTo(2);
  }

  @Test
  void flushesNeverAcknowledgedAreForgottenBeyondTheBound() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    BatchingController controller =
        new BatchingController(BatchingPolicy.none(), () -> now, registry);
    for (int i = 0; i < BatchingController.MAX_PENDING_FLUSHES * 2; i++) {
      controller.flushed(++seq);
    }
    now += 1_000;
    controller.acked(seq);
    assertThat(registry.get("zoolander.repeater.batch.latency").timer().count())
        .isEqualTo(BatchingController.MAX_PENDING_FLUSHES);
    batch(controller, 1, 500); // still measures
    assertThat(registry.get("zoolander.repeater.batch.latency").timer().count())
        .isEqualTo(BatchingController.MAX_PENDING_FLUSHES + 1);
  }

  @Test
  void policiesValidateAndParse() {
    assertThat(BatchingPolicy.parse("adaptive")).isSameAs(BatchingPolicy.adaptive());
    assertThat(BatchingPolicy.parse(" none ")).isSameAs(BatchingPolicy.none());
    assertThat(BatchingPolicy.parse("0")).isSameAs(BatchingPolicy.none());
    assertThat(BatchingPolicy.parse("5000").intervalMicros()).isEqualTo(5_000);
    assertThat(BatchingPolicy.adaptive().kind()).isEqualTo(BatchingPolicy.Kind.ADAPTIVE);
    assertThatThrownBy(() -> BatchingPolicy.parse("soon"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("batching");
    assertThatThrownBy(() -> BatchingPolicy.fixed(BatchingPolicy.MAX_INTERVAL_MICROS + 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("intervalMicros");
    assertThatThrownBy(() -> BatchingPolicy.builder().backoffFactor(1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("backoffFactor");
    assertThatThrownBy(() -> BatchingPolicy.builder().accelerateFactor(1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("accelerateFactor");
    assertThatThrownBy(() -> BatchingPolicy.builder().tolerance(-0.1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("tolerance");
    assertThatThrownBy(
            () -> BatchingPolicy.builder().minIntervalMicros(500).maxIntervalMicros(100).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("minIntervalMicros");
    assertThatThrownBy(() -> BatchingPolicy.builder().minIntervalMicros(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("minIntervalMicros");
    assertThat(BatchingPolicy.adaptive().intervalMicros())
        .isEqualTo(BatchingPolicy.adaptive().minIntervalMicros())
        .isEqualTo(BatchingPolicy.DEFAULT_ADAPTIVE_MIN_INTERVAL_MICROS);
    assertThatThrownBy(() -> BatchingPolicy.parse(null)).isInstanceOf(NullPointerException.class);
  }
}
