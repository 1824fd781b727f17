package io.zoolander.server.internal.repeater;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.zoolander.wire.Message;
import io.zoolander.wire.NameRoutes;
import io.zoolander.wire.Op;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class NameWriteRatesTest {
  private static final long WINDOW_MS = 1_000;
  private static final long WINDOW_NANOS = WINDOW_MS * 1_000_000;
  private static final byte[] DATA = "x".getBytes(StandardCharsets.UTF_8);

  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

  @Test
  void eachWriteCountsOncePerNameItTouchesOverTheLastCompleteWindow() {
    NameWriteRates rates = new NameWriteRates(nanos::get, WINDOW_MS, 1, 1);
    assertThat(rates.rates()).as("no window completed yet").isEmpty();
    for (int i = 0; i < 500; i++) { // 1 ms apart: the window holds 500 writes in 0.5 s...
      rates.sequenced(
          i % 5 == 0
              ? write(Op.create("/users/" + i, DATA), Op.create("/orders/" + i, DATA))
              : write(Op.setData("/users/" + i, DATA, -1), Op.create("/users/" + i + "/x", DATA)));
      nanos.addAndGet(1_000_000);
    }
    nanos.addAndGet(WINDOW_NANOS / 2); // ...and lasts 1 s
    rates.sequenced(write(Op.setData("/later", DATA, -1))); // ends the window
    Map<String, Double> r = rates.rates();
    assertThat(r.keySet()).as("highest first").containsExactly("users", "orders");
    assertThat(r.get("users")).isCloseTo(500.0, within(1e-9));
    assertThat(r.get("orders")).isCloseTo(100.0, within(1e-9));
  }

  @Test
  void theFirstWindowOpensAtTheFirstWriteNotWhenTheRepeaterStarted() {
    NameWriteRates rates = new NameWriteRates(nanos::get, WINDOW_MS, 1, 1);
    nanos.addAndGet(WINDOW_NANOS * 9 / 10); // most of a window without writes
    for (int i = 0; i < 200; i++) { // then 200 writes/s for one window
      rates.sequenced(write(Op.setData("/a", DATA, -1)));
      nanos.addAndGet(WINDOW_NANOS / 200);
    }
    rates.sequenced(write(Op.setData("/a", DATA, -1))); // ends the window
    assertThat(rates.rates().get("a")).isCloseTo(200.0, within(1e-9));
  }

  @Test
  void sampledCountsAreScaledBackWithoutAliasingAPeriodicWorkload() {
    NameWriteRates rates = new NameWriteRates(nanos::get, WINDOW_MS, 8, 42);
    int writes = 16_000; // alternating /a and /b: every 8th write would count only one of them
    for (int i = 0; i < writes; i++) {
      rates.sequenced(write(Op.setData(i % 2 == 0 ? "/a" : "/b", DATA, -1)));
    }
    nanos.addAndGet(WINDOW_NANOS);
    rates.sequenced(write(Op.setData("/a", DATA, -1)));
    // Each estimate is 8 x Binomial(8000, 1/8): standard deviation 8 x sqrt(875) = 237.
    assertThat(rates.rates().get("a")).isCloseTo(8_000.0, within(4 * 237.0));
    assertThat(rates.rates().get("b")).isCloseTo(8_000.0, within(4 * 237.0));
  }

  @Test
  void aSlowStreamKeepsItsRatesBetweenWritesAndTheyGoStaleOnceTheWritesStop() {
    NameWriteRates rates = new NameWriteRates(nanos::get, WINDOW_MS, 1, 1);
    for (int i = 0; i < 100; i++) {
      rates.sequenced(write(Op.setData("/a", DATA, -1)));
      nanos.addAndGet(WINDOW_NANOS / 100);
    }
    rates.sequenced(write(Op.setData("/a", DATA, -1)));
    assertThat(rates.rates()).containsOnlyKeys("a");
    // One write every 0.6 windows: a window closes only at the write after its end, 1.2 windows
    // after the last closed; just before that write, the last window still stands.
    for (int i = 0; i < 10; i++) {
      nanos.addAndGet(WINDOW_NANOS * 6 / 10 - 1);
      assertThat(rates.rates()).as("before write %d", i).containsOnlyKeys("a");
      nanos.addAndGet(1);
      rates.sequenced(write(Op.setData("/a", DATA, -1)));
    }
    nanos.addAndGet(2 * WINDOW_NANOS + 1);
    assertThat(rates.rates()).as("the next window a whole window overdue").isEmpty();
  }

  @Test
  void namesBeyondTheLimitAreCountedTogether() {
    NameWriteRates rates = new NameWriteRates(nanos::get, WINDOW_MS, 1, 1);
    for (int i = 0; i < NameWriteRates.MAX_NAMES + 100; i++) {
      rates.sequenced(write(Op.create("/n" + i, DATA)));
    }
    nanos.addAndGet(WINDOW_NANOS);
    rates.sequenced(write(Op.setData("/a", DATA, -1)));
    assertThat(rates.rates()).hasSize(NameWriteRates.MAX_NAMES + 1);
    assertThat(rates.rates().get(NameRoutes.OTHER_NAMES)).isCloseTo(100.0, within(1e-9));
  }

  private static long requestIds;

  private static Message.Write write(Op... ops) {
    return new Message.Write(1, ++requestIds, List.of(ops));
  }
}
