package io.zoolander.wire.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Where a sequenced write's time goes: each process on its path (the client, the repeater, every
 * plugin) records when a sampled write passes each {@link Stage}, and {@code zoolander bench
 * --trace-writes} joins the records by {@code (clientId, requestId)} into the time between stages.
 * The timestamps are {@link System#nanoTime()}, which on Linux reads {@code CLOCK_MONOTONIC}, one
 * clock for every process of a host, so stages recorded in different JVMs on one host can be
 * subtracted.
 *
 * <p>Off unless the system property {@value #DIRECTORY_PROPERTY} names a directory: then every
 * {@value #DEFAULT_EVERY}th request id ({@value #EVERY_PROPERTY} to change it) is recorded, in
 * memory on the thread that passes the stage, and appended by a daemon thread every 50 ms to {@code
 * <directory>/<pid>.trace} as lines {@code stage clientId requestId nanos}. Off, {@link #mark} is
 * one read of a constant. A diagnostic, not a meter: internal.
 */
public final class WriteTrace {
  /** The system property naming the directory the records go to; absent: tracing is off. */
  public static final String DIRECTORY_PROPERTY = "zoolander.traceWrites";

  /** The system property giving which request ids are recorded: every this many (a power of 2). */
  public static final String EVERY_PROPERTY = "zoolander.traceWrites.every";

  /** Every this many request ids are recorded by default. */
  public static final int DEFAULT_EVERY = 8;

  /** Where a write is, in the order it passes them. */
  public enum Stage {
    /** The application called the client's write. */
    CLIENT_CALLED("client called"),
    /** The client's event loop sends the WRITE. */
    CLIENT_SENT("client sent"),
    /** The repeater's client I/O thread read the WRITE. */
    REPEATER_READ("repeater read"),
    /** The sequencer gave it its seq. */
    SEQUENCED("sequenced"),
    /** A plugin's event loop read the SEQUENCED. */
    PLUGIN_READ("plugin read"),
    /** The applier thread took it. */
    APPLIER_TOOK("applier took"),
    /** The applier submitted its ZooKeeper multi. */
    MULTI_SUBMITTED("multi submitted"),
    /** The multi was committed and the applier has its results. */
    MULTI_DONE("multi done"),
    /** The plugin sent the REPLY. */
    PLUGIN_REPLIED("plugin replied"),
    /** The client's event loop read the first REPLY. */
    CLIENT_ANSWERED("client answered");

    private final String words;

    Stage(String words) {
      this.words = words;
    }

    /** The stage in words, for reports. */
    public String words() {
      return words;
    }

    /** Whether a plugin records it (each duplicate's plugin records its own). */
    public boolean inPlugin() {
      return compareTo(PLUGIN_READ) >= 0 && compareTo(PLUGIN_REPLIED) <= 0;
    }
  }

  private static final Path DIRECTORY = directory();
  private static final boolean ON = DIRECTORY != null;
  private static final long MASK = mask();
  private static final ConcurrentLinkedQueue<String> PENDING = new ConcurrentLinkedQueue<>();

  static {
    if (ON) {
      Thread writer = new Thread(WriteTrace::drainForever, "zoolander-write-trace");
      writer.setDaemon(true);
      writer.start();
    }
  }

  private WriteTrace() {}

  private static Path directory() {
    String dir = System.getProperty(DIRECTORY_PROPERTY);
    return dir == null || dir.isBlank() ? null : Path.of(dir);
  }

  private static long mask() {
    int every = Integer.getInteger(EVERY_PROPERTY, DEFAULT_EVERY);
    if (every < 1 || Integer.bitCount(every) != 1) {
      throw new IllegalArgumentException(
          EVERY_PROPERTY + " must be a power of 2, was " + every); // a diagnostic's own typo
    }
    return every - 1L;
  }

  /** Whether tracing is on in this JVM. */
  public static boolean on() {
    return ON;
  }

  /** The write {@code (clientId, requestId)} passes {@code stage} now. Any thread. */
  public static void mark(Stage stage, long clientId, long requestId) {
    if (ON) {
      mark(stage, clientId, requestId, System.nanoTime());
    }
  }

  /** The write {@code (clientId, requestId)} passed {@code stage} at {@code nanos}. Any thread. */
  public static void mark(Stage stage, long clientId, long requestId, long nanos) {
    if (ON && (requestId & MASK) == 0) {
      PENDING.add(stage.name() + ' ' + clientId + ' ' + requestId + ' ' + nanos + '\n');
    }
  }

  /**
   * Appends this JVM's pending records to its file now, on the calling thread, rather than at the
   * writer's next round: a report reads them next. Does nothing when tracing is off.
   *
   * @throws IOException if the file cannot be written
   */
  public static void flush() throws IOException {
    if (ON) {
      drain();
    }
  }

  private static synchronized void drain() throws IOException {
    StringBuilder lines = new StringBuilder();
    String line;
    while ((line = PENDING.poll()) != null) {
      lines.append(line);
    }
    if (lines.length() > 0) {
      Files.createDirectories(DIRECTORY);
      Files.writeString(
          DIRECTORY.resolve(ProcessHandle.current().pid() + ".trace"),
          lines,
          StandardCharsets.UTF_8,
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
    }
  }

  private static void drainForever() {
    try {
      while (true) {
        drain();
        Thread.sleep(50);
      }
    } catch (IOException e) {
      System.err.println("zoolander: write trace stopped: cannot write in " + DIRECTORY + ": " + e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
