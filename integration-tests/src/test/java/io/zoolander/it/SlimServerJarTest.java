package io.zoolander.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The slim jar of the Docker images ({@code rp-server/cli/target/zoolander-server.jar}) carries the
 * operator's commands and what they run, and none of the tools, the test harness or the chart
 * library.
 */
class SlimServerJarTest {

  /**
   * The reactor packages zoolander-cli before this module's tests ({@code mvn verify}, as CI runs
   * it).
   */
  private static final Path JAR =
      Path.of("..", "rp-server", "cli", "target", "zoolander-server.jar");

  @Test
  void holdsTheServerAndRepeaterButNoToolsHarnessOrCharts() throws IOException {
    assumeTrue(
        Files.exists(JAR), "run after the package phase (mvn verify) so that the slim jar exists");
    List<String> entries;
    try (JarFile jar = new JarFile(JAR.toFile())) {
      entries = jar.stream().map(e -> e.getName()).collect(Collectors.toList());
    }
    assertThat(entries)
        .contains(
            "io/zoolander/server/cli/ZoolanderCommand.class",
            "io/zoolander/server/ZoolanderPeerMain.class",
            "io/zoolander/server/repeater/Repeater.class",
            "org/apache/zookeeper/server/quorum/QuorumPeerMain.class");
    assertThat(entries)
        .noneMatch(
            e ->
                e.startsWith("io/zoolander/server/tools/")
                    || e.startsWith("io/zoolander/server/bench/")
                    || e.startsWith("io/zoolander/server/demo/")
                    || e.startsWith("io/zoolander/server/workload/")
                    || e.startsWith("io/zoolander/server/testing/")
                    || e.startsWith("io/zoolander/server/internal/testing/")
                    || e.startsWith("io/zoolander/client/")
                    || e.startsWith("org/knowm/xchart/")
                    || e.startsWith("org/junit/"));
  }

  @Test
  void listsTheOperatorsCommandsAndRefusesAChartWithAClearError(@TempDir Path dir)
      throws Exception {
    assumeTrue(
        Files.exists(JAR), "run after the package phase (mvn verify) so that the slim jar exists");
    Run help = run(dir, "--help");
    assertThat(help.exit()).isZero();
    List<String> commands =
        help.out()
            .lines()
            .filter(l -> l.matches("^  [a-z]+ .*"))
            .map(l -> l.trim().split(" ", -1)[0])
            .collect(Collectors.toList());
    assertThat(commands).containsExactly("predict", "plan", "server", "repeater", "duplicates");

    Run chart = run(dir, "predict", "--example", "--chart", dir.resolve("chart.png").toString());
    assertThat(chart.exit()).isEqualTo(1);
    assertThat(chart.err())
        .contains("zoolander: --chart needs the chart library")
        .contains("zoolander.jar");
    assertThat(dir.resolve("chart.png")).doesNotExist();
  }

  private record Run(int exit, String out, String err) {}

  private static Run run(Path dir, String... args) throws Exception {
    List<String> command =
        new java.util.ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar",
                JAR.toAbsolutePath().toString()));
    command.addAll(List.of(args));
    Path out = dir.resolve("out.txt");
    Path err = dir.resolve("err.txt");
    Process p =
        new ProcessBuilder(command)
            .redirectOutput(out.toFile())
            .redirectError(err.toFile())
            .start();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("the slim jar answers within 60 s").isTrue();
    return new Run(
        p.exitValue(),
        Files.readString(out, StandardCharsets.UTF_8),
        Files.readString(err, StandardCharsets.UTF_8));
  }
}
