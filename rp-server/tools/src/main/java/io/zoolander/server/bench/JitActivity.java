package io.zoolander.server.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * The CPU time the JIT compilers of some processes spend, read from Linux's {@code /proc}: the
 * threads whose name starts with {@code C1 CompilerThre} or {@code C2 CompilerThre} (HotSpot's
 * compiler threads, as the kernel truncates their names), their user and system time in clock ticks
 * of 10 ms ({@code USER_HZ}, 100 on Linux).
 *
 * <p>Why the bench needs it: every deployment the bench starts is a set of fresh JVMs (duplicates,
 * repeaters), and on 2 cores their compilers compete with the load for tens of seconds. A
 * measurement taken meanwhile measures compilation; the bench loads a deployment until its
 * compilers are quiet ({@link JitWarmup}).
 *
 * <p>HotSpot starts and stops compiler threads as the compile queue grows and shrinks, so the time
 * is counted per thread, as the increase since the previous call; what a thread spent between the
 * last call and its exit is lost, which only makes a turn look quieter by at most one thread's last
 * interval. Not thread-safe: one caller.
 */
final class JitActivity {
  /** A clock tick of {@code /proc/<pid>/task/<tid>/stat}: {@code USER_HZ} is 100 on Linux. */
  static final long NANOS_PER_TICK = 10_000_000L;

  private static final List<String> COMPILER_THREAD_PREFIXES =
      List.of("C1 CompilerThre", "C2 CompilerThre");

  private final Path proc;
  private final Supplier<List<Long>> pids;
  private final Map<Long, Long> ticksByThread = new HashMap<>();

  /**
   * @param proc the {@code /proc} file system (a directory laid out like it, in tests)
   * @param pids the processes whose compilers count, asked anew at every call
   */
  JitActivity(Path proc, Supplier<List<Long>> pids) {
    this.proc = proc;
    this.pids = pids;
  }

  /** The compilers of this JVM and of every process it started, directly or not. */
  static JitActivity ofThisJvmAndDescendants() {
    return new JitActivity(
        Path.of("/proc"),
        () ->
            Stream.concat(Stream.of(ProcessHandle.current()), ProcessHandle.current().descendants())
                .map(ProcessHandle::pid)
                .toList());
  }

  /** Whether {@code /proc} gives per-thread times here (Linux). */
  boolean supported() {
    return Files.isDirectory(proc.resolve("self").resolve("task"));
  }

  /**
   * The compilers' CPU time since the previous call, in nanoseconds; at the first call, since each
   * compiler thread started. Processes and threads gone since are skipped.
   */
  long compileNanosSinceLastCall() {
    Map<Long, Long> now = new HashMap<>();
    for (long pid : pids.get()) {
      Path tasks = proc.resolve(Long.toString(pid)).resolve("task");
      try (DirectoryStream<Path> threads = Files.newDirectoryStream(tasks)) {
        for (Path thread : threads) {
          Long ticks = compilerTicks(thread);
          if (ticks != null) {
            now.put(Long.parseLong(thread.getFileName().toString()), ticks);
          }
        }
      } catch (NoSuchFileException gone) {
        // the process ended between listing and reading
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    long ticks = 0;
    for (Map.Entry<Long, Long> e : now.entrySet()) {
      ticks += Math.max(0, e.getValue() - ticksByThread.getOrDefault(e.getKey(), 0L));
    }
    ticksByThread.clear();
    ticksByThread.putAll(now);
    return ticks * NANOS_PER_TICK;
  }

  /** A compiler thread's user + system ticks, or null if it is another thread or gone. */
  private static Long compilerTicks(Path thread) throws IOException {
    String comm;
    String stat;
    try {
      comm = Files.readString(thread.resolve("comm"), StandardCharsets.UTF_8).strip();
      if (COMPILER_THREAD_PREFIXES.stream().noneMatch(comm::startsWith)) {
        return null;
      }
      stat = Files.readString(thread.resolve("stat"), StandardCharsets.UTF_8);
    } catch (NoSuchFileException gone) {
      return null;
    }
    // After the name in parentheses (which may hold spaces): state is field 3, utime 14, stime 15.
    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).strip().split(" ");
    return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
  }
}
