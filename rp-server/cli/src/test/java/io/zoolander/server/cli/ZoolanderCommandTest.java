package io.zoolander.server.cli;

import static io.zoolander.server.cli.CliRun.run;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.zoolander.server.plugin.ZoolanderPluginConfig;
import io.zoolander.server.plugin.ZoolanderPluginFactory;
import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

class ZoolanderCommandTest {
  @TempDir Path dir;

  @Test
  void predictExamplePrintsOneRowPerDuplicateCountAndTheTradeOff() throws IOException {
    Path chart = dir.resolve("predict.png");
    CliRun r =
        run(
            "predict",
            "--example",
            "--duplicates",
            "1,2,4",
            "--tradeoff",
            "--chart",
            chart.toString());
    assertThat(r.exit()).isZero();
    assertThat(Files.size(chart)).isPositive();
    assertThat(r.out()).contains("chart written to");
    assertThat(r.out())
        .contains("duplicates", "engine", "95% interval", "thesis baseline (MG1)", "RP@5%");
    assertThat(r.out().lines().filter(l -> l.matches("\\s+[124]\\s+0\\.050.*"))).hasSize(3);
    List<PredictRow> rows = PredictRow.parse(r.out());
    assertThat(rows).extracting(PredictRow::duplicates).containsExactly(1, 2, 4);
    for (PredictRow row : rows) {
      assertThat(row.low()).isLessThanOrEqualTo(row.sla());
      assertThat(row.high()).isGreaterThanOrEqualTo(row.sla());
    }
    // One duplicate is exact (Pollaczek-Khinchine); more are simulated over the shared arrivals.
    assertThat(rows.get(0).method()).isEqualTo("exact");
    assertThat(rows.get(1).method()).isEqualTo("simulated");
    // The heavy tail makes the thesis baseline's mean wait eat most of tau: the engine does not.
    assertThat(rows.get(0).sla()).isGreaterThan(rows.get(0).thesis() + 0.1);
    assertThat(rows.get(2).sla()).isGreaterThan(rows.get(1).sla());
    assertThat(r.err()).isEmpty();
  }

  @Test
  void predictFromASampleFile() throws IOException {
    Path file = dir.resolve("samples.txt");
    StringBuilder text = new StringBuilder("# setData latencies in ms\n");
    for (int i = 1; i <= 1000; i++) {
      text.append(i % 100 == 0 ? 20.0 : 0.5 + i % 7 * 0.1).append('\n');
    }
    Files.writeString(file, text);
    CliRun r =
        run(
            "predict",
            "--samples",
            file.toString(),
            "--tau-ms",
            "2",
            "--rate",
            "100",
            "--duplicates",
            "1,2");
    assertThat(r.exit()).isZero();
    assertThat(r.out()).contains("tau 2.000 ms, 100.0 arrivals/s");
    // 1% of the samples are 20 ms: at 10% utilisation an access often waits behind one, so one
    // duplicate misses about 3% (the thesis baseline, which subtracts the mean wait, says 1%).
    List<PredictRow> rows = PredictRow.parse(r.out());
    assertThat(rows.get(0).sla()).isBetween(0.95, 0.98);
    assertThat(rows.get(0).thesis()).isBetween(0.989, 0.991);
    assertThat(rows.get(1).sla()).isBetween(0.995, 0.9995);
    // 1000 samples: the interval is the sample's, not a point.
    assertThat(rows.get(0).high() - rows.get(0).low()).isGreaterThan(0.002);
  }

  @Test
  void predictFromAnHdrHistogramLog() throws IOException {
    Path file = dir.resolve("latency.hlog");
    Histogram histogram = new Histogram(3);
    for (int i = 0; i < 1000; i++) {
      histogram.recordValue(800 + i); // microseconds
    }
    HistogramLogWriter writer = new HistogramLogWriter(file.toFile());
    writer.outputLogFormatVersion();
    writer.outputLegend();
    writer.outputIntervalHistogram(histogram);
    writer.close();
    CliRun r = run("predict", "--samples", file.toString(), "--duplicates", "1");
    assertThat(r.exit()).isZero();
    assertThat(r.out()).contains("mean 1.30");
  }

