package io.zoolander.server.cli;

import io.zoolander.model.SlaPrediction;

/** Shared checks and formatting of the model commands. */
final class Options {
  private Options() {}

  static double nonNegative(double value, String option) {
    if (!(value >= 0) || Double.isInfinite(value)) {
      throw new CliException(option + " must be a finite number >= 0, was " + value);
    }
    return value;
  }

  static double probability(double value, String option) {
    if (!(value > 0 && value < 1)) {
      throw new CliException(option + " must be in (0, 1), was " + value);
    }
    return value;
  }

  static String sla(SlaPrediction p) {
    return p.isStable() ? String.format("%.6f", p.sla()) : "unstable";
  }
}
