package io.zoolander.server.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * {@link EmbeddedCluster.Builder#duplicateJvmArgs}: what a load test uses to size the duplicates'
 * JVMs.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class EmbeddedClusterJvmArgsTest {

  @Test
  @EnabledOnOs(OS.LINUX) // reads the command line from /proc
  void theArgumentsReachEveryServerJvmOfEveryDuplicate() throws Exception {
    try (EmbeddedCluster cluster =
        EmbeddedCluster.builder()
            .duplicates(2)
            .startRepeater(false)
            .duplicateJvmArgs("-Dzoolander.test.mark=duplicate-jvm", "-XX:+UseG1GC")
            .start()) {
      for (int id = 1; id <= 2; id++) {
        long pid = cluster.duplicate(id).pid(1).orElseThrow();
        // ProcessHandle.Info gives no arguments for a command line as long as a child's class path:
        // read it whole
        List<String> arguments =
            List.of(
                new String(
                        Files.readAllBytes(Path.of("/proc", Long.toString(pid), "cmdline")),
                        StandardCharsets.UTF_8)
                    .split("\0"));
        assertThat(arguments)
            .as("duplicate %d's JVM", id)
            .contains("-Dzoolander.test.mark=duplicate-jvm", "-XX:+UseG1GC")
            // after the defaults, so that they win over them
            .containsSubsequence("-Xmx256m", "-Dzoolander.test.mark=duplicate-jvm")
            // a JVM given two collectors does not start: the one asked for replaces the default
            .doesNotContain("-XX:+UseSerialGC");
      }
    }
  }

  @Test
  void refusesNullAndBlankArguments() {
    EmbeddedCluster.Builder builder = EmbeddedCluster.builder();
    assertThatThrownBy(() -> builder.duplicateJvmArgs((String[]) null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("duplicateJvmArgs");
    assertThatThrownBy(() -> builder.duplicateJvmArgs("-Xmx1g", null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("duplicateJvmArgs");
    assertThatThrownBy(() -> builder.duplicateJvmArgs(" "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("duplicateJvmArgs");
    assertThatThrownBy(() -> ZoolanderClusterExtension.builder().duplicateJvmArgs(""))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("duplicateJvmArgs");
  }
}