  @Test
  void planForABudgetAndATarget() {
    CliRun r = run("plan", "--example", "--rate", "33", "--nodes", "8", "--target-sla", "0.9999");
    assertThat(r.exit()).isZero();
    assertThat(r.out())
        .contains(
            "best with at most 8 nodes:", "fewest nodes for SLA 0.9999:", "highest arrival rate");
  }

  @Test
  void planGivesAUsefulAnswerForAHeavyTailAndSaysWhyTheBestWins() {
    // The thesis baseline scores every strategy 0 here (its mean wait exceeds tau).
    CliRun r = run("plan", "--example", "--rate", "500", "--nodes", "8", "--target-sla", "0.999");
    assertThat(r.exit()).isZero();
    assertThat(r.err()).isEmpty();
    Matcher best =
        Pattern.compile("best with at most 8 nodes: mix\\(r=2 x d=4\\) at 500\\.0/s: SLA ([0-9.]+)")
            .matcher(r.out());
    assertThat(best.find()).as(r.out()).isTrue();
    assertThat(Double.parseDouble(best.group(1))).isGreaterThan(0.99);
    assertThat(r.out())
        .contains(
            "beats the best RP, RP(d=8)",
            "utilisation 0.750 against 0.375",
            "beats the best throughput, throughput(r=8)",
            "one copy against 4")
        .doesNotContain("none within");
    // RP, throughput and mixes are listed, each beside the thesis baseline's 0.
    for (String kind : List.of("RP", "throughput", "mix")) {
      assertThat(
              r.out()
                  .lines()
                  .filter(
                      l ->
                          l.matches(
                              "  " + kind + "\\(.*\\)\\s+" + kind + "\\s+\\d+\\s.*0\\.000000")))
          .as(kind)
          .isNotEmpty();
    }
  }

  /**
   * Paired latencies of 4 duplicates: 10% of accesses hit a slowdown that makes each duplicate late
   * (10 ms more) with probability 0.709, the others are late alone with probability 0.03.
   */
  private Path pairedCsv(int rows) throws IOException {
    SplittableRandom rng = new SplittableRandom(3);
    StringBuilder csv =
        new StringBuilder("# reply latencies per duplicate, ms\ndup1,dup2,dup3,dup4\n");
    for (int i = 0; i < rows; i++) {
      double p = rng.nextDouble() < 0.1 ? 0.709 : 0.03;
      for (int d = 0; d < 4; d++) {
        double ms = 0.5 + rng.nextDouble() + (rng.nextDouble() < p ? 10 : 0);
        csv.append(d == 0 ? "" : ",").append(String.format(Locale.ROOT, "%.3f", ms));
      }
      csv.append('\n');
    }
    Path file = dir.resolve("paired.csv");
    Files.writeString(file, csv);
    return file;
  }

