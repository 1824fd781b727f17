package io.zoolander.server.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link JitActivity} on a directory laid out as {@code /proc}: only the compiler threads count, of
 * every process asked, as increases since the previous call, across threads that come and go; and
 * on this machine's {@code /proc} where it has one.
 */
class JitActivityTest {
  @TempDir Path proc;

  private final List<Long> pids = new ArrayList<>(List.of(100L, 200L));

  @Test
  void countsOnlyCompilerThreadsOfTheProcessesAsked() throws IOException {
    thread(100, 101, "main", 500, 500);
    thread(100, 102, "C2 CompilerThre", 30, 4);
    thread(100, 103, "C1 CompilerThre", 5, 1);
    thread(200, 201, "C2 CompilerThre", 7, 0);
    thread(200, 202, "G1 Conc#0", 90, 9);
    thread(300, 301, "C2 CompilerThre", 1_000, 0); // a process not asked about
    JitActivity activity = new JitActivity(proc, () -> pids);

    assertThat(activity.compileNanosSinceLastCall())
        .as("34 + 6 + 7 ticks of 10 ms, at the first call since each thread started")
        .isEqualTo(47 * JitActivity.NANOS_PER_TICK);
    assertThat(activity.compileNanosSinceLastCall()).as("nothing compiled since").isZero();
  }

  @Test
  void countsIncreasesAcrossThreadsThatComeAndGo() throws IOException {
    thread(100, 102, "C2 CompilerThre", 30, 4);
    thread(100, 103, "C2 CompilerThre", 10, 0);
    JitActivity activity = new JitActivity(proc, () -> pids);
    activity.compileNanosSinceLastCall();

    thread(100, 102, "C2 CompilerThre", 35, 4); // +5
    delete(100, 103); // a compiler thread HotSpot stopped: what it had is not taken back
    thread(200, 204, "C1 CompilerThre", 2, 1); // a new one: +3
    assertThat(activity.compileNanosSinceLastCall()).isEqualTo(8 * JitActivity.NANOS_PER_TICK);

    pids.remove(200L);
    thread(100, 102, "C2 CompilerThre", 36, 5); // +2
    assertThat(activity.compileNanosSinceLastCall()).isEqualTo(2 * JitActivity.NANOS_PER_TICK);
  }

  @Test
  void aProcessGoneIsSkipped() throws IOException {
    thread(100, 102, "C2 CompilerThre", 3, 0);
    pids.add(999L); // no such directory
    assertThat(new JitActivity(proc, () -> pids).compileNanosSinceLastCall())
        .isEqualTo(3 * JitActivity.NANOS_PER_TICK);
  }

  @Test
  void readsThisJvmsCompilersWhereProcTells() {
    JitActivity activity = JitActivity.ofThisJvmAndDescendants();
    assumeTrue(activity.supported(), "no /proc with per-thread times here");
    // This JVM compiled on its way here (JUnit, AssertJ): its C1 and C2 threads have ticks.
    assertThat(activity.compileNanosSinceLastCall()).isPositive();
  }

  private void thread(long pid, long tid, String name, long utime, long stime) throws IOException {
    Path task = Files.createDirectories(proc.resolve(pid + "/task/" + tid));
    Files.writeString(task.resolve("comm"), name + "\n");
    // The kernel's layout: pid (comm) state, then fields 4..13, utime (14), stime (15), more.
    Files.writeString(
        task.resolve("stat"),
        tid
            + " ("
            + name
            + ") S 1 1 1 0 -1 4194368 100 0 0 0 "
            + utime
            + " "
            + stime
            + " 0 0 20 0 30 0 12345 0 0\n");
  }

  private void delete(long pid, long tid) throws IOException {
    Path task = proc.resolve(pid + "/task/" + tid);
    Files.delete(task.resolve("comm"));
    Files.delete(task.resolve("stat"));
    Files.delete(task);
  }
}
