package io.zoolander.server.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A short demo on a real embedded deployment: the table and the chart come out and hold sane
 * numbers.
 */
class DemoTest {
  @TempDir Path dir;

  private static DemoSettings settings(List<Integer> counts, Path chart) {
    return new DemoSettings(
        2, counts, 200, 0.8, 4, 1, Double.NaN, 64, 0.05, 5, "exponential", 0, 5, chart, false, 7);
  }

  @Test
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  void aShortDemoPrintsObservedBesidePredictedAndWritesTheChart() throws Exception {
    StringWriter text = new StringWriter();
    Demo.Outcome outcome =
        new Demo(settings(List.of(1, 2), dir.resolve("demo.png")), new PrintWriter(text)).run();
    assertThat(outcome.rows()).hasSize(2);
    assertThat(outcome.tauMs()).isPositive();
    assertThat(outcome.correlationAtTau()).isBetween(0.0, 1.0);
    for (Demo.Row row : outcome.rows()) {
      // 200/s for 4 s, half of it observed.
      assertThat(row.accesses()).isBetween(100L, 800L);
      assertThat(row.firstReplies().sampleCount()).isEqualTo(row.accesses());
      assertThat(row.observed()).isBetween(0.0, 1.0);
      assertThat(row.thesis()).isBetween(0.0, 1.0);
      assertThat(row.predicted()).isBetween(0.0, 1.0);
      assertThat(row.low()).isLessThanOrEqualTo(row.predicted());
      assertThat(row.high()).isGreaterThanOrEqualTo(row.predicted());
      // A few hundred accesses calibrate and a few hundred are observed: not a point.
      assertThat(row.high() - row.low()).isPositive();
      assertThat(row.low999()).isLessThanOrEqualTo(row.low());
      assertThat(row.high999()).isGreaterThanOrEqualTo(row.high());
      assertThat(row.curve()).hasSize(Demo.CURVE_POINTS);
    }
    // The thesis prediction for one duplicate at its own p90 is 0.9 by construction, more
    // duplicates predict more.
    assertThat(outcome.rows().get(0).thesis()).isBetween(0.89, 0.91);
    assertThat(outcome.rows().get(1).thesis()).isGreaterThan(outcome.rows().get(0).thesis());
    // One duplicate at its own p90: the engine (no queueing added to the measured CDF) agrees.
    assertThat(outcome.rows().get(0).predicted()).isBetween(0.89, 0.91);
    assertThat(outcome.rows().get(1).predicted()).isGreaterThan(outcome.rows().get(0).predicted());
    // The output is the progress bar and the table, no log lines.
    assertThat(text.toString())
        .contains(
            "duplicates",
            "accesses",
            "observed",
            "predicted",
            "95% interval",
            "in 95%",
            "in 99.9",
            "thesis",
            "p99.9 ms")
        .contains("] 100% done")
        .doesNotContain("[demo]");
    Path chart = DemoChart.write(outcome, dir.resolve("demo.png"));
    assertThat(Files.size(chart)).isPositive();
    String json = Files.readString(DemoJson.write(outcome, dir.resolve("demo.json")));
    assertThat(json)
        .startsWith("{\n  \"tauMs\": ")
        .contains("\"rows\": [", "{\"duplicates\": 1, \"accesses\": ", "{\"duplicates\": 2, ")
        .contains(
            "\"observed\": ",
            "\"predicted\": ",
            "\"low\": ",
            "\"high\": ",
            "\"low999\": ",
            "\"high999\": ");
    // Every value but the rows is a plain number.
    assertThat(
            json.replace("\"rows\": [", "")
                .replaceAll("\"[a-zA-Z0-9]+\": -?[0-9.]+(e[-+][0-9]+)?", ""))
        .doesNotContain(":");
  }

  @Test
  void badSettingsNameTheProblem() {
    assertThatThrownBy(() -> settings(List.of(3), null).validate())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("every count must be in 1..2");
    assertThatThrownBy(
            () ->
                new DemoSettings(
                        2,
                        List.of(1),
                        -5,
                        0.8,
                        2,
                        1,
                        Double.NaN,
                        64,
                        0.05,
                        5,
                        "fixed",
                        0,
                        5,
                        null,
                        false,
                        7)
                    .validate())
        .hasMessageContaining("rate");
    assertThatThrownBy(
            () ->
                new DemoSettings(
                        2,
                        List.of(1),
                        10,
                        0.8,
                        2,
                        1,
                        Double.NaN,
                        64,
                        0.05,
                        5,
                        "gaussian",
                        0,
                        5,
                        null,
                        false,
                        7)
                    .validate())
        .hasMessageContaining("anomaly distribution");
  }
}
