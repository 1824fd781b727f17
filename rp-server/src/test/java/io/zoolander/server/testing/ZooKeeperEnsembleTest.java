package io.zoolander.server.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The testing artifact's own guarantees. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ZooKeeperEnsembleTest {

    @TempDir
    Path dir;

    /**
     * Runs in an intermediate JVM: starts a one-server ensemble, prints the server's pid, then
     * waits to be killed.
     */
    public static final class ParentMain {
        public static void main(String[] args) throws Exception {
            ZooKeeperEnsemble ensemble = ZooKeeperEnsemble.builder()
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
        Process parent = new ProcessBuilder(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                "-cp", System.getProperty("java.class.path"),
                ParentMain.class.getName(), dir.toString()))
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
        try (ZooKeeperEnsemble ensemble = ZooKeeperEnsemble.builder()
                .servers(3)
                .baseDir(dir)
                .property("zoolander.custom", "x")
                .property("4lw.commands.whitelist", "mntr")
                .build()) {
            assertThat(ensemble.serverIds()).containsExactly(1, 2, 3);
            assertThat(ensemble.connectString().split(",")).hasSize(3);
            String cfg = Files.readString(ensemble.configFile(2));
            assertThat(cfg).contains("standaloneEnabled=false", "admin.enableServer=false", "forceSync=no",
                    "zoolander.custom=x", "4lw.commands.whitelist=srvr, ruok, mntr", "server.3=127.0.0.1:");
            assertThat(Files.readString(ensemble.dataDir(2).resolve("myid")).trim()).isEqualTo("2");
            assertThat(ensemble.leaderId()).isEmpty(); // not started
        }
        assertThat(dir.resolve("server-1")).doesNotExist();
        assertThat(dir).exists(); // a given base directory is kept
    }

    private static long awaitChildPid(Path log, Process parent, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() - deadline < 0) {
            if (Files.exists(log)) {
                try (BufferedReader reader = new BufferedReader(new InputStreamReader(Files.newInputStream(log), StandardCharsets.UTF_8))) {
                    String line;
                    while ((line = reader.readLine()) != null) {
                        if (line.startsWith("child-pid ")) {
                            return Long.parseLong(line.substring("child-pid ".length()).trim());
                        }
                    }
                }
            }
            assertThat(parent.isAlive()).as("parent JVM alive; its output:\n%s",
                    Files.exists(log) ? Files.readString(log) : "").isTrue();
            Thread.sleep(50);
        }
        throw new AssertionError("Parent JVM printed no child pid in " + timeout.toMillis() + " ms:\n" + Files.readString(log));
    }
}