  @Test
  void predictFromPairedSamplesFitsTheDependenceAndSaysWhereItExtrapolates() throws IOException {
    Path file = pairedCsv(20_000);
    CliRun r = run("predict", "--paired-samples", file.toString(), "--tau-ms", "5");
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out())
        .contains(
            "20000 paired accesses",
            "paired samples: 20000 accesses x 4 duplicates (dup1, dup2, dup3, dup4)",
            "0.0 arrivals/s",
            "no queueing added");
    // N = 1 up to twice the 4 measured columns; beyond 4 the table says it extrapolates.
    List<String> rows = r.out().lines().filter(l -> l.matches("\\s+\\d+\\s+0\\.000\\s.*")).toList();
    assertThat(rows).hasSize(8);
    for (int n = 1; n <= 8; n++) {
      String row = rows.get(n - 1);
      String[] cells = row.strip().split("\\s+");
      assertThat(cells[0]).isEqualTo(String.valueOf(n));
      double sla = Double.parseDouble(cells[2]);
      String[] interval = cells[3].split("\\.\\.");
      double low = Double.parseDouble(interval[0]);
      double high = Double.parseDouble(interval[1]);
      assertThat(low).as(row).isLessThanOrEqualTo(sla);
      assertThat(high).as(row).isGreaterThanOrEqualTo(sla);
      if (n <= 4) {
        // Within the measured columns the engine reproduces the measured share, and the interval
        // reflects 20,000 accesses (about 500 with all 4 late).
        assertThat(Double.parseDouble(cells[7])).as(row).isCloseTo(sla, within(1e-4));
      } else {
        assertThat(cells[7]).as(row).isEqualTo("extrapolated");
      }
      if (n >= 2) {
        // Far from independence: the thesis baseline multiplies the lone miss ratios.
        assertThat(high - low).as(row).isGreaterThan(1e-3);
        assertThat(Double.parseDouble(cells[6])).as(row).isGreaterThan(high);
      }
    }
    // Exactly: P(all 4 late) = 0.1 * 0.709^4 + 0.9 * 0.03^4 = 0.0253.
    String four = rows.get(3).strip().split("\\s+")[3];
    assertThat(Double.parseDouble(four.split("\\.\\.")[0])).isLessThan(1 - 0.0253 + 0.002);
    assertThat(Double.parseDouble(four.split("\\.\\.")[1])).isGreaterThan(1 - 0.0253 - 0.002);
  }

  @Test
  void planTakesTheDependenceFromPairedSamples() throws IOException {
    Path file = pairedCsv(5_000);
    CliRun r =
        run(
            "plan",
            "--paired-samples",
            file.toString(),
            "--tau-ms",
            "5",
            "--rate",
            "100",
            "--nodes",
            "4");
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out())
        .contains("duplicates' dependence fitted from 5000 paired accesses of 4 duplicates")
        .contains("best with at most 4 nodes:");
  }

  @Test
  void malformedPairedSamplesNameTheLineAndColumn() throws IOException {
    String header = "a,b,c\n";
    Map<String, String> cases = new LinkedHashMap<>();
    cases.put(header + "1,2,3\n1,2\n", "line 3: 2 columns, expected 3 as on line 1");
    cases.put("1,2,3\n\n1,2,3,4\n", "line 3: 4 columns, expected 3 as on line 1");
    cases.put(header + "1,2,3\n1,x,3\n", "line 3, column 2: not a latency in ms: 'x'");
    cases.put(
        header + "1,2,-3\n", "line 2, column 3: a latency must be a finite number >= 0, was -3");
    cases.put(
        header + "1,2,NaN\n", "line 2, column 3: a latency must be a finite number >= 0, was NaN");
    cases.put(header + "1,,3\n", "line 2, column 2: empty");
    cases.put("# one duplicate\n1\n2\n", "line 2: one column; give one column per duplicate");
    cases.put(header + "# nothing measured\n", "holds no rows of latencies");
    int i = 0;
    for (Map.Entry<String, String> c : cases.entrySet()) {
      Path file = dir.resolve("bad" + i++ + ".csv");
      Files.writeString(file, c.getKey());
      CliRun r = run("predict", "--paired-samples", file.toString());
      assertThat(r.exit()).as(c.getKey()).isEqualTo(1);
      assertThat(r.err().strip()).as(c.getKey()).startsWith("zoolander: ").contains(c.getValue());
      assertThat(r.err().lines()).as(c.getKey()).hasSize(1);
    }
    CliRun missing = run("predict", "--paired-samples", dir.resolve("nope.csv").toString());
    assertThat(missing.err().strip())
        .matches("zoolander: paired-samples file .*nope.csv does not exist");
    CliRun both =
        run("predict", "--paired-samples", dir.resolve("bad0.csv").toString(), "--example");
    assertThat(both.exit()).isEqualTo(2);
    assertThat(both.err()).contains("--paired-samples", "--example").doesNotContain("Exception");
  }

  @Test
  void badFlagsAndFilesGiveOneLineAndNonZeroExit() throws IOException {
    CliRun unknown = run("predict", "--example", "--bogus");
    assertThat(unknown.exit()).isEqualTo(2);
    assertThat(unknown.err())
        .startsWith("zoolander: Unknown option: '--bogus'")
        .doesNotContain("Exception");

    CliRun missing = run("predict", "--samples", dir.resolve("nope.txt").toString());
    assertThat(missing.exit()).isEqualTo(1);
    assertThat(missing.err().strip()).matches("zoolander: sample file .*nope.txt does not exist");

    Path bad = dir.resolve("bad.txt");
    Files.writeString(bad, "1.0\n2.0\nabc\n");
    CliRun badLine = run("predict", "--samples", bad.toString());
    assertThat(badLine.exit()).isEqualTo(1);
    assertThat(badLine.err().strip())
        .isEqualTo("zoolander: " + bad + " line 3: not a latency in ms: 'abc'");

    Path negative = dir.resolve("negative.txt");
    Files.writeString(negative, "1.0\n-2\n");
    assertThat(run("predict", "--samples", negative.toString()).err()).contains("line 2", ">= 0");

    Path empty = dir.resolve("empty.txt");
    Files.writeString(empty, "# nothing\n\n");
    assertThat(run("predict", "--samples", empty.toString()).err())
        .contains("holds no latency values");

    // A flag's value out of range is a usage error: exit 2, the one line, then where help is.
    CliRun tau = run("predict", "--example", "--tau-ms", "-1");
    assertThat(tau.exit()).isEqualTo(2);
    assertThat(tau.err().strip())
        .isEqualTo(
            "zoolander: --tau-ms must be a finite number >= 0, was -1.0\n"
                + "Try 'zoolander predict --help' for more information.");

    CliRun noSource = run("predict");
    assertThat(noSource.exit()).isEqualTo(2);
    assertThat(noSource.err()).contains("--samples", "--example").doesNotContain("Exception");

    CliRun planWithoutGoal = run("plan", "--example", "--rate", "10");
    assertThat(planWithoutGoal.exit()).isEqualTo(2);
    assertThat(planWithoutGoal.err().strip())
        .isEqualTo(
            "zoolander: give --nodes, --target-sla or both\n"
                + "Try 'zoolander plan --help' for more information.");

    assertThat(run("plan", "--example", "--rate", "10", "--target-sla", "1.5").err())
        .contains("--target-sla must be in (0, 1)");
  }

  @Test
  void serverHelpListsEveryZoolanderSettingWithItsDefaultAndTheZooKeeperEntriesThatMatter()
      throws Exception {
    CliRun r = run("server", "--help");
    assertThat(r.exit()).isZero();
    List<String> keys = new ArrayList<>();
    for (Field f : ZoolanderPluginConfig.class.getFields()) {
      if (f.getName().endsWith("_KEY")) {
        keys.add((String) f.get(null));
      }
    }
    assertThat(keys).hasSizeGreaterThanOrEqualTo(12);
    for (String key : keys) {
      assertThat(r.out()).as("help of %s", key).contains("  " + key + "=");
    }
    assertThat(r.out())
        .contains(
            "zoolander.pluginFactory=" + ZoolanderPluginFactory.class.getName() + "\n",
            "zoolander.duplicateId=<id> (required)",
            "zoolander.plugin.stopTimeoutMs=5000",
            ZoolanderPluginConfig.BASE_PATH_KEY + "=" + ZoolanderPluginConfig.BASE_PATH_DEFAULT,
            ZoolanderPluginConfig.SESSION_TIMEOUT_MS_KEY
                + "="
                + ZoolanderPluginConfig.SESSION_TIMEOUT_MS_DEFAULT,
            ZoolanderPluginConfig.MAX_QUEUED_MESSAGES_KEY
                + "="
                + ZoolanderPluginConfig.MAX_QUEUED_MESSAGES_DEFAULT,
            "standaloneEnabled=false (required)",
            "server.N=host:quorumPort:electionPort",
            "--config=FILE");
    assertThat(r.out().lines()).allSatisfy(line -> assertThat(line.length()).isLessThan(80));
  }

  @Test
  void repeaterHelpListsEveryKeyWithItsDefault() {
    CliRun r = run("repeater", "--help");
    assertThat(r.exit()).isZero();
    assertThat(r.out())
        .contains(
            "duplicate.<id>=<connect string> (required, one line per duplicate)",
            "clientHost=127.0.0.1",
            "clientPort=0",
            "basePath=/zoolander",
            "logCapacity=65536",
            "sessionTimeoutMs=10000",
            "startTimeoutMs=30000",
            "epoch=(the highest epoch found plus one)",
            "clientIoThreads=0",
            "--config=FILE");
    assertThat(r.out().lines()).allSatisfy(line -> assertThat(line.length()).isLessThan(80));
  }

  @Test
  @Timeout(
      value = 60,
      threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // a config wrongly accepted runs a server
  void badServerConfigsExitNonZeroWithOneLine() throws IOException {
    Path data = Files.createDirectories(dir.resolve("data"));
    Files.writeString(data.resolve("myid"), "1\n");
    // Free ports, not fixed ones: a server that gets as far as binding must not collide with
    // anything else.
    int clientPort = freePort();
    String server = "server.1=127.0.0.1:" + freePort() + ":" + freePort();
    String base =
        String.join(
            "\n",
            "tickTime=500",
            "initLimit=10",
            "syncLimit=5",
            "dataDir=" + data,
            "clientPort=" + clientPort,
            "admin.enableServer=false");
    String quorum = "standaloneEnabled=false\n" + server;
    String plugin =
        "zoolander.pluginFactory="
            + ZoolanderPluginFactory.class.getName()
            + "\nzoolander.duplicateId=1";

    assertServerError(null, "zoo.cfg " + dir.resolve("missing.cfg") + " does not exist");
    assertServerError(base + "\n" + server + "\n" + plugin, "the server would run standalone");
    assertServerError(
        base + "\nstandaloneEnabled=false\nserver.1=127.0.0.1:x:38880\n" + plugin,
        "Address unresolved: 127.0.0.1:x");
    // ZooKeeper's own message named no key ("port out of range:-2981").
    assertServerError(
        base.replace("clientPort=" + clientPort, "clientPort=-2981")
            + "\n"
            + quorum
            + "\n"
            + plugin,
        "clientPort must be a port in 1..65535, was -2981");
    assertServerError(
        base.replace("clientPort=" + clientPort, "clientPort=two") + "\n" + quorum + "\n" + plugin,
        "clientPort must be a port in 1..65535, was 'two'");
    assertServerError(
        base + "\n" + quorum,
        "zoolander.pluginFactory is missing: add zoolander.pluginFactory="
            + ZoolanderPluginFactory.class.getName());
    assertServerError(
        base + "\n" + quorum + "\nzoolander.pluginFactory=no.such.Factory",
        "zoolander.pluginFactory: cannot create no.such.Factory");
    assertServerError(
        base
            + "\n"
            + quorum
            + "\nzoolander.pluginFactory="
            + ZoolanderPluginFactory.class.getName(),
        ": zoolander.duplicateId is required");
    assertServerError(
        base + "\n" + quorum + "\n" + plugin + "\nzoolander.plugin.port=abc",
        ": zoolander.plugin.port is not an integer: 'abc'");
    assertServerError(
        base + "\n" + quorum + "\n" + plugin + "\nzoolander.plugin.sessionTimeoutMs=0",
        ": zoolander.plugin.sessionTimeoutMs must be 1..3600000, was 0");
    assertServerError(
        base + "\n" + quorum + "\n" + plugin + "\nzoolander.plugin.prot=7001",
        ": unknown Zoolander setting zoolander.plugin.prot (zoolander server --help lists them)");
    assertServerError(
        base + "\n" + quorum + "\n" + plugin + "\nzoolander.plugin.prot=7001",
        "; did you mean zoolander.plugin.port?");
    assertServerError(
        base + "\n" + quorum + "\n" + plugin + "\nzoolander.plugin.stopTimeoutMs=-5",
        "zoolander.plugin.stopTimeoutMs must be positive");
    Files.delete(data.resolve("myid"));
    assertServerError(base + "\n" + quorum + "\n" + plugin, "myid");
  }

  @Test
  @Timeout(
      value = 60,
      threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // a config wrongly accepted runs a server
  void serverJmxSettingsAreCheckedBeforeTheServerStarts() throws IOException {
    Path data = Files.createDirectories(dir.resolve("data"));
    Files.writeString(data.resolve("myid"), "1\n");
    Path cfg = dir.resolve("zoo.cfg");
    Files.writeString(
        cfg,
        String.join(
                "\n",
                "tickTime=500",
                "initLimit=10",
                "syncLimit=5",
                "dataDir=" + data,
                "clientPort=" + freePort(),
                "admin.enableServer=false",
                "standaloneEnabled=false",
                "server.1=127.0.0.1:" + freePort() + ":" + freePort(),
                "zoolander.pluginFactory=" + ZoolanderPluginFactory.class.getName(),
                "zoolander.duplicateId=1")
            + "\n");
    CliRun outOfRange = run("server", "--config", cfg.toString(), "--jmx-port", "70000");
    assertThat(outOfRange.exit()).isEqualTo(2);
    assertThat(outOfRange.err())
        .isEqualTo(
            "zoolander: --jmx-port must be in 0..65535, was 70000\n"
                + "Try 'zoolander server --help' for more information.\n");
    assertThat(outOfRange.out()).isEmpty();
    try (java.net.ServerSocket taken =
        new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      CliRun busy =
          run(
              "server",
              "--config",
              cfg.toString(),
              "--jmx-port",
              Integer.toString(taken.getLocalPort()));
      assertThat(busy.exit()).isEqualTo(1);
      assertThat(busy.err())
          .startsWith("zoolander: cannot serve JMX on 127.0.0.1:" + taken.getLocalPort() + ": ")
          .endsWith("\n");
      assertThat(busy.err().strip()).doesNotContain("\n");
    }
  }

  private static int freePort() throws IOException {
    try (java.net.ServerSocket socket =
        new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  private void assertServerError(String config, String expected) throws IOException {
    Path file = dir.resolve(config == null ? "missing.cfg" : "zoo.cfg");
    if (config != null) {
      Files.writeString(file, config + "\n");
    }
    CliRun r = run("server", "--config", file.toString());
    assertThat(r.exit()).as("exit status for %s", expected).isEqualTo(1);
    assertThat(r.err())
        .as("error for %s", expected)
        .startsWith("zoolander: ")
        .contains(expected)
        .doesNotContain("Exception")
        .endsWith("\n");
    assertThat(r.err().strip()).as("one line: %s", r.err()).doesNotContain("\n");
    assertThat(r.out()).isEmpty();
  }

  @Test
  void badRepeaterConfigsExitNonZeroWithOneLine() throws IOException {
    CliRun missing = run("repeater", "--config", dir.resolve("nope.properties").toString());
    assertThat(missing.exit()).isEqualTo(1);
    assertThat(missing.err())
        .isEqualTo(
            "zoolander: repeater config " + dir.resolve("nope.properties") + " does not exist\n");

    Path bad = dir.resolve("repeater.properties");
    Files.writeString(bad, "duplicate.1=127.0.0.1:2181\nlogCapacity=lots\n");
    CliRun badValue = run("repeater", "--config", bad.toString());
    assertThat(badValue.exit()).isEqualTo(1);
    assertThat(badValue.err())
        .isEqualTo("zoolander: " + bad + " line 2: logCapacity: not an integer: 'lots'\n");

    Files.writeString(bad, "duplicate.1=127.0.0.1:2181\nclientPotr=7000\n");
    CliRun misspelled = run("repeater", "--config", bad.toString());
    assertThat(misspelled.exit()).isEqualTo(1);
    assertThat(misspelled.err())
        .startsWith("zoolander: " + bad + " line 2: unknown key 'clientPotr' (known: ")
        .endsWith("; did you mean clientPort?\n");
    assertThat(misspelled.err().strip()).doesNotContain("\n");

    CliRun noConfig = run("repeater");
    assertThat(noConfig.exit()).isEqualTo(2);
    assertThat(noConfig.err())
        .contains("Missing required option: '--config=FILE'")
        .doesNotContain("Exception");
  }
}
