package io.zoolander.server.repeater;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Waits for a condition with a deadline, polling every few milliseconds. */
final class Eventually {
  static final Duration DEFAULT = Duration.ofSeconds(10);

  private Eventually() {}

  static void await(String what, BooleanSupplier condition, Supplier<?> diagnostics) {
    await(DEFAULT, what, condition, diagnostics);
  }

  static void await(
      Duration timeout, String what, BooleanSupplier condition, Supplier<?> diagnostics) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError(
            "not true after " + timeout.toMillis() + " ms: " + what + "\n" + diagnostics.get());
      }
      try {
        Thread.sleep(2);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted waiting for: " + what, e);
      }
    }
  }
}
