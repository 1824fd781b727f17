package io.zoolander.server.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Pins a child process to one CPU with Linux's {@code taskset}, so that a bench can give each
 * partition a core of its own, a stand-in for a host of its own. {@code taskset -a} pins every
 * thread the process has; a thread started later inherits the mask of the thread that starts it, so
 * a JVM's later threads stay on the core too. Linux only; stateless.
 */
final class CpuAffinity {
  private static final long TASKSET_TIMEOUT_SECONDS = 10;

  private CpuAffinity() {}

  /**
   * The CPUs this JVM may run on ({@code Cpus_allowed_list} of {@code /proc/self/status}), in
   * order.
   *
   * @throws IOException if the list cannot be read (not Linux)
   */
  static List<Integer> allowedCpus() throws IOException {
    return allowedCpus(Path.of("/proc/self/status"));
  }

  /**
   * The CPUs {@code status} (a {@code /proc/<pid>/status} or {@code /proc/<pid>/task/<tid>/status}
   * file) allows, in order.
   *
   * @throws IOException if it cannot be read or has no {@code Cpus_allowed_list}
   */
  static List<Integer> allowedCpus(Path status) throws IOException {
    for (String line : Files.readAllLines(status, StandardCharsets.UTF_8)) {
      if (line.startsWith("Cpus_allowed_list:")) {
        return parseList(line.substring(line.indexOf(':') + 1).strip());
      }
    }
    throw new IOException(status + " has no Cpus_allowed_list");
  }

  /**
   * Parses a CPU list as the kernel writes it: {@code 0-3,6,8-9}.
   *
   * @throws IllegalArgumentException if it is not one
   */
  static List<Integer> parseList(String list) {
    List<Integer> cpus = new ArrayList<>();
    for (String part : list.split(",", -1)) {
      String[] range = part.strip().split("-", -1);
      try {
        int from = Integer.parseInt(range[0]);
        int to = range.length == 2 ? Integer.parseInt(range[1]) : from;
        if (range.length > 2 || from < 0 || to < from) {
          throw new IllegalArgumentException("not a CPU list: '" + list + "'");
        }
        for (int cpu = from; cpu <= to; cpu++) {
          cpus.add(cpu);
        }
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("not a CPU list: '" + list + "'", e);
      }
    }
    return List.copyOf(cpus);
  }

  /**
   * Pins every thread of process {@code pid} to {@code cpu}.
   *
   * @throws IOException if {@code taskset} is missing or refuses (its output is in the message)
   */
  static void pin(long pid, int cpu) throws IOException, InterruptedException {
    pin(pid, List.of(cpu));
  }

  /**
   * Pins every thread of process {@code pid} to {@code cpus}.
   *
   * @throws IOException if {@code taskset} is missing or refuses (its output is in the message)
   */
  static void pin(long pid, List<Integer> cpus) throws IOException, InterruptedException {
    String list = String.join(",", cpus.stream().map(String::valueOf).toList());
    String what = "pin process " + pid + " to CPU" + (cpus.size() == 1 ? " " : "s ") + list;
    taskset(what, "-a", "-p", "-c", list, pid + "");
  }

  /**
   * Which CPUs the partitions get and which the bench's own JVM (the client) keeps.
   *
   * @param partitionCpus partition i runs on {@code partitionCpus.get(i % size)}
   * @param clientCpus the bench's JVM's CPUs; shared with the partitions when there are not more
   *     CPUs than partitions
   */
  record Plan(List<Integer> partitionCpus, List<Integer> clientCpus) {
    /**
     * With more CPUs than the most partitions, each partition gets one of the last ones and the
     * client the others, the same ones whatever the partition count, so that the client's share
     * does not change between the counts compared; otherwise the partitions take the CPUs round
     * robin and the client runs on any.
     *
     * @throws IllegalArgumentException if {@code allowed} is empty or {@code maxPartitions < 1}
     */
    static Plan of(List<Integer> allowed, int maxPartitions) {
      if (allowed.isEmpty() || maxPartitions < 1) {
        throw new IllegalArgumentException(
            "a CPU plan needs CPUs and partitions, had " + allowed + " and " + maxPartitions);
      }
      if (allowed.size() > maxPartitions) {
        int split = allowed.size() - maxPartitions;
        return new Plan(
            List.copyOf(allowed.subList(split, allowed.size())),
            List.copyOf(allowed.subList(0, split)));
      }
      return new Plan(List.copyOf(allowed), List.copyOf(allowed));
    }

    /** Whether the client shares its CPUs with the partitions. */
    boolean clientShares() {
      return partitionCpus.stream().anyMatch(clientCpus::contains);
    }
  }

  /**
   * Checks that {@code taskset} runs here, by asking it this JVM's affinity.
   *
   * @throws IOException if it does not, saying what is needed
   */
  static void requireTaskset() throws IOException, InterruptedException {
    taskset("read this JVM's affinity", "-p", ProcessHandle.current().pid() + "");
  }

  private static void taskset(String what, String... args)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of("taskset"));
    command.addAll(List.of(args));
    Process taskset;
    try {
      taskset = new ProcessBuilder(command).redirectErrorStream(true).start();
    } catch (IOException e) {
      throw new IOException(
          "CPU pinning needs Linux's taskset (util-linux), which did not run: " + e.getMessage(),
          e);
    }
    String output = new String(taskset.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!taskset.waitFor(TASKSET_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
      taskset.destroyForcibly();
      throw new IOException("taskset did not finish: could not " + what);
    }
    if (taskset.exitValue() != 0) {
      throw new IOException(
          "taskset could not " + what + " (exit " + taskset.exitValue() + "): " + output.strip());
    }
  }
}
