package io.zoolander.server.testing;

import io.zoolander.server.ZoolanderPeerMain;
import io.zoolander.server.internal.testing.EnsembleChildMain;
import io.zoolander.server.internal.testing.FourLetterWords;
import io.zoolander.server.internal.testing.InProcessPeer;
import io.zoolander.server.internal.testing.Ports;
import io.zoolander.server.internal.testing.ThisClassPath;
import io.zoolander.server.plugin.ZoolanderPluginConfig;
import io.zoolander.server.plugin.ZoolanderPluginFactory;
import io.zoolander.wire.Znodes;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;

/**
 * A real ZooKeeper ensemble (one duplicate) of 1, 3 or 5 servers, each running {@link
 * ZoolanderPeerMain} from a generated {@code zoo.cfg}, all on 127.0.0.1: as a child JVM (the
 * default) or on threads of this JVM ({@link Builder#serverMode(ServerMode)}; see {@link
 * ServerMode} for what differs). This is the testing artifact of {@code rp-server}, for tests and
 * for the embedded cluster.
 *
 * <pre>{@code
 * try (ZooKeeperEnsemble ensemble = ZooKeeperEnsemble.builder()
 *         .servers(3)
 *         .property(ZoolanderPeerMain.PLUGIN_FACTORY_KEY, MyPluginFactory.class.getName())
 *         .start()) {
 *     ZooKeeper zk = new ZooKeeper(ensemble.connectString(), 10_000, event -> { });
 *     int leader = ensemble.awaitLeader(Duration.ofSeconds(10));
 *     ensemble.kill(leader);                 // kill -9 (in-process: as abrupt as a JVM allows)
 *     ensemble.awaitLeader(Duration.ofSeconds(10));
 *     ensemble.restart(leader);
 * }
 * }</pre>
 *
 * <p>Servers are named by their ZooKeeper server id ({@code myid}, 1..n, the {@code N} of {@code
 * server.N}), which is also what a plugin sees as {@link
 * io.zoolander.server.LeaderContext#serverId()}.
 *
 * <p>Layout: {@code baseDir/server-N/} holds {@code zoo.cfg}, {@code data/} and {@code server.log}
 * (the child's standard output and error, appended across restarts; in-process, only the ensemble's
 * own lines). The generated configuration has {@code standaloneEnabled=false} (so a one-server
 * ensemble has a leader), the AdminServer disabled, the {@code srvr} and {@code ruok} four-letter
 * words enabled (the ensemble asks {@code srvr} who leads and who serves), free ports below the
 * kernel's ephemeral range, and {@code forceSync=no} unless fsync is asked for ({@code
 * forceSync=yes}). Extra entries, Zoolander's included, are added with {@link
 * Builder#property(String, String)} and win over the defaults.
 *
 * <p>Children never outlive the JVM that started them: they halt when their standard input (held by
 * this JVM) reaches end-of-file or when their parent process exits, and a shutdown hook kills them.
 * In-process servers die with this JVM. {@link #close()} kills every server and deletes the
 * directories it created.
 *
 * <p>Not thread-safe: drive one ensemble from one thread at a time.
 */
public final class ZooKeeperEnsemble implements AutoCloseable {

  private static final int PROBE_TIMEOUT_MILLIS = 1_000;
  private static final long POLL_MILLIS = 50;

  private final ServerMode serverMode;
  private final Path baseDir;
  private final boolean ownsBaseDir;
  private final boolean deleteOnClose;
  private final List<Server> servers;
  private final List<String> jvmArgs;
  private final String classpath;
  private final Duration startTimeout;
  private final Thread killOnExit;
  private boolean closed;

