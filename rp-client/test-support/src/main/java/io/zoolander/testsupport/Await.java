package io.zoolander.testsupport;

import java.time.Duration;
import java.util.function.Supplier;

/** Waits for a condition, polling, with a deadline. Public for the tests of other packages. */
public final class Await {

  private Await() {}

  /**
   * @param timeout bound on the wait
   * @param what the condition, for the failure message
   * @param condition polled every 50 ms; an exception counts as false
   * @param diagnostics appended to the failure message
   */
  public static void until(
      Duration timeout, String what, Supplier<Boolean> condition, Supplier<String> diagnostics)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      try {
        if (Boolean.TRUE.equals(condition.get())) {
          return;
        }
      } catch (RuntimeException e) {
        // not yet
      }
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError(
            "Not true after " + timeout.toMillis() + " ms: " + what + "\n" + diagnostics.get());
      }
      Thread.sleep(50);
    }
  }
}
