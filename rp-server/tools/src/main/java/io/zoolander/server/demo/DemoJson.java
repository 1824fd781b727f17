package io.zoolander.server.demo;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * The demo's table as JSON, for scripts and for {@code docs/validation.md}: {@code {"tauMs": ...,
 * "rows": [{"duplicates": 1, "accesses": ..., "observed": ..., "predicted": ..., "low": ...,
 * "high": ..., "low999": ..., "high999": ..., "thesis": ...}, ...]}} (the observed accesses and
 * their SLA at tau, the engine's prediction with the 95% and 99.9% intervals of the observation,
 * the thesis baseline). A value that is not a number is written as {@code null}.
 */
public final class DemoJson {
  private DemoJson() {}

  /** The JSON text of {@code outcome}. */
  public static String json(Demo.Outcome outcome) {
    StringBuilder b = new StringBuilder();
    b.append("{\n  \"tauMs\": ").append(number(outcome.tauMs()));
    b.append(",\n  \"correlationAtTau\": ").append(number(outcome.correlationAtTau()));
    b.append(",\n  \"rows\": [");
    for (int i = 0; i < outcome.rows().size(); i++) {
      Demo.Row r = outcome.rows().get(i);
      b.append(i == 0 ? "\n" : ",\n")
          .append("    {\"duplicates\": ")
          .append(r.duplicates())
          .append(", \"accesses\": ")
          .append(r.accesses())
          .append(", \"observed\": ")
          .append(number(r.observed()))
          .append(", \"predicted\": ")
          .append(number(r.predicted()))
          .append(", \"low\": ")
          .append(number(r.low()))
          .append(", \"high\": ")
          .append(number(r.high()))
          .append(", \"low999\": ")
          .append(number(r.low999()))
          .append(", \"high999\": ")
          .append(number(r.high999()))
          .append(", \"thesis\": ")
          .append(number(r.thesis()))
          .append('}');
    }
    b.append("\n  ]\n}\n");
    return b.toString();
  }

  /** Writes {@link #json} to {@code file} and returns it. */
  public static Path write(Demo.Outcome outcome, Path file) throws IOException {
    Files.writeString(file, json(outcome), StandardCharsets.UTF_8);
    return file;
  }

  private static String number(double v) {
    return Double.isFinite(v) ? String.format(Locale.ROOT, "%.6g", v) : "null";
  }
}
