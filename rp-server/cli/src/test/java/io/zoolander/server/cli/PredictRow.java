package io.zoolander.server.cli;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One row of {@code zoolander predict}'s table, parsed back from its output.
 *
 * @param duplicates the duplicate count
 * @param sla the engine's SLA
 * @param low the low end of its interval
 * @param high the high end of its interval
 * @param method exact or simulated
 * @param thesis the thesis baseline's SLA
 */
record PredictRow(
    int duplicates, double sla, double low, double high, String method, double thesis) {
  private static final Pattern ROW =
      Pattern.compile(
          "\\s*(\\d+)\\s+[0-9.]+\\s+([0-9.]+)\\s+([0-9.]+)\\.\\.([0-9.]+)\\s+\\S+\\s+(exact|simulated)\\s+([0-9.]+)");

  static List<PredictRow> parse(String out) {
    return out.lines()
        .map(ROW::matcher)
        .filter(Matcher::matches)
        .map(
            m ->
                new PredictRow(
                    Integer.parseInt(m.group(1)),
                    Double.parseDouble(m.group(2)),
                    Double.parseDouble(m.group(3)),
                    Double.parseDouble(m.group(4)),
                    m.group(5),
                    Double.parseDouble(m.group(6))))
        .toList();
  }
}
