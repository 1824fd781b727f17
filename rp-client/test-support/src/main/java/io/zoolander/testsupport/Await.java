package io.zoolander.testsupport;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The one way the project's tests wait for a condition: polling, with a deadline scaled by {@link
 * Timing}.
 *
 * <pre>{@code
 * await(Duration.ofSeconds(10), "duplicate 2 fenced", () -> repeater.duplicate(2).fenced());
 * await(WAIT, "both streaming", () -> allStreaming(), () -> repeater.duplicates());
 * }</pre>
 *
 * The condition is polled at once, then after 1, 2, 4, ... ms, at most every {@value
 * #MAX_POLL_MILLIS} ms. A {@link RuntimeException} it throws counts as "not yet" (a znode or an
 * MBean not there yet); the last one is the cause of the failure if the deadline passes. An {@link
 * Error} (a failed assertion) is not caught.
 */
public final class Await {
  /** The longest pause between two polls. */
  public static final long MAX_POLL_MILLIS = 20;

  private Await() {}

  /**
   * Waits until {@code condition} holds.
   *
   * @param timeout bound on the wait, before {@link Timing#scale() scaling}
   * @param what the condition, for the failure message
   * @throws AssertionError if it does not hold in time, or if the thread is interrupted (the
   *     interrupt is kept)
   */
  public static void await(Duration timeout, String what, BooleanSupplier condition) {
    await(timeout, what, condition, () -> "");
  }

  /**
   * Waits until {@code condition} holds.
   *
   * @param timeout bound on the wait, before {@link Timing#scale() scaling}
   * @param what the condition, for the failure message
   * @param diagnostics evaluated only on failure, appended to the message (for example the state
   *     the test looked at)
   * @throws AssertionError if it does not hold in time, or if the thread is interrupted (the
   *     interrupt is kept)
   */
  public static void await(
      Duration timeout, String what, BooleanSupplier condition, Supplier<?> diagnostics) {
    Objects.requireNonNull(condition, "condition");
    Duration bound = Timing.scaled(timeout);
    long deadline = System.nanoTime() + bound.toNanos();
    long pauseMillis = 1;
    RuntimeException last = null;
    while (true) {
      try {
        if (condition.getAsBoolean()) {
          return;
        }
      } catch (RuntimeException e) {
        last = e;
      }
      if (System.nanoTime() - deadline > 0) {
        AssertionError failure =
            new AssertionError(
                "not true after "
                    + bound.toMillis()
                    + " ms: "
                    + what
                    + (last == null ? "" : " (last attempt threw " + last + ")")
                    + "\n"
                    + describe(diagnostics));
        if (last != null) {
          failure.initCause(last);
        }
        throw failure;
      }
      try {
        TimeUnit.MILLISECONDS.sleep(pauseMillis);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted waiting for: " + what, e);
      }
      pauseMillis = Math.min(MAX_POLL_MILLIS, pauseMillis * 2);
    }
  }

  private static String describe(Supplier<?> diagnostics) {
    try {
      return String.valueOf(diagnostics.get());
    } catch (RuntimeException e) {
      return "(diagnostics failed: " + e + ")";
    }
  }
}
