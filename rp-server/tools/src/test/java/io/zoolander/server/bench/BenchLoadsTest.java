package io.zoolander.server.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zoolander.server.workload.ClosedLoopLoad;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The closed loop of {@code --write-saturation} and the Netty loopback round trip, bounded by count
 * (their time bounds are generous): what they count, never how fast.
 */
class BenchLoadsTest {

  @Test
  @Timeout(value = 1, unit = TimeUnit.MINUTES)
  void theClosedLoopStopsAtItsCountAndCountsFailures() throws Exception {
    AtomicInteger inFlight = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    ClosedLoopLoad.Result r =
        ClosedLoopLoad.run(
            k -> {
              most.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
              CompletableFuture<Integer> f =
                  k % 10 == 0
                      ? CompletableFuture.failedFuture(new IllegalStateException("no"))
                      : CompletableFuture.supplyAsync(() -> k);
              return f.whenComplete((v, e) -> inFlight.decrementAndGet());
            },
            4,
            Duration.ZERO,
            Duration.ofMinutes(5),
            1_000,
            Duration.ofSeconds(30));
    assertThat(r.completed()).isEqualTo(1_000);
    assertThat(r.failed()).isEqualTo(100);
    assertThat(r.histogram().getTotalCount()).isEqualTo(900);
    assertThat(r.outstanding()).isEqualTo(4);
    assertThat(most.get()).isBetween(1, 4);
    assertThat(r.throughputPerSec()).isPositive();
  }

  @Test
  @Timeout(value = 1, unit = TimeUnit.MINUTES)
  void anAccessThatThrowsIsAFailureNotACrash() throws Exception {
    ClosedLoopLoad.Result r =
        ClosedLoopLoad.run(
            k -> {
              throw new IllegalStateException("refused");
            },
            2,
            Duration.ZERO,
            Duration.ofMinutes(5),
            50,
            Duration.ofSeconds(30));
    assertThat(r.completed()).isEqualTo(50);
    assertThat(r.failed()).isEqualTo(50);
    assertThat(r.histogram().getTotalCount()).isZero();
  }

  @Test
  void badBoundsAreRefused() {
    assertThatThrownBy(
            () ->
                ClosedLoopLoad.run(
                    k -> CompletableFuture.completedFuture(k),
                    0,
                    Duration.ZERO,
                    Duration.ofSeconds(1),
                    1,
                    Duration.ofSeconds(1)))
        .hasMessageContaining("outstanding must be >= 1");
    assertThatThrownBy(
            () -> LoopbackRoundTrip.measure(Duration.ZERO, Duration.ofSeconds(1), 10, 1, 4))
        .hasMessageContaining("frame bytes must be in 8..65536");
  }

  @Test
  @Timeout(value = 1, unit = TimeUnit.MINUTES)
  void theLoopbackRoundTripRecordsEveryEchoedFrameUpToItsCount() throws Exception {
    LoopbackRoundTrip.Result r =
        LoopbackRoundTrip.measure(Duration.ZERO, Duration.ofMinutes(5), 500, 3, 64);
    assertThat(r.roundTrips()).isEqualTo(500);
    assertThat(r.histogram().getTotalCount()).isEqualTo(500);
    assertThat(r.outstanding()).isEqualTo(3);
    assertThat(r.frameBytes()).isEqualTo(64);
    assertThat(r.ms(50)).isPositive().isLessThanOrEqualTo(r.ms(99));
    assertThat(r.ratePerSec()).isZero();
    assertThat(
            BenchReport.loopbackMarkdown(
                java.util.Optional.of(r), java.util.Optional.empty(), java.util.Optional.empty()))
        .contains("## Netty loopback round trip", "| closed loop, 3 outstanding, ")
        .contains("| 500 round trips of 64 bytes |")
        .doesNotContain("paced");
  }

  /**
   * Paced, the frames go out at the rate asked, whether echoes are back or not: 100 round trips at
   * 200/s cannot be recorded in less than the 99 periods between their sends.
   */
  @Test
  @Timeout(value = 1, unit = TimeUnit.MINUTES)
  void thePacedLoopbackRoundTripSendsAtItsRate() throws Exception {
    long start = System.nanoTime();
    LoopbackRoundTrip.Result r =
        LoopbackRoundTrip.measurePaced(Duration.ZERO, Duration.ofMinutes(5), 100, 200, 64);
    double elapsedSeconds = (System.nanoTime() - start) / 1e9;
    assertThat(r.roundTrips()).isEqualTo(100);
    assertThat(r.histogram().getTotalCount()).isEqualTo(100);
    assertThat(r.ratePerSec()).isEqualTo(200);
    assertThat(r.outstanding()).isZero();
    assertThat(elapsedSeconds).isGreaterThanOrEqualTo(99 / 200.0);
    assertThat(r.ms(50)).isPositive().isLessThanOrEqualTo(r.ms(99));
    assertThat(
            BenchReport.loopbackMarkdown(
                java.util.Optional.empty(), java.util.Optional.of(r), java.util.Optional.empty()))
        .contains("| paced at 200/s, ")
        .contains("| 100 round trips of 64 bytes |");
    assertThatThrownBy(
            () -> LoopbackRoundTrip.measurePaced(Duration.ZERO, Duration.ofSeconds(1), 10, 0, 64))
        .hasMessageContaining("ratePerSec must be in 1..100000");
  }
}
