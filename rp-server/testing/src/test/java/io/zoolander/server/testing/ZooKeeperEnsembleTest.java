package io.zoolander.server.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zoolander.server.internal.testing.FourLetterWords;
import io.zoolander.testsupport.ZooKeepers;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The testing artifact's own guarantees, in both server modes. */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ZooKeeperEnsembleTest {

  private static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir Path dir;

  /**
   * Runs in an intermediate JVM: starts a one-server ensemble, prints the server's pid, then waits
   * to be killed.
   */
  public static final class ParentMain {
    public static void main(String[] args) throws Exception {
      ZooKeeperEnsemble ensemble =
          ZooKeeperEnsemble.builder()
              .servers(1)
              .baseDir(Path.of(args[0]))
              .jvmArgs("-XX:TieredStopAtLevel=1")
              .start();
      System.out.println("child-pid " + ensemble.pid(1).orElseThrow());
      System.out.flush();
      Thread.sleep(60_000);
    }
  }

  @Test
  void childrenDieWithTheJvmThatStartedThem() throws Exception {
    Process parent =
        new ProcessBuilder(
                List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-XX:TieredStopAtLevel=1",
                    "-XX:+UseSerialGC",
                    "-cp",
                    System.getProperty("java.class.path"),
                    ParentMain.class.getName(),
                    dir.toString()))
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("parent.log").toFile())
            .start();
    try {
      long childPid = awaitChildPid(dir.resolve("parent.log"), parent, Duration.ofSeconds(30));
      ProcessHandle child = ProcessHandle.of(childPid).orElseThrow();
      assertThat(child.isAlive()).isTrue();

      parent.destroyForcibly(); // kill -9: the parent's shutdown hooks do not run
      assertThat(parent.waitFor(10, TimeUnit.SECONDS)).isTrue();

      child.onExit().get(15, TimeUnit.SECONDS);
      assertThat(child.isAlive()).isFalse();
    } finally {
      parent.destroyForcibly();
    }
  }

  @Test
  void writesAUsableConfiguration() throws Exception {
    try (ZooKeeperEnsemble ensemble =
        ZooKeeperEnsemble.builder()
            .servers(3)
            .baseDir(dir)
            .property("zoolander.custom", "x")
            .property("4lw.commands.whitelist", "mntr")
            .build()) {
      assertThat(ensemble.serverIds()).containsExactly(1, 2, 3);
      assertThat(ensemble.connectString().split(",")).hasSize(3);
      String cfg = Files.readString(ensemble.configFile(2));
      assertThat(cfg)
          .contains(
              "standaloneEnabled=false",
              "admin.enableServer=false",
              "forceSync=no",
              "zoolander.custom=x",
              "4lw.commands.whitelist=srvr, ruok, mntr",
              "server.3=127.0.0.1:");
      assertThat(Files.readString(ensemble.dataDir(2).resolve("myid")).trim()).isEqualTo("2");
      assertThat(ensemble.leaderId()).isEmpty(); // not started
    }
    assertThat(dir.resolve("server-1")).doesNotExist();
    assertThat(dir).exists(); // a given base directory is kept
  }

  @Test
  void fsyncIsAlwaysExplicitAndTheAdminServerStaysOffInProcess() throws Exception {
    try (ZooKeeperEnsemble ensemble =
        ZooKeeperEnsemble.builder()
            .servers(1)
            .baseDir(dir)
            .fsync(true)
            .serverMode(ServerMode.IN_PROCESS)
            .build()) {
      // In one JVM, a file that does not name forceSync would inherit the previous parse's setting.
      assertThat(Files.readString(ensemble.configFile(1)))
          .contains("forceSync=yes", "admin.enableServer=false");
      assertThat(ensemble.serverMode()).isEqualTo(ServerMode.IN_PROCESS);
    }
    ZooKeeperEnsemble.Builder adminOn =
        ZooKeeperEnsemble.builder()
            .baseDir(dir)
            .property("admin.enableServer", "true")
            .serverMode(ServerMode.IN_PROCESS);
    assertThatThrownBy(adminOn::build)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("admin.enableServer");
    assertThatThrownBy(() -> ZooKeeperEnsemble.builder().serverMode(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("serverMode");
  }

  /**
   * In-process: three servers elect a leader and serve; the killed leader's port closes, the two
   * others go on, and the leader comes back on the same port and data as a follower that has what
   * was written meanwhile. Closed, the ensemble leaves no thread that would keep a JVM alive.
   */
  @Test
  void inProcessServersElectServeAndComeBackOnTheirPortsAfterAKill() throws Exception {
    Set<Thread> threadsBefore = NonDaemonThreads.now();
    try (ZooKeeperEnsemble ensemble =
        ZooKeeperEnsemble.builder()
            .servers(3)
            .baseDir(dir)
            .serverMode(ServerMode.IN_PROCESS)
            .start()) {
      int leader = ensemble.awaitLeader(WAIT);
      for (int id : ensemble.serverIds()) {
        assertThat(ensemble.isRunning(id)).isTrue();
        assertThat(ensemble.pid(id)).as("no JVM of its own").isEmpty();
        assertThat(ensemble.mode(id)).contains(id == leader ? "leader" : "follower");
      }
      ZooKeeper all = connect(ensemble.connectString());
      try {
        all.create("/before", new byte[] {1}, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
      } finally {
        all.close();
      }

      String leaderAddress = ensemble.connectString(leader);
      ensemble.kill(leader);
      assertThat(ensemble.isRunning(leader)).isFalse();
      assertThatThrownBy(() -> FourLetterWords.send(ensemble.clientAddress(leader), "ruok", 1_000))
          .as("the killed server's client port is closed")
          .isInstanceOf(IOException.class);
      assertThat(Files.readString(ensemble.logFile(leader)))
          .contains("killing server " + leader + " (in-process)");
      int second = ensemble.awaitLeader(WAIT);
      assertThat(second).isNotEqualTo(leader);
      ZooKeeper survivor = connect(ensemble.connectString(second));
      try {
        survivor.create(
            "/while-down", new byte[] {2}, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
      } finally {
        survivor.close();
      }

      ensemble.restart(leader);
      assertThat(ensemble.connectString(leader)).isEqualTo(leaderAddress);
      assertThat(ensemble.mode(leader)).contains("follower");
      assertThat(ensemble.awaitLeader(WAIT)).isEqualTo(second);
      ZooKeeper back = connect(ensemble.connectString(leader));
      try {
        assertThat(back.getData("/before", false, null)).containsExactly(1);
        assertThat(back.getData("/while-down", false, null)).containsExactly(2);
      } finally {
        back.close();
      }
    }
    assertThat(dir.resolve("server-1")).doesNotExist();
    NonDaemonThreads.awaitNoneBut(threadsBefore, WAIT);
  }

  private static ZooKeeper connect(String connectString) throws Exception {
    ZooKeeper zk = ZooKeepers.connect(connectString, Duration.ofSeconds(10), WAIT);
    return zk;
  }

  private static long awaitChildPid(Path log, Process parent, Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() - deadline < 0) {
      if (Files.exists(log)) {
        try (BufferedReader reader =
            new BufferedReader(
                new InputStreamReader(Files.newInputStream(log), StandardCharsets.UTF_8))) {
          String line;
          while ((line = reader.readLine()) != null) {
            if (line.startsWith("child-pid ")) {
              return Long.parseLong(line.substring("child-pid ".length()).trim());
            }
          }
        }
      }
      assertThat(parent.isAlive())
          .as("parent JVM alive; its output:\n%s", Files.exists(log) ? Files.readString(log) : "")
          .isTrue();
      Thread.sleep(50);
    }
    throw new AssertionError(
        "Parent JVM printed no child pid in "
            + timeout.toMillis()
            + " ms:\n"
            + Files.readString(log));
  }
}
