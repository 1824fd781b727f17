package io.zoolander.server.tools;

import static io.zoolander.server.tools.CliRun.run;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code zoolander bench} end to end on a real (small) embedded deployment with tiny counts: the
 * JSON, the Markdown and the charts come out and hold sane values. No speed is asserted. Bad flags
 * are one line and a non-zero exit.
 */
class BenchCommandTest {
  private static final String NUMBER = "(-?[0-9.]+(?:[eE][+-]?[0-9]+)?|null)";
  private static final List<String> SYSTEMS =
      List.of(
          "plain", "balanced", "hedged", "hedged-p50", "hedged-p90", "rp-1", "rp-2", "rp-2-hedged");

  @TempDir Path dir;

  private static List<Double> numbers(String json, String key) {
    Matcher m = Pattern.compile("\"" + key + "\": " + NUMBER).matcher(json);
    List<Double> values = new ArrayList<>();
    while (m.find()) {
      values.add(m.group(1).equals("null") ? Double.NaN : Double.parseDouble(m.group(1)));
    }
    return values;
  }

  @Test
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  void aQuickRunWritesJsonMarkdownAndChartsWithEverySystemInBothConditions() throws Exception {
    Path out = dir.resolve("results");
    CliRun r =
        run("bench", "--quick", "--duplicates", "2", "--rp-counts", "1,2", "--out", out.toString());
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out())
        .contains("results go to " + out.toAbsolutePath(), "wrote " + out.resolve("bench.json"));

    String json = Files.readString(out.resolve("bench.json"), StandardCharsets.UTF_8);
    String runs = json.substring(json.indexOf("\"systems\": ["), json.indexOf("\"heap\": {"));
    for (String system : SYSTEMS) {
      assertThat(runs.split("\"system\": \"" + system + "\",", -1))
          .as(system + " off and on")
          .hasSize(3);
    }
    assertThat(json).contains("\"heap\": {\n    \"system\": \"rp-2\",");
    assertThat(json).as("--quick: no JIT warm-up").contains("\"jitWarmup\": null");
    assertThat(numbers(json, "anomalies")).isEmpty(); // booleans, not numbers
    assertThat(json).contains("\"anomalies\": false", "\"anomalies\": true");
    assertThat(numbers(json, "tauMs"))
        .hasSize(2 * SYSTEMS.size())
        .allSatisfy(t -> assertThat(t).isPositive());
    assertThat(numbers(json, "off")).singleElement().satisfies(t -> assertThat(t).isPositive());
    assertThat(numbers(json, "on")).singleElement().satisfies(t -> assertThat(t).isPositive());
    // every run and the heap phase completed accesses
    assertThat(numbers(json, "achievedRatePerSec"))
        .hasSize(2 * SYSTEMS.size() + 1)
        .allSatisfy(a -> assertThat(a).isPositive());
    // reads and writes of every run: percentiles in order, up to the maximum
    Matcher percentiles =
        Pattern.compile(
                "\"p50Ms\": "
                    + NUMBER
                    + ",\\s*\"p90Ms\": "
                    + NUMBER
                    + ",\\s*\"p99Ms\": "
                    + NUMBER
                    + ",\\s*\"p999Ms\": "
                    + NUMBER
                    + ",\\s*\"maxMs\": "
                    + NUMBER)
            .matcher(json);
    int latencies = 0;
    while (percentiles.find()) {
      latencies++;
      double previous = 0;
      for (int g = 1; g <= 5; g++) {
        double v = Double.parseDouble(percentiles.group(g));
        assertThat(v).isGreaterThanOrEqualTo(previous);
        previous = v;
      }
    }
    assertThat(latencies).isEqualTo(2 * 2 * SYSTEMS.size());
    assertThat(numbers(json, "missFraction")).allSatisfy(f -> assertThat(f).isBetween(0.0, 1.0));
    // counted messages per read: one for plain and balanced; one, plus at most one hedge, for
    // hedged; at least one
    // per duplicate asked for RP (a read retried on a slow duplicate adds more: how many depends on
    // the machine's load)
    List<Double> perRead = numbers(json, "messagesPerRead");
    assertThat(perRead).hasSize(2 * SYSTEMS.size());
    for (int i = 0; i < perRead.size(); i++) {
      String system = SYSTEMS.get(i % SYSTEMS.size());
      double messages = perRead.get(i);
      switch (system) {
        case "plain", "balanced" -> assertThat(messages).as(system).isEqualTo(1.0);
        case "hedged", "hedged-p50", "hedged-p90" ->
            assertThat(messages).as(system).isBetween(1.0, 2.0);
        case "rp-1", "rp-2-hedged" -> assertThat(messages).as(system).isGreaterThanOrEqualTo(1.0);
        case "rp-2" -> assertThat(messages).as(system).isGreaterThanOrEqualTo(2.0);
        default -> throw new AssertionError("unexpected system " + system);
      }
    }
    assertThat(numbers(json, "clientMaxBytes"))
        .singleElement()
        .satisfies(b -> assertThat(b).isPositive());
    assertThat(numbers(json, "repeaterMaxBytes"))
        .singleElement()
        .satisfies(b -> assertThat(b).isPositive());

