package io.zoolander.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/** Waits for a condition of the client tests, polling, with a deadline. */
final class Await {

  /**
   * Bound on every wait: far beyond what the conditions take, so only a real failure reaches it.
   */
  private static final long TIMEOUT_SECONDS = 20;

  private Await() {}

  /**
   * Polls {@code condition} every 5 ms until it holds; fails the test after {@value
   * #TIMEOUT_SECONDS} s.
   */
  static void await(BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime())
          .as("condition not met in %d s", TIMEOUT_SECONDS)
          .isLessThan(deadline);
      Thread.sleep(5);
    }
  }
}
