package io.zoolander.server.tools;

import static io.zoolander.server.tools.CliRun.run;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code zoolander bench --admission} end to end on a small embedded deployment with tiny counts:
 * the table comes out with its three phases, and the phases with admission control report the
 * repeater's state. No speed is asserted.
 */
class BenchAdmissionCommandTest {
  @TempDir Path dir;

  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES)
  void aQuickAdmissionRunWritesTheTableOfItsThreePhases() throws Exception {
    Path out = dir.resolve("results");
    CliRun r =
        run(
            "bench",
            "--admission",
            "--quick",
            "--duplicates",
            "1",
            "--rate",
            "60",
            "--seconds",
            "1",
            "--warmup-seconds",
            "0",
            "--out",
            out.toString());
    assertThat(r.exit()).as(r.err()).isZero();
    String md = Files.readString(out.resolve("admission.md"), StandardCharsets.UTF_8);
    assertThat(r.out())
        .contains("wrote " + out.resolve("admission.md").toAbsolutePath(), md.strip());
    assertThat(md).startsWith("`zoolander bench --admission --quick");
    List<String> rows =
        md.lines().filter(l -> l.startsWith("| ") && !l.startsWith("| phase")).toList();
    assertThat(rows).hasSize(3);
    assertThat(rows.get(0)).startsWith("| unprotected |").endsWith("| off |");
    assertThat(rows.get(1)).startsWith("| admission, no client retry |").contains("observed SLA");
    assertThat(rows.get(2))
        .startsWith("| admission, client retries (default budget) |")
        .contains("observed SLA");
    for (String row : rows) {
      long issued = Long.parseLong(row.split("\\|", -1)[2].strip());
      assertThat(issued).as(row).isPositive();
    }
  }

  @Test
  void badAdmissionFlagsAreOneLineAndANonZeroExit() {
    assertThat(run("bench", "--admission", "--admission-target", "1.5").usageError())
        .isEqualTo("zoolander: admission target must be in (0, 1), was 1.5");
    assertThat(run("bench", "--admission", "--admission-write-delay-ms", "0").usageError())
        .contains("admission write delay must be in (0, 1000] ms");
  }

  @Test
  void theScenarioFlagsExcludeEachOther() {
    assertThat(run("bench", "--admission", "--batching").usageError())
        .isEqualTo(
            "zoolander: --admission, --batching, --diurnal, --planned-slowness and --write-saturation"
                + " are separate benchmarks: choose one");
    assertThat(run("bench", "--diurnal", "--write-saturation").usageError())
        .isEqualTo(
            "zoolander: --admission, --batching, --diurnal, --planned-slowness and --write-saturation"
                + " are separate benchmarks: choose one");
  }

  @Test
  void badDiurnalFlagsAreOneLineAndANonZeroExit() {
    assertThat(
            run(
                    "bench",
                    "--diurnal",
                    "--diurnal-min-duplicates",
                    "3",
                    "--diurnal-max-duplicates",
                    "2")
                .usageError())
        .isEqualTo("zoolander: diurnal maximum duplicates must be in 3..8, was 2");
    assertThat(run("bench", "--diurnal", "--diurnal-day-seconds", "1").usageError())
        .isEqualTo("zoolander: diurnal day seconds must be in 4..3600, was 1");
    assertThat(run("bench", "--diurnal", "--diurnal-target", "1").usageError())
        .isEqualTo("zoolander: diurnal target must be in (0, 1), was 1.0");
  }
}