  private ZooKeeperEnsemble(Builder builder) throws IOException {
    this.serverMode = builder.serverMode;
    this.ownsBaseDir = builder.baseDir == null;
    this.baseDir =
        ownsBaseDir
            ? Files.createTempDirectory("zoolander-ensemble-")
            : Files.createDirectories(builder.baseDir.toAbsolutePath());
    this.deleteOnClose = builder.deleteOnClose;
    this.jvmArgs = List.copyOf(builder.jvmArgs);
    this.classpath = builder.classpath != null ? builder.classpath : ThisClassPath.absolute();
    this.startTimeout = builder.startTimeout;
    List<Server> list = new ArrayList<>();
    for (int id = 1; id <= builder.servers; id++) {
      list.add(
          new Server(
              id, Ports.next(), Ports.next(), Ports.next(), baseDir.resolve("server-" + id)));
    }
    this.servers = Collections.unmodifiableList(list);
    for (Server server : servers) {
      Files.createDirectories(server.dataDir());
      Files.writeString(
          server.dataDir().resolve("myid"), server.id + "\n", StandardCharsets.US_ASCII);
      writeConfig(server, builder);
    }
    if (serverMode == ServerMode.CHILD_JVM) {
      this.killOnExit = new Thread(this::killAll, "zoolander-ensemble-kill-on-exit");
      Runtime.getRuntime().addShutdownHook(killOnExit);
    } else {
      this.killOnExit = null; // in-process servers end with this JVM
    }
  }

  /**
   * @return a builder for a three-server ensemble with default settings
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Starts every server that is not running and waits until the ensemble serves: every server
   * answers as leader or follower, and a ZooKeeper client connected to {@link #connectString()} can
   * read.
   *
   * @return this ensemble
   * @throws IOException if a child cannot be started
   * @throws TimeoutException if the ensemble does not serve within the start timeout, or a server
   *     ends meanwhile (its log, or in-process its failure, is quoted)
   * @throws InterruptedException if interrupted while waiting
   */
  public ZooKeeperEnsemble start() throws IOException, InterruptedException, TimeoutException {
    checkOpen();
    for (Server server : servers) {
      if (!server.isRunning()) {
        launch(server);
      }
    }
    long deadline = System.nanoTime() + startTimeout.toNanos();
    for (Server server : servers) {
      awaitServing(server, deadline);
    }
    awaitClientRead(connectString(), deadline);
    return this;
  }

  /**
   * @return the connect string of all servers, {@code 127.0.0.1:port,...}
   */
  public String connectString() {
    return servers.stream().map(s -> "127.0.0.1:" + s.clientPort).collect(Collectors.joining(","));
  }

  /**
   * @param serverId a server id (1..{@link #size()})
   * @return the connect string of that server alone
   */
  public String connectString(int serverId) {
    return "127.0.0.1:" + server(serverId).clientPort;
  }

  /**
   * @param serverId a server id
   * @return that server's client address
   */
  public InetSocketAddress clientAddress(int serverId) {
    return new InetSocketAddress(InetAddress.getLoopbackAddress(), server(serverId).clientPort);
  }

  /**
   * @return where the servers run
   */
  public ServerMode serverMode() {
    return serverMode;
  }

  /**
   * @return the number of servers
   */
  public int size() {
    return servers.size();
  }

  /**
   * @return the server ids, 1..{@link #size()}
   */
  public List<Integer> serverIds() {
    return servers.stream().map(s -> s.id).toList();
  }

  /**
   * @return the directory holding the servers' directories
   */
  public Path baseDir() {
    return baseDir;
  }

  /**
   * @param serverId a server id
   * @return that server's {@code dataDir}
   */
  public Path dataDir(int serverId) {
    return server(serverId).dataDir();
  }

  /**
   * @param serverId a server id
   * @return that server's {@code zoo.cfg}
   */
  public Path configFile(int serverId) {
    return server(serverId).configFile();
  }

  /**
   * @param serverId a server id
   * @return the file that collects that server's output (in-process: only the ensemble's lines
   *     about it, since the server logs through this JVM's SLF4J binding)
   */
  public Path logFile(int serverId) {
    return server(serverId).logFile();
  }

  /**
   * @param serverId a server id
   * @return whether that server's JVM (in-process: its thread) is alive
   */
  public boolean isRunning(int serverId) {
    return server(serverId).isRunning();
  }

  /**
   * @param serverId a server id
   * @return the process id of that server's JVM, empty if it is not running or runs in-process
   */
  public OptionalLong pid(int serverId) {
    Process p = server(serverId).process;
    return p != null && p.isAlive() ? OptionalLong.of(p.pid()) : OptionalLong.empty();
  }

