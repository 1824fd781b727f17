package io.zoolander.testsupport;

import java.time.Duration;

/**
 * Scales the tests' timeouts for slow machines, as Curator's {@code Timing} does: every bound the
 * test-support helpers wait for ({@link Await}, {@link ZooKeepers}, {@link ScriptedPeer}) is
 * multiplied by the system property {@value #PROPERTY} (default 1), for example {@code mvn test
 * -Dzoolander.test.timeScale=3} on a loaded CI runner. Only bounds are scaled, never a time a test
 * waits on purpose (a quiet period, a pause), so a larger scale makes tests no slower when they
 * pass.
 */
public final class Timing {
  /** The system property holding the scale factor, a number {@code >= 1}. */
  public static final String PROPERTY = "zoolander.test.timeScale";

  private Timing() {}

  /**
   * @return the scale factor: {@value #PROPERTY} if set, else 1
   * @throws IllegalArgumentException if the property is not a finite number {@code >= 1}
   */
  public static double scale() {
    String value = System.getProperty(PROPERTY);
    if (value == null || value.isBlank()) {
      return 1;
    }
    double scale;
    try {
      scale = Double.parseDouble(value.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(PROPERTY + " must be a number >= 1, was " + value, e);
    }
    if (!(scale >= 1) || Double.isInfinite(scale)) {
      throw new IllegalArgumentException(PROPERTY + " must be a finite number >= 1, was " + value);
    }
    return scale;
  }

  /**
   * @return {@code timeout} times {@link #scale()}
   */
  public static Duration scaled(Duration timeout) {
    double scale = scale();
    return scale == 1 ? timeout : Duration.ofNanos((long) (timeout.toNanos() * scale));
  }
}
