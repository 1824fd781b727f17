package io.zoolander.server.cli;

import io.zoolander.model.SlaEstimate;
import io.zoolander.model.SlaPrediction;
import java.util.Locale;

/** Shared checks and formatting of the model commands. */
final class Options {
  private Options() {}

  static double nonNegative(double value, String option) {
    if (!(value >= 0) || Double.isInfinite(value)) {
      throw CliException.usage(option + " must be a finite number >= 0, was " + value);
    }
    return value;
  }

  static double probability(double value, String option) {
    if (!(value > 0 && value < 1)) {
      throw CliException.usage(option + " must be in (0, 1), was " + value);
    }
    return value;
  }

  static String sla(SlaPrediction p) {
    return p.isStable() ? String.format("%.6f", p.sla()) : "unstable";
  }

  static String sla(SlaEstimate e) {
    return e.isStable() ? String.format("%.6f", e.sla()) : "unstable";
  }

  /** The estimate's interval of the SLA, {@code low..high}; "-" when unstable. */
  static String interval(SlaEstimate e) {
    return e.isStable() ? String.format("%.6f..%.6f", e.low(), e.high()) : "-";
  }

  /** The miss ratio {@code 1 - SLA} in scientific notation; "-" when unstable. */
  static String miss(SlaEstimate e) {
    return e.isStable() ? String.format("%.2e", e.missRatio()) : "-";
  }

  /** How the engine computed it, in lower case: exact, simulated, unstable. */
  static String method(SlaEstimate e) {
    return e.method().name().toLowerCase(Locale.ROOT);
  }
}
