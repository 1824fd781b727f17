package io.zoolander.model.internal;

import java.util.Objects;

/**
 * Argument checks shared by the model. Internal: not part of the public API and may change without
 * notice.
 *
 * <p>Every message names the offending parameter so a caller sees at once which argument was wrong.
 */
public final class Preconditions {
  private Preconditions() {}

  public static <T> T checkNotNull(T value, String name) {
    return Objects.requireNonNull(value, () -> name + " must not be null");
  }

  /** A finite value {@code >= 0}. */
  public static double checkNonNegative(double value, String name) {
    if (!(value >= 0) || Double.isInfinite(value)) {
      throw new IllegalArgumentException(name + " must be a finite number >= 0, was " + value);
    }
    return value;
  }

  /** A finite value {@code > 0}. */
  public static double checkPositive(double value, String name) {
    if (!(value > 0) || Double.isInfinite(value)) {
      throw new IllegalArgumentException(name + " must be a finite number > 0, was " + value);
    }
    return value;
  }

  public static int checkPositive(int value, String name) {
    if (value <= 0) {
      throw new IllegalArgumentException(name + " must be > 0, was " + value);
    }
    return value;
  }

  /** A probability in {@code [0, 1]}. */
  public static double checkProbability(double value, String name) {
    if (!(value >= 0 && value <= 1)) {
      throw new IllegalArgumentException(name + " must be a probability in [0, 1], was " + value);
    }
    return value;
  }

  /** A probability in the open interval {@code (0, 1)}. */
  public static double checkOpenProbability(double value, String name) {
    if (!(value > 0 && value < 1)) {
      throw new IllegalArgumentException(name + " must be in (0, 1), was " + value);
    }
    return value;
  }

  /** Non-empty samples, every one finite and {@code >= 0}. */
  public static double[] checkSamples(double[] samples, String name) {
    checkNotNull(samples, name);
    if (samples.length == 0) {
      throw new IllegalArgumentException(name + " must not be empty");
    }
    for (int i = 0; i < samples.length; i++) {
      double s = samples[i];
      if (!(s >= 0) || Double.isInfinite(s)) {
        throw new IllegalArgumentException(
            name + "[" + i + "] must be a finite latency >= 0, was " + s);
      }
    }
    return samples;
  }

  /**
   * Paired samples {@code samples[access][duplicate]}: at least one row, at least two duplicates
   * per row, rows of equal length, every sample finite and {@code >= 0}.
   *
   * @return the number of duplicates per row
   */
  public static int checkPairedSamples(double[][] samples, String name) {
    checkNotNull(samples, name);
    if (samples.length == 0) {
      throw new IllegalArgumentException(name + " must not be empty");
    }
    int columns = checkNotNull(samples[0], name + "[0]").length;
    if (columns < 2) {
      throw new IllegalArgumentException(
          name + " needs at least 2 duplicates per row, had " + columns);
    }
    for (int r = 0; r < samples.length; r++) {
      double[] row = checkNotNull(samples[r], name + "[" + r + "]");
      if (row.length != columns) {
        throw new IllegalArgumentException(
            name + "[" + r + "] has " + row.length + " duplicates, expected " + columns);
      }
      for (int c = 0; c < columns; c++) {
        double v = row[c];
        if (!(v >= 0) || Double.isInfinite(v)) {
          throw new IllegalArgumentException(
              name + "[" + r + "][" + c + "] must be a finite latency >= 0, was " + v);
        }
      }
    }
    return columns;
  }
}
