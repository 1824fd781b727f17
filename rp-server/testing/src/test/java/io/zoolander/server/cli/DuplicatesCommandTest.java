package io.zoolander.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.zoolander.client.ZoolanderClient;
import io.zoolander.server.jmx.JmxConsole;
import io.zoolander.server.testing.EmbeddedCluster;
import io.zoolander.server.testing.ServerMode;
import io.zoolander.server.testing.ZooKeeperEnsemble;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import javax.management.MBeanServer;
import javax.management.MBeanServerFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code zoolander duplicates list|add|retire|fan-out} against a real repeater's JMX console: a
 * duplicate added and another retired from the command line, and each bad request one line and a
 * non-zero exit.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class DuplicatesCommandTest {
  @TempDir Path dir;

  private record Run(int exit, String out, String err) {}

  private static Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exit =
        ZoolanderCommand.execute(args, new PrintWriter(out, true), new PrintWriter(err, true));
    return new Run(exit, out.toString(), err.toString());
  }

  @Test
  void addsListsAndRetiresDuplicatesThroughTheRepeatersJmxConsole() throws Exception {
    MBeanServer mbeans = MBeanServerFactory.newMBeanServer();
    try (EmbeddedCluster cluster =
            EmbeddedCluster.builder()
                .duplicates(2)
                .serverMode(ServerMode.IN_PROCESS)
                .startRepeater(false)
                .start();
        JmxConsole console = JmxConsole.builder().port(0).mbeanServer(mbeans).build().start();
        ZooKeeperEnsemble third =
            ZooKeeperEnsemble.builder()
                .servers(1)
                .serverMode(ServerMode.IN_PROCESS)
                .baseDir(dir.resolve("duplicate-3"))
                .zoolanderDuplicate(3, cluster.znodes().basePath())
                .start()) {
      cluster.startRepeater(b -> b.mbeanServer(mbeans));
      try (ZoolanderClient client = cluster.newClient()) {
        client.create("/before", new byte[] {1}).join();
      }
      String jmx = "127.0.0.1:" + console.serviceUrl().getPort();

      Run list = run("duplicates", "list", "--jmx", jmx);
      assertThat(list.exit()).as(list.err()).isZero();
      assertThat(list.out().lines())
          .containsExactly(
              "version 1",
              "1 active " + cluster.duplicate(1).connectString(),
              "2 active " + cluster.duplicate(2).connectString());

      Run add =
          run("duplicates", "add", "--jmx", jmx, "--id", "3", "--connect", third.connectString());
      assertThat(add.exit()).as(add.err()).isZero();
      assertThat(add.out().strip())
          .isEqualTo("duplicate 3 joined by state transfer and is active (membership version 3)");
      assertThat(cluster.repeater().duplicate(3).fenced()).isFalse();

      Run retire = run("duplicates", "retire", "--jmx", jmx, "--id", "1");
      assertThat(retire.exit()).as(retire.err()).isZero();
      assertThat(retire.out().strip())
          .isEqualTo(
              "duplicate 1 is retired: fenced and no longer streamed to (membership version 4)");
      assertThat(run("duplicates", "list", "--jmx", jmx).out().lines())
          .containsExactly(
              "version 4",
              "2 active " + cluster.duplicate(2).connectString(),
              "3 active " + third.connectString());

      Run fanOut = run("duplicates", "fan-out", "--jmx", jmx, "--reads", "2");
      assertThat(fanOut.exit()).as(fanOut.err()).isZero();
      assertThat(fanOut.out().strip())
          .isEqualTo(
              "clients with the advised read policy ask 2 duplicates per read (membership version 5)");
      assertThat(run("duplicates", "list", "--jmx", jmx).out().lines())
          .containsExactly(
              "version 5",
              "read fan-out 2",
              "2 active " + cluster.duplicate(2).connectString(),
              "3 active " + third.connectString());
      Run negative = run("duplicates", "fan-out", "--jmx", jmx, "--reads", "-1");
      assertThat(negative.exit()).isEqualTo(1);
      assertThat(negative.err().strip())
          .isEqualTo("zoolander: cannot set the read fan-out to -1: fanOut must be >= 0, was -1");

      Run unknown = run("duplicates", "retire", "--jmx", jmx, "--id", "9");
      assertThat(unknown.exit()).isEqualTo(1);
      assertThat(unknown.err().strip())
          .isEqualTo(
              "zoolander: cannot retire duplicate 9: duplicateId: duplicate 9 is not a member");
      Run twice = run("duplicates", "add", "--jmx", jmx, "--id", "2", "--connect", "127.0.0.1:1");
      assertThat(twice.exit()).isEqualTo(1);
      assertThat(twice.err()).contains("duplicate 2 is already a member");
      Run last = run("duplicates", "retire", "--jmx", jmx, "--id", "2");
      assertThat(last.exit()).as(last.err()).isZero();
      Run lastActive = run("duplicates", "retire", "--jmx", jmx, "--id", "3");
      assertThat(lastActive.exit()).isEqualTo(1);
      assertThat(lastActive.err()).contains("it is the last active duplicate");
    }
  }

  @Test
  void aBadOrUnreachableConsoleIsOneLine() {
    Run unreachable = run("duplicates", "list", "--jmx", "127.0.0.1:1");
    assertThat(unreachable.exit()).isEqualTo(1);
    assertThat(unreachable.err())
        .startsWith("zoolander: cannot reach the repeater's JMX console at 127.0.0.1:1: ");
    assertThat(unreachable.err().lines()).hasSize(1);
    Run malformed = run("duplicates", "list", "--jmx", "nowhere");
    assertThat(malformed.exit()).isEqualTo(2);
    assertThat(malformed.err()).startsWith("zoolander: --jmx must be HOST:PORT, was 'nowhere'");
    Run missing = run("duplicates", "add", "--id", "3", "--connect", "h:1");
    assertThat(missing.exit()).isEqualTo(2);
    assertThat(missing.err()).contains("--jmx");
  }
}