  /**
   * Kills a server like {@code kill -9} and waits until its JVM is gone. In-process, where that
   * cannot be, it is as abrupt as this JVM allows: the server's client port and connections close
   * first, then its {@code QuorumPeer} shuts down (see {@link ServerMode#IN_PROCESS}), and this
   * returns once its threads are gone.
   *
   * @param serverId a server id
   * @throws InterruptedException if interrupted while waiting
   */
  public void kill(int serverId) throws InterruptedException {
    server(serverId).kill();
  }

  /**
   * Stops a server with SIGTERM, which runs its shutdown hooks (the plugin is stopped), and waits
   * until its JVM is gone; kills it if it takes longer than 10 seconds. In-process, the same order:
   * the plugin stops while its server still serves, then ZooKeeper shuts down.
   *
   * @param serverId a server id
   * @throws InterruptedException if interrupted while waiting
   */
  public void stop(int serverId) throws InterruptedException {
    Server server = server(serverId);
    InProcessPeer peer = server.peer;
    if (peer != null) {
      if (peer.isRunning()) {
        server.log("stopping server " + server.id + " (in-process)");
      }
      peer.stop();
      return;
    }
    Process process = server.process;
    if (process == null || !process.isAlive()) {
      return;
    }
    process.destroy();
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      server.kill();
    }
  }

  /**
   * Starts a server again with the same configuration, ports and data (killing it first if it is
   * still running), and waits until it serves.
   *
   * @param serverId a server id
   * @throws IOException if the child cannot be started or its log written
   * @throws TimeoutException if it does not serve within the start timeout
   * @throws InterruptedException if interrupted while waiting
   */
  public void restart(int serverId) throws IOException, InterruptedException, TimeoutException {
    checkOpen();
    Server server = server(serverId);
    server.kill();
    launch(server);
    awaitServing(server, System.nanoTime() + startTimeout.toNanos());
  }

  /**
   * Asks a server its role now ({@code srvr}).
   *
   * @param serverId a server id
   * @return {@code leader} or {@code follower}; empty if the server is down or does not serve (for
   *     example during an election)
   */
  public Optional<String> mode(int serverId) {
    return srvr(server(serverId)).flatMap(FourLetterWords::mode);
  }

  /**
   * The server that leads now, asking every server ({@code srvr}). If more than one claims to lead
   * (an old leader that has not noticed yet), the one with the newest epoch wins.
   *
   * @return the leader's server id, empty if no server leads now
   */
  public OptionalInt leaderId() {
    int leader = -1;
    long newestZxid = Long.MIN_VALUE;
    for (Server server : servers) {
      Optional<String> answer = srvr(server);
      if (answer.isPresent()
          && answer.flatMap(FourLetterWords::mode).filter("leader"::equals).isPresent()) {
        long zxid = answer.flatMap(FourLetterWords::zxid).orElse(Long.MIN_VALUE);
        if (zxid > newestZxid || leader < 0) {
          leader = server.id;
          newestZxid = zxid;
        }
      }
    }
    return leader < 0 ? OptionalInt.empty() : OptionalInt.of(leader);
  }

  /**
   * Waits until some server leads.
   *
   * @param timeout bound on the wait
   * @return the leader's server id
   * @throws TimeoutException if no server leads within the timeout
   * @throws InterruptedException if interrupted while waiting
   */
  public int awaitLeader(Duration timeout) throws TimeoutException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      OptionalInt leader = leaderId();
      if (leader.isPresent()) {
        return leader.getAsInt();
      }
      if (System.nanoTime() - deadline > 0) {
        throw new TimeoutException(
            "No server leads after " + timeout.toMillis() + " ms" + describe());
      }
      Thread.sleep(POLL_MILLIS);
    }
  }

  /**
   * @param serverId a server id
   * @param lines how many lines
   * @return the last lines of that server's log, for failure messages
   */
  public String logTail(int serverId, int lines) {
    return tail(server(serverId).logFile(), lines);
  }

  /** Kills every server and deletes the directories this ensemble created (unless told not to). */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    killAll();
    if (killOnExit != null) {
      try {
        Runtime.getRuntime().removeShutdownHook(killOnExit);
      } catch (IllegalStateException e) {
        // JVM shutdown in progress
      }
    }
    if (deleteOnClose) {
      try {
        if (ownsBaseDir) {
          deleteRecursively(baseDir);
        } else {
          for (Server server : servers) {
            deleteRecursively(server.dir);
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException("Could not delete " + baseDir, e);
      }
    }
  }

  @Override
  public String toString() {
    return "ZooKeeperEnsemble" + serverIds() + " (" + serverMode + ") at " + baseDir;
  }

  // ---------------------------------------------------------------------------------------------

  private void launch(Server server) throws IOException, InterruptedException {
    if (serverMode == ServerMode.IN_PROCESS) {
      server.log("starting server " + server.id + " in-process from " + server.configFile());
      server.peer =
          InProcessPeer.launch(
              server.id + "-port-" + server.clientPort, server.configFile(), startTimeout);
      return;
    }
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmArgs);
    command.add("-cp");
    command.add(classpath);
    command.add(EnsembleChildMain.class.getName());
    command.add(server.configFile().toString());
    server.log("starting server " + server.id + ": " + String.join(" ", command));
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .directory(server.dir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(server.logFile().toFile()))
            .redirectInput(ProcessBuilder.Redirect.PIPE);
    server.process = builder.start();
    // Keep the write end of the child's stdin open and referenced: the child halts at its EOF.
    server.stdin = server.process.getOutputStream();
  }

  private void awaitServing(Server server, long deadline)
      throws TimeoutException, InterruptedException {
    while (true) {
      if (!server.isRunning()) {
        throw new TimeoutException(
            "Server "
                + server.id
                + " ended before serving ("
                + server.howItEnded()
                + ")"
                + (server.peer == null
                    ? "; its log ends with:\n" + tail(server.logFile(), 40)
                    : ""));
      }
      Optional<String> mode = srvr(server).flatMap(FourLetterWords::mode);
      if (mode.isPresent()) {
        return;
      }
      if (System.nanoTime() - deadline > 0) {
        throw new TimeoutException(
            "Server "
                + server.id
                + " does not serve after "
                + startTimeout.toMillis()
                + " ms"
                + describe()
                + "\nIts log ends with:\n"
                + tail(server.logFile(), 40));
      }
      Thread.sleep(POLL_MILLIS);
    }
  }

  private void awaitClientRead(String connectString, long deadline)
      throws TimeoutException, InterruptedException {
    long remainingMillis = Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
    CountDownLatch connected = new CountDownLatch(1);
    ZooKeeper client;
    try {
      client =
          new ZooKeeper(
              connectString,
              (int) Math.min(Integer.MAX_VALUE, Math.max(4_000, remainingMillis)),
              event -> {
                if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
                  connected.countDown();
                }
              });
    } catch (IOException e) {
      throw new IllegalStateException("Cannot create a ZooKeeper client for " + connectString, e);
    }
    try {
      if (!connected.await(remainingMillis, TimeUnit.MILLISECONDS)) {
        throw new TimeoutException(
            "No ZooKeeper client connection to " + connectString + describe());
      }
      while (true) {
        try {
          client.exists("/", false);
          return;
        } catch (KeeperException e) {
          if (System.nanoTime() - deadline > 0) {
            throw new TimeoutException("Ensemble does not serve reads: " + e + describe());
          }
          Thread.sleep(POLL_MILLIS);
        }
      }
    } finally {
      client.close(1_000);
    }
  }

  private Optional<String> srvr(Server server) {
    if (!server.isRunning()) {
      return Optional.empty();
    }
    try {
      return Optional.of(
          FourLetterWords.send(
              new InetSocketAddress(InetAddress.getLoopbackAddress(), server.clientPort),
              "srvr",
              PROBE_TIMEOUT_MILLIS));
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  private String describe() {
    return servers.stream()
        .map(
            s ->
                "server "
                    + s.id
                    + ": "
                    + (s.isRunning()
                        ? srvr(s).flatMap(FourLetterWords::mode).orElse("not serving")
                        : "down"))
        .collect(Collectors.joining(", ", " [", "]"));
  }

  private void killAll() {
    for (Server server : servers) {
      try {
        server.kill();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private Server server(int serverId) {
    if (serverId < 1 || serverId > servers.size()) {
      throw new IllegalArgumentException(
          "No server " + serverId + " in an ensemble of " + servers.size());
    }
    return servers.get(serverId - 1);
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("Ensemble closed");
    }
  }

  private void writeConfig(Server server, Builder builder) throws IOException {
    Map<String, String> cfg = new LinkedHashMap<>();
    cfg.put("tickTime", Integer.toString(builder.tickTimeMillis));
    cfg.put("initLimit", "10");
    cfg.put("syncLimit", "5");
    cfg.put("dataDir", server.dataDir().toString());
    cfg.put("clientPort", Integer.toString(server.clientPort));
    cfg.put("clientPortAddress", "127.0.0.1");
    cfg.put("standaloneEnabled", "false");
    cfg.put("reconfigEnabled", "false");
    cfg.put("admin.enableServer", "false");
    cfg.put("4lw.commands.whitelist", "srvr, ruok");
    cfg.put("maxClientCnxns", "0");
    cfg.put("autopurge.purgeInterval", "0");
    // Always explicit: in-process, a parse sets zookeeper.forceSync for the whole JVM, and only if
    // the file names it.
    cfg.put("forceSync", builder.forceSync ? "yes" : "no");
    for (Map.Entry<String, String> e : builder.properties.entrySet()) {
      if (e.getKey().equals("4lw.commands.whitelist")) {
        cfg.put(e.getKey(), "srvr, ruok, " + e.getValue());
      } else {
        cfg.put(e.getKey(), e.getValue());
      }
    }
    for (Server s : servers) {
      cfg.put("server." + s.id, "127.0.0.1:" + s.quorumPort + ":" + s.electionPort);
    }
    StringBuilder text =
        new StringBuilder("# Written by ZooKeeperEnsemble for server " + server.id + "\n");
    cfg.forEach((k, v) -> text.append(k).append('=').append(v).append('\n'));
    Files.writeString(server.configFile(), text, StandardCharsets.UTF_8);
  }

  private static String tail(Path file, int lines) {
    try {
      List<String> all = Files.readAllLines(file, StandardCharsets.UTF_8);
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException | UncheckedIOException e) {
      return "(no log: " + e + ")";
    }
  }

  private static void deleteRecursively(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  /** One server: its ports, its directory and its current child process or in-process peer. */
  private static final class Server {
    final int id;
    final int clientPort;
    final int quorumPort;
    final int electionPort;
    final Path dir;
    volatile Process process;
    OutputStream stdin; // held so the child's stdin stays open until we let go
    volatile InProcessPeer peer;

    Server(int id, int clientPort, int quorumPort, int electionPort, Path dir) {
      this.id = id;
      this.clientPort = clientPort;
      this.quorumPort = quorumPort;
      this.electionPort = electionPort;
      this.dir = dir;
    }

    Path dataDir() {
      return dir.resolve("data");
    }

    Path configFile() {
      return dir.resolve("zoo.cfg");
    }

    Path logFile() {
      return dir.resolve("server.log");
    }

    boolean isRunning() {
      InProcessPeer inProcess = peer;
      if (inProcess != null) {
        return inProcess.isRunning();
      }
      Process p = process;
      return p != null && p.isAlive();
    }

    /**
     * @return how a server that is not running ended, for failure messages
     */
    String howItEnded() {
      InProcessPeer inProcess = peer;
      if (inProcess != null) {
        return inProcess
            .failure()
            .map(
                e -> {
                  StringWriter trace = new StringWriter();
                  e.printStackTrace(new PrintWriter(trace));
                  return "in-process, failed: " + trace;
                })
            .orElse("in-process, stopped");
      }
      Process p = process;
      return p == null ? "never started" : "exit status " + p.exitValue();
    }

    /** Appends one of the ensemble's own lines to the server's log. */
    void log(String line) {
      try (Writer log =
          Files.newBufferedWriter(
              logFile(),
              StandardCharsets.UTF_8,
              StandardOpenOption.CREATE,
              StandardOpenOption.APPEND)) {
        log.write("==== " + LocalDateTime.now(ZoneId.systemDefault()) + " " + line + "\n");
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot write " + logFile(), e);
      }
    }

    void kill() throws InterruptedException {
      InProcessPeer inProcess = peer;
      if (inProcess != null) {
        if (inProcess.isRunning()) {
          log("killing server " + id + " (in-process)");
        }
        inProcess.kill(); // also releases what a server that failed on its own left
        return;
      }
      Process p = process;
      if (p == null) {
        return;
      }
      p.destroyForcibly();
      p.waitFor(10, TimeUnit.SECONDS);
      try {
        if (stdin != null) {
          stdin.close();
        }
      } catch (IOException e) {
        // the child is gone anyway
      }
      stdin = null;
    }
  }

  /** Configures a {@link ZooKeeperEnsemble}. */
  public static final class Builder {

    /** The children's collector unless {@link #jvmArgs} selects another: a JVM refuses two. */
    private static final String DEFAULT_COLLECTOR = "-XX:+UseSerialGC";

    /**
     * The options that select a collector (HotSpot's; Shenandoah and Epsilon where the JVM has
     * them).
     */
    private static final Set<String> COLLECTORS =
        Set.of(
            "-XX:+UseSerialGC",
            "-XX:+UseParallelGC",
            "-XX:+UseG1GC",
            "-XX:+UseZGC",
            "-XX:+UseShenandoahGC",
            "-XX:+UseEpsilonGC");

    private ServerMode serverMode = ServerMode.CHILD_JVM;
    private int servers = 3;
    private Path baseDir;
    private boolean forceSync;
    private int tickTimeMillis = 500;
    private final Map<String, String> properties = new LinkedHashMap<>();
    private final List<String> jvmArgs =
        new ArrayList<>(
            List.of(
                "-Xms32m",
                "-Xmx256m",
                DEFAULT_COLLECTOR,
                "-Djava.net.preferIPv4Stack=true",
                "-Dorg.slf4j.simpleLogger.showDateTime=true",
                "-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS"));
    private String classpath;
    private Duration startTimeout = Duration.ofSeconds(30);
    private boolean deleteOnClose = true;

    private Builder() {}

    /**
     * @param count number of servers: 1, 3 or 5 (default 3)
     * @return this builder
     */
    public Builder servers(int count) {
      if (count != 1 && count != 3 && count != 5) {
        throw new IllegalArgumentException("An ensemble has 1, 3 or 5 servers, not " + count);
      }
      this.servers = count;
      return this;
    }

    /**
     * @param mode where the servers run (default {@link ServerMode#CHILD_JVM})
     * @return this builder
     */
    public Builder serverMode(ServerMode mode) {
      this.serverMode = Objects.requireNonNull(mode, "serverMode must not be null");
      return this;
    }

    /**
     * @param dir where the servers' directories go (default: a new temporary directory, deleted on
     *     close; a given directory is kept, only the servers' directories are deleted)
     * @return this builder
     */
    public Builder baseDir(Path dir) {
      this.baseDir = dir;
      return this;
    }

    /**
     * @param fsync whether servers fsync their transaction log (default false: {@code
     *     forceSync=no})
     * @return this builder
     */
    public Builder fsync(boolean fsync) {
      this.forceSync = fsync;
      return this;
    }

    /**
     * @param tickTime ZooKeeper's {@code tickTime} (default 500 ms; {@code initLimit=10}, {@code
     *     syncLimit=5} ticks), which also bounds session timeouts to 2..20 ticks
     * @return this builder
     */
    public Builder tickTime(Duration tickTime) {
      this.tickTimeMillis = Math.toIntExact(tickTime.toMillis());
      return this;
    }

    /**
     * Adds or overrides a {@code zoo.cfg} entry of every server, for example {@code
     * zoolander.pluginFactory}. A {@code 4lw.commands.whitelist} is added to the words the ensemble
     * itself needs.
     *
     * @param key the entry's key
     * @param value its value
     * @return this builder
     */
    public Builder property(String key, String value) {
      properties.put(key, value);
      return this;
    }

    /**
     * Makes every server a server of Zoolander duplicate {@code duplicateId}: adds the {@code
     * zoo.cfg} entries that run the Zoolander plugin while it leads ({@code
     * zoolander.pluginFactory}, {@code zoolander.duplicateId} and {@code zoolander.basePath}), as
     * {@link EmbeddedCluster} does for each of its duplicates. Further {@code zoolander.plugin.*}
     * settings go through {@link #property(String, String)}.
     *
     * @param duplicateId the duplicate's id, {@code >= 0}
     * @param basePath where Zoolander keeps its znodes, e.g. {@link Znodes#DEFAULT_BASE_PATH}
     * @return this builder
     */
    public Builder zoolanderDuplicate(int duplicateId, String basePath) {
      if (duplicateId < 0) {
        throw new IllegalArgumentException("duplicateId must be >= 0, was " + duplicateId);
      }
      new Znodes(basePath); // validates
      property(ZoolanderPeerMain.PLUGIN_FACTORY_KEY, ZoolanderPluginFactory.class.getName());
      property(ZoolanderPluginConfig.DUPLICATE_ID_KEY, Integer.toString(duplicateId));
      property(ZoolanderPluginConfig.BASE_PATH_KEY, basePath);
      return this;
    }

    /**
     * Adds arguments for the children's JVMs (after the defaults {@code -Xms32m -Xmx256m
     * -XX:+UseSerialGC}, so they can override them; one selecting a collector, such as {@code
     * -XX:+UseG1GC}, replaces the default one). Ignored in-process.
     *
     * @param args JVM arguments such as {@code -Xmx512m} or {@code -Dkey=value}
     * @return this builder
     */
    public Builder jvmArgs(String... args) {
      for (String arg : args) {
        if (COLLECTORS.contains(arg)) {
          jvmArgs.remove(DEFAULT_COLLECTOR);
        }
      }
      jvmArgs.addAll(List.of(args));
      return this;
    }

    /**
     * @param classpath the children's class path (default: this JVM's {@code java.class.path},
     *     which must hold rp-server, ZooKeeper and the plugin); ignored in-process
     * @return this builder
     */
    public Builder classpath(String classpath) {
      this.classpath = classpath;
      return this;
    }

    /**
     * @param timeout bound on {@link ZooKeeperEnsemble#start()} and on each {@link
     *     ZooKeeperEnsemble#restart(int)} (default 30 s)
     * @return this builder
     */
    public Builder startTimeout(Duration timeout) {
      this.startTimeout = timeout;
      return this;
    }

    /**
     * @param delete whether {@link ZooKeeperEnsemble#close()} deletes the directories (default
     *     true; false keeps logs and data for a post-mortem)
     * @return this builder
     */
    public Builder deleteOnClose(boolean delete) {
      this.deleteOnClose = delete;
      return this;
    }

    /**
     * Writes the configuration of every server, without starting any.
     *
     * @return the ensemble, not started
     * @throws IOException if the directories or files cannot be written or no port is free
     * @throws IllegalStateException if an in-process ensemble is asked to enable the AdminServer
     *     (one per JVM and port, and a JVM-wide switch: it stays off in-process)
     */
    public ZooKeeperEnsemble build() throws IOException {
      String adminServer = properties.get("admin.enableServer");
      if (serverMode == ServerMode.IN_PROCESS
          && adminServer != null
          && !adminServer.trim().equals("false")) {
        throw new IllegalStateException(
            "admin.enableServer must stay false in-process, was " + adminServer);
      }
      return new ZooKeeperEnsemble(this);
    }

    /**
     * Builds the ensemble and {@linkplain ZooKeeperEnsemble#start() starts} it; if it does not come
     * up, it is closed before the exception is thrown.
     *
     * @return the serving ensemble
     * @throws IOException if it cannot be built or started
     * @throws TimeoutException if it does not serve within the start timeout
     * @throws InterruptedException if interrupted while waiting
     */
    public ZooKeeperEnsemble start() throws IOException, InterruptedException, TimeoutException {
      ZooKeeperEnsemble ensemble = build();
      try {
        return ensemble.start();
      } catch (IOException | InterruptedException | TimeoutException | RuntimeException e) {
        ensemble.close();
        throw e;
      }
    }
  }
}
