package io.zoolander.server.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.zoolander.server.bench.DiurnalBench.Outcome;
import io.zoolander.server.bench.DiurnalBench.Settings;
import io.zoolander.server.testing.ServerMode;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The diurnal bench's schedule, its choice of the best static configuration, and the structure of
 * its report from a tiny day (not its speeds).
 */
class DiurnalBenchTest {
  @TempDir Path dir;

  private static Settings settings(int daySeconds, double peak, Path out) {
    return new Settings(1, 2, daySeconds, peak, 0.5, 10, 0.95, out, 7, ServerMode.IN_PROCESS);
  }

  @Test
  void theScheduleRisesAndFallsAndIsTheSameForTheSameSeed() {
    Settings s = settings(100, 200, null);
    List<DiurnalBench.Arrival> arrivals = DiurnalBench.schedule(s);
    assertThat(DiurnalBench.schedule(s)).isEqualTo(arrivals);
    long[] perTenth = new long[10];
    for (DiurnalBench.Arrival a : arrivals) {
      perTenth[(int) (a.offsetNanos() / TimeUnit.SECONDS.toNanos(10))]++;
    }
    // Expected: about 10 s x 200/s x the mean rate fraction of each tenth of the day.
    assertThat(perTenth[0]).isBetween(150L, 450L);
    assertThat(perTenth[4] + perTenth[5]).isBetween(3_200L, 4_400L);
    assertThat(perTenth[9]).isBetween(150L, 450L);
    assertThat(arrivals)
        .isSortedAccordingTo((a, b) -> Long.compare(a.offsetNanos(), b.offsetNanos()));
    assertThat(arrivals.stream().filter(DiurnalBench.Arrival::read).count())
        .isBetween((long) (0.45 * arrivals.size()), (long) (0.55 * arrivals.size()));
    assertThat(DiurnalBench.rateFraction(0)).isCloseTo(DiurnalBench.NIGHT_FRACTION, within(1e-9));
    assertThat(DiurnalBench.rateFraction(0.5)).isCloseTo(1, within(1e-9));
    assertThat(DiurnalBench.schedule(settings(3_600, 20_000, null)))
        .hasSize(DiurnalBench.MAX_ACCESSES);
    assertThat(DiurnalBench.anomalies(s))
        .allSatisfy(
            a -> {
              assertThat(a.startNanos()).isLessThan(a.endNanos());
              assertThat(a.endNanos()).isLessThan(TimeUnit.SECONDS.toNanos(100));
              assertThat(a.settings()).contains("delayMs=40", "applies=both");
            });
  }

  @Test
  void theBestStaticConfigurationUsesNoMoreNodeSecondsThanTheController() {
    Outcome controller = outcome("controller", 3, 90);
    Outcome one = outcome("static 1", 10, 60);
    Outcome two = outcome("static 2", 2, 120);
    assertThat(DiurnalBench.bestStatic(List.of(controller, one, two))).isEqualTo(one);
    Outcome cheapTwo = outcome("static 2", 10, 50);
    assertThat(DiurnalBench.bestStatic(List.of(controller, one, cheapTwo))).isEqualTo(cheapTwo);
    assertThat(DiurnalBench.bestStatic(List.of(outcome("controller", 0, 10), one))).isNull();
  }

  @Test
  void settingsOutOfRangeAreRefusedNamingThem() {
    assertThatThrownBy(
            () -> new Settings(2, 1, 60, 100, 0.5, 10, 0.95, null, 1, ServerMode.IN_PROCESS))
        .hasMessageContaining("maximum duplicates");
    assertThatThrownBy(
            () -> new Settings(1, 2, 3, 100, 0.5, 10, 0.95, null, 1, ServerMode.IN_PROCESS))
        .hasMessageContaining("day seconds");
    assertThatThrownBy(
            () -> new Settings(1, 2, 60, 100, 0, 10, 0.95, null, 1, ServerMode.IN_PROCESS))
        .hasMessageContaining("read fraction");
    assertThatThrownBy(
            () -> new Settings(1, 2, 60, 100, 0.5, 10, 1, null, 1, ServerMode.IN_PROCESS))
        .hasMessageContaining("target");
  }

  @Test
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  void aTinyDayReportsEveryConfiguration() throws Exception {
    StringWriter console = new StringWriter();
    List<Outcome> outcomes =
        new DiurnalBench(settings(4, 40, dir), new PrintWriter(console, true))
            .run("zoolander bench --diurnal");
    assertThat(outcomes)
        .extracting(Outcome::name)
        .containsExactly("controller", "static 1", "static 2");
    for (Outcome o : outcomes) {
      assertThat(o.windows()).as(o.name()).isBetween(1L, 4L);
      assertThat(o.violations()).as(o.name()).isBetween(0L, o.windows());
      assertThat(o.reads() + o.writes())
          .as(o.name())
          .isEqualTo(outcomes.get(0).reads() + outcomes.get(0).writes());
      assertThat(o.readsWithinTau()).as(o.name()).isBetween(0L, o.reads());
      // Every read sent (not dropped at the in-flight bound) sent one request at least.
      assertThat(o.readRequests()).as(o.name()).isGreaterThanOrEqualTo(o.reads() - o.dropped());
    }
    // Node-seconds are sampled every 100 ms over the day.
    assertThat(outcomes.get(1).nodeSeconds()).isCloseTo(4, within(0.5));
    assertThat(outcomes.get(2).nodeSeconds()).isCloseTo(8, within(1.0));
    assertThat(outcomes.get(0).nodeSeconds()).isBetween(3.5, 8.5);

    String md = Files.readString(dir.resolve("diurnal.md"), StandardCharsets.UTF_8);
    assertThat(md)
        .startsWith("`zoolander bench --diurnal`")
        .contains(
            "| configuration | SLO violations (windows) | node-seconds | reads within tau |"
                + " requests per read |")
        .contains("| controller |", "| static 1 |", "| static 2 |");
    assertThat(md)
        .containsAnyOf(
            "Best static configuration at no more node-seconds", "No static configuration");
    String json = Files.readString(dir.resolve("diurnal.json"), StandardCharsets.UTF_8);
    assertThat(json)
        .contains("\"configurations\": [", "\"name\": \"controller\"", "\"name\": \"static 2\"")
        .contains("\"violations\": ", "\"nodeSeconds\": ", "\"bestStaticAtNoMoreNodeSeconds\": ");
    assertThat(console.toString()).contains("wrote ");
  }

  private static Outcome outcome(String name, long violations, double nodeSeconds) {
    return new Outcome(name, 60, violations, nodeSeconds, 100, 90, 100, 0, 0, 0, 0, 100, 0);
  }
}
