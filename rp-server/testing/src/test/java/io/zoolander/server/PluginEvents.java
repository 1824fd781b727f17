package io.zoolander.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

/**
 * A file in a server's data directory where the test plugins record their lifecycle, one line per
 * event ({@code start <epoch>}, {@code stop <epoch>}...), so a test can see from outside what
 * happened inside a child JVM.
 */
final class PluginEvents {

  static final String FILE_NAME = "leader-plugin-events.log";

  private PluginEvents() {}

  static void record(LeaderContext context, String event) {
    try {
      Files.writeString(
          context.dataDir().resolve(FILE_NAME),
          event + " " + context.epoch() + "\n",
          StandardCharsets.UTF_8,
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * @return the events recorded in that data directory, oldest first; empty if none
   */
  static List<String> read(Path dataDir) {
    Path file = dataDir.resolve(FILE_NAME);
    try {
      return Files.exists(file) ? Files.readAllLines(file, StandardCharsets.UTF_8) : List.of();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static long count(Path dataDir, String event) {
    return read(dataDir).stream().filter(line -> line.startsWith(event + " ")).count();
  }
}
