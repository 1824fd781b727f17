package io.zoolander.wire;

/**
 * A source of monotonic time in nanoseconds, injected so time-driven behaviour (timeouts, the
 * adaptive read policy, latency windows) can be tested without sleeping. {@link #system()} in
 * production.
 */
@FunctionalInterface
public interface Ticker {
  long nanoTime();

  static Ticker system() {
    return System::nanoTime;
  }
}