    String md = Files.readString(out.resolve("bench.md"), StandardCharsets.UTF_8);
    assertThat(md)
        .contains(
            "## Reads, anomaly injector off",
            "## Reads, anomaly injector on",
            "## Writes",
            "## Tail at tau",
            "## Miss rate by tau, anomaly injector off",
            "## Miss rate by tau, anomaly injector on",
            "## Cost/benefit frontier",
            "| off | plain p90 = ",
            "| on | plain p99.9 = ",
            "## Netty loopback round trip",
            "## Heap under sustained load");
    for (String system : SYSTEMS) {
      assertThat(md).contains("| " + system + " |");
    }
    // the miss rate at plain's p50, p90, p99, p99.9 for every system in both conditions
    assertThat(
            md.lines()
                .filter(
                    l ->
                        l.matches("\\| [a-z0-9-]+ \\| [0-9.]+ \\|( [0-9.]+% \\([0-9]+\\) \\|){4}")))
        .hasSize(2 * SYSTEMS.size());
    // the loopback round trip, closed loop, paced at the bench's rate and at its write rate, and
    // the write overhead judged against it
    assertThat(numbers(json, "rttP50Ms")).hasSize(3).allSatisfy(t -> assertThat(t).isPositive());
    assertThat(md)
        .contains("| closed loop, 1 outstanding, ")
        .contains("| paced at ")
        .contains("| paced at the write rate, ")
        .contains("## Write overhead against its floor (injector off)")
        .containsPattern("\\| rp-1 \\| [0-9.]+ \\| [0-9.]+x \\| (yes|no) / (yes|no) \\|");
    // the targets with their intervals: rp-1's reads (2), each unhedged rp-N's writes (3 each),
    // rp-2's misses at tau against plain and the best hedged system (2)
    assertThat(md)
        .contains("## The data path's targets, with 95% intervals")
        .containsPattern(
            "\\| `rp-1` read p50 <= 1.15x plain's \\| [0-9.]+ ms \\| .* \\| [a-z* ]+ \\|");
    assertThat(json.split("\"verdict\": ", -1)).hasSize(1 + 2 + 2 * 3 + 2);
    assertThat(json.split("\"verdict\": \"(met|not met|undecided)\"", -1)).hasSize(1 + 10);
    assertThat(json.split("\"onFrontier\": ", -1)).hasSize(1 + 2 * 3 * SYSTEMS.size());
    assertThat(numbers(json, "miss")).allSatisfy(f -> assertThat(f).isBetween(0.0, 1.0));
    assertThat(json.split("\"misses\": \\[", -1)).hasSize(1 + 2 * SYSTEMS.size());
    assertThat(numbers(json, "hedgeDelayMs").stream().filter(d -> !d.isNaN()))
        .hasSize(2 * 3)
        .allSatisfy(d -> assertThat(d).isPositive());
    for (String png :
        List.of(
            "latency-off.png",
            "latency-on.png",
            "miss-rate.png",
            "miss-vs-tau-off.png",
            "miss-vs-tau-on.png",
            "frontier-off.png",
            "frontier-on.png")) {
      byte[] bytes = Files.readAllBytes(out.resolve(png));
      assertThat(bytes.length).as(png).isGreaterThan(1_000);
      assertThat(new String(bytes, 1, 3, StandardCharsets.US_ASCII)).as(png).isEqualTo("PNG");
    }
  }

  @Test
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  void withOneDuplicateTheRunComparesPlainAndZoolanderAlone() throws Exception {
    // Issue 17's targets at N = 1: nothing to spread or hedge over, so only plain and rp-1 run.
    Path out = dir.resolve("one");
    CliRun r =
        run(
            "bench",
            "--quick",
            "--duplicates",
            "1",
            "--rp-counts",
            "1",
            "--heap-seconds",
            "0",
            "--jit-warmup-max-seconds",
            "1",
            "--out",
            out.toString());
    assertThat(r.exit()).as(r.err()).isZero();
    String json = Files.readString(out.resolve("bench.json"), StandardCharsets.UTF_8);
    assertThat(json)
        .as("one 2-s turn through Zoolander and plain reaches the 1-s bound, quiet or not")
        .containsPattern(
            "\"jitWarmup\": \\{\\s*\"turns\": 1,\\s*\"seconds\": [0-9.]+,\\s*\"quiet\": false,"
                + "\\s*\"lastTurnShare\": [0-9.]+");
    Matcher names = Pattern.compile("\"system\": \"([a-z0-9-]+)\",").matcher(json);
    List<String> systems = new ArrayList<>();
    while (names.find()) {
      systems.add(names.group(1));
    }
    assertThat(systems).containsOnly("plain", "rp-1").contains("plain", "rp-1");
    assertThat(numbers(json, "achievedRatePerSec"))
        .hasSize(2 * 2)
        .allSatisfy(a -> assertThat(a).isPositive());
    String md = Files.readString(out.resolve("bench.md"), StandardCharsets.UTF_8);
    assertThat(md).contains("## Writes", "| plain |", "| rp-1 |").doesNotContain("| hedged |");
    assertThat(md)
        .containsPattern(
            "warm-up through each path, then 1-s turns through each until the JIT compilers were"
                + " quiet: JIT still busy at the bound after [0-9]+ s \\(1 turn;");
  }

  @Test
  void badFlagsAreOneLineAndANonZeroExit() {
    // Flag values out of range are usage errors: exit 2, one line, then where the help is.
    assertThat(run("bench", "--rate", "-5").usageError())
        .isEqualTo("zoolander: rate must be in (0, 100000] per second, was -5.0");
    assertThat(run("bench", "--duplicates", "0").usageError())
        .isEqualTo("zoolander: duplicates must be in 1..8, was 0");
    assertThat(run("bench", "--duplicates", "2", "--rp-counts", "1,4").usageError())
        .contains("every rp count must be in 1..2");
    assertThat(run("bench", "--anomaly", "probability=2").usageError())
        .contains("anomaly: probability must be in 0..1");
    assertThat(run("bench", "--jvm-warmup-accesses", "-1").usageError())
        .isEqualTo("zoolander: JVM warm-up accesses must be in 0..10000000, was -1");
    assertThat(run("bench", "--balance", "zigzag").usageError())
        .contains("balance must be round-robin or random");
    assertThat(run("bench", "--repeater-setting", "clientIoThread=0").usageError())
        .contains("unknown repeater setting clientIoThread (did you mean clientIoThreads?)");
    assertThat(run("bench", "--repeater-setting", "clientPort=7000").usageError())
        .contains("repeater setting clientPort is set by the bench itself");
    assertThat(
            run("bench", "--write-saturation", "--repeater-setting", "duplicate.9=x").usageError())
        .contains("repeater setting duplicate.9 is set by the bench itself");
    CliRun notANumber = run("bench", "--seconds", "ten");
    assertThat(notANumber.exit()).isEqualTo(2);
    assertThat(notANumber.err()).contains("--seconds");
    CliRun help = run("bench", "--help");
    assertThat(help.exit()).isZero();
    assertThat(help.out())
        .contains(
            "--quick",
            "--rate",
            "--anomaly",
            "--heap-rate",
            "--out",
            "--write-saturation",
            "--outstanding",
            "--loopback-seconds",
            "--frontier-hedge-percentiles");
    assertThat(run("bench", "--frontier-hedge-percentiles", "50,soon").usageError())
        .contains("frontier hedge percentiles must be numbers in (0, 100) or 'none', not 'soon'");
    assertThat(run("bench", "--frontier-hedge-percentiles", "100").usageError())
        .contains("every frontier hedge percentile must be in (0, 100)");
    assertThat(run("bench", "--write-saturation", "--admission").usageError())
        .contains("separate benchmarks: choose one");
    assertThat(run("bench", "--write-saturation", "--outstanding", "0").usageError())
        .contains("outstanding writes must be in 1..10000, was 0");
  }
}
