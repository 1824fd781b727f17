package io.zoolander.server.testing;

import io.zoolander.server.internal.testing.Ports;
import io.zoolander.server.internal.testing.RepeaterChildMain;
import io.zoolander.server.internal.testing.ThisClassPath;
import io.zoolander.server.repeater.RepeaterSettings;
import io.zoolander.wire.Znodes;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A repeater in a child JVM running {@code zoolander repeater}, on 127.0.0.1 at a fixed port, so
 * that a test can kill it like {@code kill -9} ({@link #kill()}) and see another take over. Part of
 * the testing artifact; {@link EmbeddedCluster#repeaterProcess()} gives a builder preset for a
 * cluster's duplicates.
 *
 * <pre>{@code
 * try (RepeaterProcess active = cluster.repeaterProcess().start()) {
 *   ZoolanderClient client = cluster.clientBuilder(List.of(active.address(), standbyAddress)).build();
 *   ...
 *   active.kill();                                  // SIGKILL: no drain, no goodbye
 *   cluster.startRepeater(b -> b.clientListen("127.0.0.1", standbyAddress.getPort()));  // takes over
 * }
 * }</pre>
 *
 * <p>The child's standard output and error go to {@code repeater.log} in its directory. Like the
 * servers of a {@link ZooKeeperEnsemble}, the child never outlives the JVM that started it. Not
 * thread-safe.
 */
public final class RepeaterProcess implements AutoCloseable {
  private static final Pattern LISTENING =
      Pattern.compile("repeater listening on [^:]+:(\\d+), epoch (\\d+), next seq (\\d+)");
  private static final Pattern STANDBY = Pattern.compile("repeater standby, heartbeat (\\S+):");
  private static final Pattern TOOK_OVER = Pattern.compile("failover: took over (\\d+) ms");
  private static final long POLL_MILLIS = 20;

  private final Builder config;
  private final Path dir;
  private Process process;
  private OutputStream stdin; // held so that the child's standard input stays open
  private long epoch = -1;

  private RepeaterProcess(Builder config, Path dir) {
    this.config = config;
    this.dir = dir;
  }

  public static Builder builder() {
    return new Builder();
  }

  private void launch(boolean standby) throws IOException, InterruptedException, TimeoutException {
    Path properties = dir.resolve("repeater.properties");
    StringBuilder text =
        new StringBuilder()
            .append("clientHost=127.0.0.1\n")
            .append("clientPort=")
            .append(config.clientPort)
            .append('\n')
            .append("basePath=")
            .append(config.znodes.basePath())
            .append('\n')
            .append("logCapacity=")
            .append(config.logCapacity)
            .append('\n')
            .append("startTimeoutMs=")
            .append(config.startTimeout.toMillis())
            .append('\n');
    config.properties.forEach(
        (key, value) -> text.append(key).append('=').append(value).append('\n'));
    config.duplicates.forEach(
        (id, connectString) ->
            text.append("duplicate.").append(id).append('=').append(connectString).append('\n'));
    Files.writeString(properties, text.toString(), StandardCharsets.UTF_8);
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(config.jvmArgs);
    command.add("-cp");
    command.add(config.classpath != null ? config.classpath : ThisClassPath.absolute());
    command.add(RepeaterChildMain.class.getName());
    command.add("repeater");
    command.add("--config");
    command.add(properties.toString());
    process =
        new ProcessBuilder(command)
            .directory(dir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile().toFile()))
            .redirectInput(ProcessBuilder.Redirect.PIPE)
            .start();
    stdin = process.getOutputStream();
    awaitLine(standby ? STANDBY : LISTENING, config.startTimeout.plusSeconds(30));
  }

  /**
   * Waits until the child listens for clients (a standby: until it has taken over).
   *
   * @throws IOException if the child exits first (its output is quoted)
   * @throws TimeoutException if it does not listen in time (it is then killed)
   */
  public void awaitListening(Duration timeout)
      throws IOException, InterruptedException, TimeoutException {
    awaitLine(LISTENING, timeout);
  }

  private void awaitLine(Pattern line, Duration timeout)
      throws IOException, InterruptedException, TimeoutException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      Matcher m = line.matcher(output());
      if (m.find()) {
        if (line == LISTENING) {
          epoch = Long.parseLong(m.group(2));
        }
        return;
      }
      if (!process.isAlive()) {
        throw new IOException(
            "the repeater exited with status "
                + process.exitValue()
                + " before listening:\n"
                + output());
      }
      if (System.nanoTime() - deadline > 0) {
        kill();
        throw new TimeoutException(
            "the repeater did not print '" + line + "' within " + timeout + ":\n" + output());
      }
      Thread.sleep(POLL_MILLIS);
    }
  }

  /** Where clients connect. */
  // AddressSelection: the IPv4 loopback literal on purpose: clients connect to and verify the
  // host string "127.0.0.1"; getLoopbackAddress() is named "localhost" (and is ::1 when IPv6 is
  // preferred), which would change both.
  @SuppressWarnings("AddressSelection")
  public InetSocketAddress address() {
    return new InetSocketAddress("127.0.0.1", config.clientPort);
  }

  /**
   * As a standby ({@link Builder#startStandby()}): how long its takeover took by its own count,
   * from the active repeater presumed dead to serving; -1 before it took over.
   */
  public long takeoverMillis() {
    Matcher m = TOOK_OVER.matcher(output());
    return m.find() ? Long.parseLong(m.group(1)) : -1;
  }

  /**
   * As a standby ({@link Builder#startStandby()}): its heartbeat address, its election identity.
   */
  public String heartbeatAddress() {
    Matcher m = STANDBY.matcher(output());
    return m.find() ? m.group(1) : "";
  }

  /** The epoch it printed when it started. */
  public long epoch() {
    return epoch;
  }

  public boolean isRunning() {
    return process != null && process.isAlive();
  }

  /** The process id, for logs. */
  public long pid() {
    return process.pid();
  }

  /** Kills the child like {@code kill -9} (SIGKILL) and waits until it is gone. */
  public void kill() throws InterruptedException {
    if (process == null) {
      return;
    }
    process.destroyForcibly();
    process.waitFor(10, TimeUnit.SECONDS);
    try {
      stdin.close();
    } catch (IOException e) {
      // the child is gone anyway
    }
  }

  /** The file that collects the child's output. */
  public Path logFile() {
    return dir.resolve("repeater.log");
  }

  /** Everything the child printed so far. */
  public String output() {
    try {
      return Files.exists(logFile()) ? Files.readString(logFile(), StandardCharsets.UTF_8) : "";
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Kills the child and deletes its directory. */
  @Override
  public void close() {
    try {
      kill();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete " + dir, e);
    }
  }

  /** Configures a {@link RepeaterProcess}; every setter validates its argument. */
  public static final class Builder {
    private final Map<Integer, String> duplicates = new LinkedHashMap<>();
    private Znodes znodes = Znodes.defaults();
    private int clientPort;
    private int logCapacity = RepeaterSettings.DEFAULT_LOG_CAPACITY_MESSAGES;
    private Duration startTimeout = Duration.ofSeconds(30);
    private Path baseDir;
    private String classpath;
    private final List<String> jvmArgs =
        new ArrayList<>(
            List.of(
                "-Xms32m",
                "-Xmx256m",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-Djava.net.preferIPv4Stack=true"));

    private final Map<String, String> properties = new LinkedHashMap<>();

    private Builder() {}

    /**
     * Adds a line {@code key=value} to the child's {@code repeater.properties} (the repeater
     * validates it), e.g. {@code failover.heartbeatTimeoutMs}.
     */
    public Builder property(String key, String value) {
      Objects.requireNonNull(key, "key must not be null");
      Objects.requireNonNull(value, "value must not be null");
      properties.put(key, value);
      return this;
    }

    /** Adds a duplicate (as the repeater's {@code duplicate.<id>} setting). */
    public Builder duplicate(int duplicateId, String connectString) {
      if (duplicateId < 0) {
        throw new IllegalArgumentException("duplicateId must be >= 0, was " + duplicateId);
      }
      Objects.requireNonNull(connectString, "connectString must not be null");
      duplicates.put(duplicateId, connectString);
      return this;
    }

    /** Base path of Zoolander's znodes (default {@code /zoolander}). */
    public Builder basePath(String basePath) {
      this.znodes = new Znodes(basePath);
      return this;
    }

    /** The client port, 1..65535 (default: a free port picked when it starts). */
    public Builder clientPort(int port) {
      if (port < 1 || port > 65535) {
        throw new IllegalArgumentException("clientPort must be in 1..65535, was " + port);
      }
      this.clientPort = port;
      return this;
    }

    /** The retransmission log capacity in messages (default as the repeater's). */
    public Builder logCapacity(int messages) {
      if (messages < 1) {
        throw new IllegalArgumentException("logCapacity must be >= 1, was " + messages);
      }
      this.logCapacity = messages;
      return this;
    }

    /**
     * The repeater's start timeout (default 30 s); waiting for it to listen allows 30 s more for
     * the JVM.
     */
    public Builder startTimeout(Duration timeout) {
      Objects.requireNonNull(timeout, "startTimeout must not be null");
      if (timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("startTimeout must be positive, was " + timeout);
      }
      this.startTimeout = timeout;
      return this;
    }

    /**
     * The directory under which the child's directory is created (default: a new temporary
     * directory).
     */
    public Builder baseDir(Path dir) {
      this.baseDir = Objects.requireNonNull(dir, "baseDir must not be null");
      return this;
    }

    /** The child's class path (default: this JVM's). */
    public Builder classpath(String classpath) {
      this.classpath = Objects.requireNonNull(classpath, "classpath must not be null");
      return this;
    }

    /** Adds JVM arguments for the child. */
    public Builder jvmArgs(String... args) {
      jvmArgs.addAll(List.of(args));
      return this;
    }

    /**
     * Starts the child and waits until it listens for clients (it has claimed its epoch and
     * recovered).
     *
     * @throws IllegalStateException if no duplicate is configured
     * @throws IOException if the child cannot be started or exits first (its output is quoted)
     * @throws TimeoutException if it does not listen in time
     */
    public RepeaterProcess start() throws IOException, InterruptedException, TimeoutException {
      return start(false);
    }

    /**
     * Starts the child with automatic failover on ({@code failover=true}) and waits until it is a
     * standby; it takes over when elected ({@link RepeaterProcess#awaitListening}).
     *
     * @throws IllegalStateException if no duplicate is configured
     * @throws IOException if the child cannot be started or exits first (its output is quoted)
     * @throws TimeoutException if it does not become a standby in time
     */
    public RepeaterProcess startStandby()
        throws IOException, InterruptedException, TimeoutException {
      properties.put("failover", "true");
      return start(true);
    }

    private RepeaterProcess start(boolean standby)
        throws IOException, InterruptedException, TimeoutException {
      if (duplicates.isEmpty()) {
        throw new IllegalStateException("a repeater needs at least one duplicate");
      }
      if (clientPort == 0) {
        clientPort = Ports.next();
      }
      Path parent =
          baseDir != null
              ? Files.createDirectories(baseDir)
              : Files.createTempDirectory("zoolander-");
      RepeaterProcess repeater =
          new RepeaterProcess(this, Files.createTempDirectory(parent, "repeater-"));
      repeater.launch(standby);
      return repeater;
    }
  }
}
