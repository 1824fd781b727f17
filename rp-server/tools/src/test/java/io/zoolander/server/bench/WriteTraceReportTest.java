package io.zoolander.server.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zoolander.wire.internal.WriteTrace.Stage;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WriteTraceReportTest {
  @TempDir Path dir;

  /** Lines of one process: each stage of {@code stages} at {@code start + i * stepMicros}. */
  private void process(
      String file, long request, long startMicros, long stepMicros, Stage... stages)
      throws Exception {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < stages.length; i++) {
      b.append(stages[i].name())
          .append(" 7 ")
          .append(request)
          .append(' ')
          .append((startMicros + i * stepMicros) * 1_000)
          .append('\n');
    }
    Files.writeString(
        dir.resolve(file),
        b,
        StandardCharsets.UTF_8,
        java.nio.file.StandardOpenOption.CREATE,
        java.nio.file.StandardOpenOption.APPEND);
  }

  @Test
  void joinsTheProcessesAndTakesThePluginThatRepliedFirst() throws Exception {
    // One write: the client at 0 and 10 us, the repeater at 100 and 110, then two plugins, the
    // second (slower to start but faster to reply) replying first, and the client at 1000.
    process("1.trace", 8, 0, 10, Stage.CLIENT_CALLED, Stage.CLIENT_SENT);
    process("2.trace", 8, 100, 10, Stage.REPEATER_READ, Stage.SEQUENCED);
    process(
        "3.trace",
        8,
        200,
        200,
        Stage.PLUGIN_READ,
        Stage.APPLIER_TOOK,
        Stage.MULTI_SUBMITTED,
        Stage.MULTI_DONE,
        Stage.PLUGIN_REPLIED); // replies at 1000
    process(
        "4.trace",
        8,
        300,
        100,
        Stage.PLUGIN_READ,
        Stage.APPLIER_TOOK,
        Stage.MULTI_SUBMITTED,
        Stage.MULTI_DONE,
        Stage.PLUGIN_REPLIED); // replies at 700
    process("1.trace", 8, 900, 0, Stage.CLIENT_ANSWERED);
    // A write the plugins never saw (e.g. a retry before the trace began) is left out.
    process("1.trace", 16, 0, 10, Stage.CLIENT_CALLED, Stage.CLIENT_SENT, Stage.CLIENT_ANSWERED);

    WriteTraceReport.Report report = WriteTraceReport.read(dir);

    assertThat(report.writes()).isEqualTo(1);
    assertThat(report.steps()).hasSize(Stage.values().length - 1);
    assertThat(report.steps().get(0).p50Micros()).isEqualTo(10); // called -> sent
    assertThat(report.steps().get(1).p50Micros()).isEqualTo(90); // sent -> repeater read
    assertThat(report.steps().get(3).p50Micros())
        .as("sequenced -> the first replier's read")
        .isEqualTo(190);
    assertThat(report.steps().get(7).p50Micros()).isEqualTo(100); // multi done -> replied
    assertThat(report.steps().get(8).p50Micros()).isEqualTo(200); // replied -> answered
    assertThat(report.total().p50Micros()).isEqualTo(900);
    assertThat(report.markdown())
        .contains("1 writes traced whole", "| client called | client sent | 10 | 10 | 10 |")
        .contains("| **client called** | **client answered** | 900 | 900 | 900 |");
  }

  /** One write of request {@code request} traced whole, called at {@code startMicros}. */
  private void whole(long request, long startMicros) throws Exception {
    process("1.trace", request, startMicros, 10, Stage.CLIENT_CALLED, Stage.CLIENT_SENT);
    process("2.trace", request, startMicros + 20, 10, Stage.REPEATER_READ, Stage.SEQUENCED);
    process(
        "3.trace",
        request,
        startMicros + 40,
        10,
        Stage.PLUGIN_READ,
        Stage.APPLIER_TOOK,
        Stage.MULTI_SUBMITTED,
        Stage.MULTI_DONE,
        Stage.PLUGIN_REPLIED);
    process("1.trace", request, startMicros + 100, 0, Stage.CLIENT_ANSWERED);
  }

  @Test
  void writesCalledBeforeTheMeasuredRunsAreLeftOut() throws Exception {
    whole(8, 0); // the warm-up's
    whole(16, 5_000);
    whole(24, 6_000);

    assertThat(WriteTraceReport.read(dir).writes()).isEqualTo(3);
    WriteTraceReport.Report measured = WriteTraceReport.read(dir, 5_000 * 1_000L);
    assertThat(measured.writes()).isEqualTo(2);
    assertThat(measured.total().p50Micros()).isEqualTo(100);
    assertThatThrownBy(() -> WriteTraceReport.read(dir, 7_000 * 1_000L))
        .hasMessageContaining("no write was traced whole");
  }

  @Test
  void nothingTracedWholeOrAMalformedLineIsAClearError() throws Exception {
    process("1.trace", 8, 0, 10, Stage.CLIENT_CALLED, Stage.CLIENT_SENT);
    assertThatThrownBy(() -> WriteTraceReport.read(dir))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no write was traced whole");
    Files.writeString(dir.resolve("2.trace"), "SEQUENCED 7 8\n");
    assertThatThrownBy(() -> WriteTraceReport.read(dir))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("2.trace")
        .hasMessageContaining("SEQUENCED 7 8");
  }
}
