package io.zoolander.server.testing;

import io.zoolander.client.ZoolanderClient;
import io.zoolander.client.ZoolanderClientBuilder;
import io.zoolander.server.plugin.AnomalySettings;
import io.zoolander.server.repeater.Repeater;
import io.zoolander.wire.Znodes;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;

/**
 * A whole Zoolander deployment on one machine, for tests and demos: N duplicates (each a ZooKeeper
 * ensemble of 1, 3 or 5 servers running the plugin) and a repeater in this JVM, all on 127.0.0.1
 * with free ports. Hands out connected clients and tree digests, injects faults (a repeater, a
 * server or a whole duplicate down; anomalies that slow a duplicate down), and stops and deletes
 * everything on {@link #close()}. Part of the testing artifact (this package); {@link
 * ZoolanderClusterExtension} runs one for a JUnit 5 test class.
 *
 * <p>The ZooKeeper servers are child JVMs by default; {@link Builder#serverMode(ServerMode)
 * serverMode(ServerMode.IN_PROCESS)} runs them in this JVM instead, as Curator's {@code
 * TestingCluster} does: same launcher, plugin and API, a faster start, but kills that are abrupt
 * shutdowns rather than {@code kill -9} and shared JVM state ({@link ServerMode#IN_PROCESS} lists
 * the differences).
 *
 * <pre>{@code
 * try (EmbeddedCluster cluster = EmbeddedCluster.builder().duplicates(3).start();
 *      ZoolanderClient client = cluster.newClient()) {
 *   client.create("/x", data).join();
 *   cluster.injectAnomaly(2, "probability=0.05;delayMs=50");  // duplicate 2 slows 5% of its accesses
 *   cluster.killDuplicate(3);                                 // every server of duplicate 3, like kill -9
 *   client.setData("/x", more, -1).join();                   // answered by the live duplicates
 *   cluster.restartDuplicate(3);                              // catches up from the repeater's log
 *   cluster.awaitConverged(Duration.ofSeconds(30));           // all duplicates hold the same tree
 * }
 * }</pre>
 *
 * <p>Not thread-safe: drive one cluster from one thread at a time (clients it hands out are
 * thread-safe).
 */
public final class EmbeddedCluster implements AutoCloseable {
  private final Builder config;
  private final Path baseDir;

  /** Whether {@link #baseDir} is a temporary directory of this cluster's own, deleted on close. */
  private final boolean ownsBaseDir;

  private final Map<Integer, ZooKeeperEnsemble> duplicates = new LinkedHashMap<>();

  /** Duplicates retired online: still running (fenced) until close. */
  private final Map<Integer, ZooKeeperEnsemble> retired = new LinkedHashMap<>();

  private final List<ZoolanderClient> clients = new ArrayList<>();
  private final List<Repeater> repeaters = new ArrayList<>();
  private Repeater repeater;

  private EmbeddedCluster(Builder config, Path baseDir, boolean ownsBaseDir) {
    this.config = config;
    this.baseDir = baseDir;
    this.ownsBaseDir = ownsBaseDir;
  }

  public static Builder builder() {
    return new Builder();
  }

  private void startAll() throws IOException, InterruptedException, TimeoutException {
    List<CompletableFuture<Void>> starts = new ArrayList<>();
    for (int id = 1; id <= config.duplicates; id++) {
      ZooKeeperEnsemble ensemble = newEnsemble(id);
      duplicates.put(id, ensemble);
      starts.add(
          CompletableFuture.runAsync(
              () -> {
                try {
                  ensemble.start();
                } catch (Exception e) {
                  throw new CompletionException(e);
                }
              }));
    }
    try {
      CompletableFuture.allOf(starts.toArray(CompletableFuture[]::new)).join();
    } catch (CompletionException e) {
      throw new IOException("a duplicate did not start: " + e.getCause(), e.getCause());
    }
    if (config.startRepeater) {
      startRepeater();
    }
  }

  private ZooKeeperEnsemble newEnsemble(int id) throws IOException {
    ZooKeeperEnsemble.Builder builder =
        ZooKeeperEnsemble.builder()
            .servers(config.serversOf.getOrDefault(id, config.serversPerDuplicate))
            .baseDir(baseDir.resolve("duplicate-" + id))
            .fsync(config.fsync)
            .serverMode(config.serverMode)
            .jvmArgs(config.duplicateJvmArgs.toArray(String[]::new))
            .zoolanderDuplicate(id, config.znodes.basePath());
    config.duplicateProperties.getOrDefault(id, Map.of()).forEach(builder::property);
    return builder.build();
  }

  /**
   * Adds a duplicate to the running deployment, as an operator would: starts a new, empty ensemble
   * (the others' server count and settings) with the next free id, asks the in-process repeater to
   * add it ({@link Repeater#addDuplicate}) and waits until it is active, that is, rejoined by state
   * transfer and streamed to. From then on it is one of {@link #duplicateIds()}.
   *
   * @return the new duplicate's id
   * @throws IllegalStateException if no repeater runs in this JVM, or the repeater refused or
   *     failed the change (its message says why; the new ensemble is stopped again)
   * @throws TimeoutException if the ensemble does not start, or the duplicate is not active within
   *     {@code timeout}
   */
  public int addDuplicate(Duration timeout)
      throws IOException, InterruptedException, TimeoutException {
    if (repeater == null) {
      throw new IllegalStateException("no repeater in this JVM");
    }
    int id = 1;
    for (int taken : duplicates.keySet()) {
      id = Math.max(id, taken + 1);
    }
    for (int taken : retired.keySet()) {
      id = Math.max(id, taken + 1);
    }
    ZooKeeperEnsemble ensemble = newEnsemble(id);
    boolean added = false;
    try {
      ensemble.start();
      repeater
          .addDuplicate(id, ensemble.connectString())
          .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      duplicates.put(id, ensemble);
      added = true;
      return id;
    } catch (java.util.concurrent.ExecutionException e) {
      throw new IllegalStateException(
          "duplicate " + id + " was not added: " + e.getCause().getMessage(), e.getCause());
    } finally {
      if (!added) {
        ensemble.close();
      }
    }
  }

  /**
   * Retires duplicate {@code id} from the running deployment ({@link Repeater#retireDuplicate}):
   * the repeater fences and forgets it, and clients stop reading from it. Its ensemble keeps
   * running, fenced, until {@link #close()}; it is no longer one of {@link #duplicateIds()}.
   *
   * @throws IllegalStateException if no repeater runs in this JVM, or the repeater refused or
   *     failed the change
   * @throws TimeoutException if the change takes longer than {@code timeout}
   */
  public void retireDuplicate(int id, Duration timeout)
      throws InterruptedException, TimeoutException {
    ZooKeeperEnsemble ensemble = duplicate(id);
    if (repeater == null) {
      throw new IllegalStateException("no repeater in this JVM");
    }
    try {
      repeater.retireDuplicate(id).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      throw new IllegalStateException(
          "duplicate " + id + " was not retired: " + e.getCause().getMessage(), e.getCause());
    }
    duplicates.remove(id);
    retired.put(id, ensemble);
  }

  /**
   * The ensemble of a duplicate retired with {@link #retireDuplicate}, still running (fenced).
   *
   * @throws IllegalArgumentException if no duplicate with this id was retired
   */
  public ZooKeeperEnsemble retiredDuplicate(int id) {
    ZooKeeperEnsemble e = retired.get(id);
    if (e == null) {
      throw new IllegalArgumentException("no duplicate " + id + " was retired");
    }
    return e;
  }

  /**
   * Starts a new repeater in this JVM (after {@link #killRepeater()}, or while another runs: it
   * takes over); it claims a higher epoch than any duplicate holds and recovers what the duplicates
   * behind missed.
   */
  public Repeater startRepeater() throws IOException, InterruptedException, TimeoutException {
    return startRepeater(b -> {});
  }

  /**
   * {@link #startRepeater()} with settings of its own, e.g. {@code b -> b.clientListen("127.0.0.1",
   * port)} for a repeater that clients already know as a standby. It becomes {@link #repeater()};
   * the one before is not closed.
   */
  public Repeater startRepeater(Consumer<Repeater.Builder> customize)
      throws IOException, InterruptedException, TimeoutException {
    Repeater.Builder builder =
        Repeater.builder()
            .basePath(config.znodes.basePath())
            .logCapacity(config.repeaterLogCapacity);
    duplicates.forEach((id, ensemble) -> builder.duplicate(id, ensemble.connectString()));
    customize.accept(builder);
    Repeater started = builder.build();
    synchronized (repeaters) {
      repeaters.add(started);
    }
    repeater = started.start();
    return repeater;
  }

  /**
   * A builder of a repeater in a child JVM ({@code zoolander repeater}), preset with this cluster's
   * duplicates, base path and log capacity, its directory under the cluster's: for tests that kill
   * a repeater like {@code kill -9}. The caller closes what it starts.
   */
  public RepeaterProcess.Builder repeaterProcess() {
    RepeaterProcess.Builder builder =
        RepeaterProcess.builder()
            .basePath(config.znodes.basePath())
            .logCapacity(config.repeaterLogCapacity)
            .baseDir(baseDir);
    duplicates.forEach((id, ensemble) -> builder.duplicate(id, ensemble.connectString()));
    return builder;
  }

  /**
   * Stops the in-process repeater (its connections close; it drains what it queued first, briefly).
   */
  public void killRepeater() {
    if (repeater != null) {
      repeater.close();
    }
  }

  public Repeater repeater() {
    return repeater;
  }

  /** The ensemble of duplicate {@code id} (1-based). */
  public ZooKeeperEnsemble duplicate(int id) {
    ZooKeeperEnsemble e = duplicates.get(id);
    if (e == null) {
      throw new IllegalArgumentException(
          "no duplicate " + id + " (the duplicates are " + duplicates.keySet() + ")");
    }
    return e;
  }

  public List<Integer> duplicateIds() {
    return List.copyOf(duplicates.keySet());
  }

  public Znodes znodes() {
    return config.znodes;
  }

  /** Where the duplicates' ZooKeeper servers run. */
  public ServerMode serverMode() {
    return config.serverMode;
  }

  /**
   * A builder pre-set with this cluster's repeater and duplicates, for clients with their own
   * settings.
   *
   * @throws IllegalStateException if no repeater runs in this JVM (see {@link
   *     #clientBuilder(List)})
   */
  public ZoolanderClientBuilder clientBuilder() {
    if (repeater == null) {
      throw new IllegalStateException(
          "no repeater in this JVM: name the repeaters with clientBuilder(List)");
    }
    return clientBuilder(List.of(repeater.boundAddress()));
  }

  /**
   * A builder pre-set with these repeater addresses (the first, then standbys) and this cluster's
   * duplicates.
   */
  public ZoolanderClientBuilder clientBuilder(List<InetSocketAddress> repeaterAddresses) {
    if (repeaterAddresses.isEmpty()) {
      throw new IllegalArgumentException("repeaterAddresses must not be empty");
    }
    ZoolanderClientBuilder builder = ZoolanderClient.builder().basePath(config.znodes.basePath());
    repeaterAddresses.forEach(a -> builder.repeater(a.getHostString(), a.getPort()));
    duplicates.values().forEach(e -> builder.duplicate(e.connectString()));
    return builder;
  }

  /** A connected client, closed with the cluster. */
  public ZoolanderClient newClient() {
    ZoolanderClient client = clientBuilder().build();
    synchronized (clients) {
      clients.add(client);
    }
    return client;
  }

  /**
   * Kills every server of duplicate {@code id} like {@code kill -9} and waits until their JVMs are
   * gone (in-process: as abruptly as a JVM allows, see {@link ZooKeeperEnsemble#kill(int)}): the
   * whole duplicate is down, its data kept. The repeater keeps its writes in its log for it.
   */
  public void killDuplicate(int id) throws InterruptedException {
    ZooKeeperEnsemble ensemble = duplicate(id);
    for (int server : ensemble.serverIds()) {
      ensemble.kill(server);
    }
  }

  /**
   * Restarts every server of duplicate {@code id} (killing those still running) with the same data
   * and ports, and waits until its ensemble serves again. Its plugin then publishes its endpoint
   * once more, and the repeater resumes it from its applied seq (or fences it, if its log no longer
   * holds what the duplicate misses).
   *
   * @throws TimeoutException if the ensemble does not serve within its start timeout
   */
  public void restartDuplicate(int id) throws IOException, InterruptedException, TimeoutException {
    killDuplicate(id);
    duplicate(id).start();
  }

  /**
   * Empties the ZooKeeper data (snapshots and transaction logs) of duplicate {@code id}, whose
   * servers must be down ({@link #killDuplicate}): started again, it comes back empty, as a
   * duplicate lost with its disks would, and the repeater rejoins it by state transfer. The epoch
   * files are kept: a server whose epoch went back would be refused by every ZooKeeper client that
   * saw a newer zxid (the repeater's and the clients' endpoint watchers), which is a ZooKeeper
   * matter, not a Zoolander one.
   *
   * @throws IllegalStateException if a server of the duplicate is running
   */
  public void wipeDuplicate(int id) throws IOException {
    ZooKeeperEnsemble ensemble = duplicate(id);
    for (int server : ensemble.serverIds()) {
      if (ensemble.isRunning(server)) {
        throw new IllegalStateException(
            "server " + server + " of duplicate " + id + " is running; kill the duplicate first");
      }
      Path version2 = ensemble.dataDir(server).resolve("version-2");
      if (!Files.isDirectory(version2)) {
        continue;
      }
      try (Stream<Path> files = Files.list(version2)) {
        for (Path file : files.toList()) {
          String name = file.getFileName().toString();
          if (name.startsWith("snapshot.") || name.startsWith("log.")) {
            Files.delete(file);
          }
        }
      }
    }
  }

  /**
   * Turns on the anomaly injector of duplicate {@code id}: writes {@code settings} to its {@code
   * <base>/anomaly} znode with a plain ZooKeeper client. The plugin follows that znode through a
   * watch, so the settings take effect within milliseconds, and stay (also across leader changes
   * and restarts) until {@link #clearAnomaly(int)}.
   *
   * @param settings the injector's settings, e.g. {@code
   *     probability=0.01;delayMs=50;distribution=pareto} (syntax: {@link AnomalySettings})
   * @throws IllegalArgumentException if {@code settings} does not parse (the plugin would ignore
   *     it)
   * @throws TimeoutException if the duplicate's ensemble cannot be reached within {@value
   *     #ZOOKEEPER_TIMEOUT_MILLIS} ms
   */
  public void injectAnomaly(int id, String settings)
      throws IOException, KeeperException, InterruptedException, TimeoutException {
    AnomalySettings.parse(settings);
    byte[] data = settings.getBytes(StandardCharsets.UTF_8);
    String path = config.znodes.anomaly();
    withZooKeeper(
        id,
        zk -> {
          createParents(zk, path);
          try {
            zk.create(path, data, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
          } catch (KeeperException.NodeExistsException e) {
            zk.setData(path, data, -1);
          }
          return null;
        });
  }

  /**
   * {@link #injectAnomaly(int, String)} on every duplicate: each draws its own independent
   * anomalies.
   */
  public void injectAnomalyEverywhere(String settings)
      throws IOException, KeeperException, InterruptedException, TimeoutException {
    AnomalySettings.parse(settings);
    for (int id : duplicates.keySet()) {
      injectAnomaly(id, settings);
    }
  }

  /** Turns off duplicate {@code id}'s anomaly injector: deletes its anomaly znode, if any. */
  public void clearAnomaly(int id)
      throws IOException, KeeperException, InterruptedException, TimeoutException {
    withZooKeeper(
        id,
        zk -> {
          try {
            zk.delete(config.znodes.anomaly(), -1);
          } catch (KeeperException.NoNodeException e) {
            // off already
          }
          return null;
        });
  }

  /** {@link #clearAnomaly(int)} on every duplicate. */
  public void clearAnomalyEverywhere()
      throws IOException, KeeperException, InterruptedException, TimeoutException {
    for (int id : duplicates.keySet()) {
      clearAnomaly(id);
    }
  }

  /**
   * The anomaly settings duplicate {@code id}'s znode holds now, as written; empty when its
   * injector is off.
   */
  public Optional<String> anomaly(int id)
      throws IOException, KeeperException, InterruptedException, TimeoutException {
    return withZooKeeper(
        id,
        zk -> {
          try {
            return Optional.of(
                new String(
                    zk.getData(config.znodes.anomaly(), false, null), StandardCharsets.UTF_8));
          } catch (KeeperException.NoNodeException e) {
            return Optional.empty();
          }
        });
  }

  /**
   * The tree digest of every duplicate, by id, taken at once: each through a session of its own.
   */
  public Map<Integer, TreeDigest> digests() throws Exception {
    Map<Integer, CompletableFuture<TreeDigest>> taking = new LinkedHashMap<>();
    for (Map.Entry<Integer, ZooKeeperEnsemble> e : duplicates.entrySet()) {
      CompletableFuture<TreeDigest> digest = new CompletableFuture<>();
      String connectString = e.getValue().connectString();
      Thread t =
          new Thread(
              () -> {
                try {
                  digest.complete(TreeDigest.of(connectString, config.znodes));
                } catch (Exception | Error failure) {
                  digest.completeExceptionally(failure);
                }
              },
              "zoolander-digest-" + e.getKey());
      t.setDaemon(true);
      t.start();
      taking.put(e.getKey(), digest);
    }
    Map<Integer, TreeDigest> out = new LinkedHashMap<>();
    for (Map.Entry<Integer, CompletableFuture<TreeDigest>> e : taking.entrySet()) {
      try {
        out.put(e.getKey(), e.getValue().get());
      } catch (ExecutionException failed) {
        if (failed.getCause() instanceof Exception cause) {
          throw cause;
        }
        throw failed;
      }
    }
    return out;
  }

  /**
   * Waits until every duplicate's bookkeeping state has applied at least {@code seq}; returns the
   * digests.
   */
  public Map<Integer, TreeDigest> awaitApplied(long seq, Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      Map<Integer, TreeDigest> digests = digests();
      if (digests.values().stream().allMatch(d -> d.state().appliedSeq() >= seq)) {
        return digests;
      }
      if (System.nanoTime() > deadline) {
        throw new TimeoutException(
            "duplicates did not apply seq " + seq + " within " + timeout + ": " + digests);
      }
      Thread.sleep(100);
    }
  }

  /**
   * Waits until every duplicate has applied every write the repeater has sequenced so far ({@code
   * repeater().nextSeq() - 1}) and all of them hold the same tree at the same applied seq
   * (invariant 4); returns their digests. Call it once writes have stopped, with every duplicate
   * up.
   *
   * @throws TimeoutException if that does not happen within {@code timeout}; the message shows the
   *     digests and the first differences
   */
  public Map<Integer, TreeDigest> awaitConverged(Duration timeout) throws Exception {
    return awaitConverged(repeater.nextSeq() - 1, timeout);
  }

  /**
   * Waits until every duplicate has applied at least {@code seq} and all of them hold the same tree
   * at the same applied seq (invariant 4); returns their digests. For a repeater that does not run
   * in this JVM.
   *
   * @throws TimeoutException if that does not happen within {@code timeout}, naming the differences
   */
  public Map<Integer, TreeDigest> awaitConverged(long seq, Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    Map<Integer, TreeDigest> digests = awaitApplied(seq, timeout);
    while (true) {
      TreeDigest first = digests.values().iterator().next();
      long firstSeq = first.state().appliedSeq();
      if (digests.values().stream()
          .allMatch(d -> d.equals(first) && d.state().appliedSeq() == firstSeq)) {
        return digests;
      }
      if (System.nanoTime() - deadline > 0) {
        StringBuilder why = new StringBuilder();
        digests.forEach(
            (id, d) ->
                why.append("\n  duplicate ")
                    .append(id)
                    .append(": ")
                    .append(d)
                    .append(d.equals(first) ? "" : " differs: " + d.differences(first, 5)));
        throw new TimeoutException(
            "duplicates did not converge at seq " + seq + " within " + timeout + why);
      }
      Thread.sleep(100);
      digests = digests();
    }
  }

  @Override
  public void close() {
    synchronized (clients) {
      clients.forEach(ZoolanderClient::close);
      clients.clear();
    }
    synchronized (repeaters) {
      repeaters.forEach(Repeater::close);
    }
    duplicates.values().forEach(ZooKeeperEnsemble::close);
    retired.values().forEach(ZooKeeperEnsemble::close);
    if (ownsBaseDir) {
      deleteRecursively(baseDir);
    }
  }

  private static void deleteRecursively(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Could not delete " + dir, e);
    }
  }

  /** Bound on connecting to a duplicate's ensemble to write or read its anomaly znode. */
  static final long ZOOKEEPER_TIMEOUT_MILLIS = 10_000;

  private interface ZooKeeperAction<T> {
    T run(ZooKeeper zk) throws KeeperException, InterruptedException;
  }

  private <T> T withZooKeeper(int id, ZooKeeperAction<T> action)
      throws IOException, KeeperException, InterruptedException, TimeoutException {
    String connectString = duplicate(id).connectString();
    CountDownLatch connected = new CountDownLatch(1);
    // ZooKeeper's default socket: its 100-ms close is the slack within which a plugin follows an
    // anomaly written here before the caller goes on (injectAnomaly does not wait for it).
    ZooKeeper zk =
        new ZooKeeper(
            connectString,
            (int) ZOOKEEPER_TIMEOUT_MILLIS,
            event -> {
              if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
              }
            });
    try {
      if (!connected.await(ZOOKEEPER_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS)) {
        throw new TimeoutException(
            "cannot connect to duplicate "
                + id
                + " at "
                + connectString
                + " within "
                + ZOOKEEPER_TIMEOUT_MILLIS
                + " ms");
      }
      return action.run(zk);
    } finally {
      zk.close();
    }
  }

  /**
   * Creates the missing ancestors of {@code path} (the plugin may not have created the base path
   * yet).
   */
  private static void createParents(ZooKeeper zk, String path)
      throws KeeperException, InterruptedException {
    for (int slash = path.indexOf('/', 1); slash > 0; slash = path.indexOf('/', slash + 1)) {
      try {
        zk.create(
            path.substring(0, slash),
            new byte[0],
            ZooDefs.Ids.OPEN_ACL_UNSAFE,
            CreateMode.PERSISTENT);
      } catch (KeeperException.NodeExistsException e) {
        // there already
      }
    }
  }

  /** Builds and starts an {@link EmbeddedCluster}; every setter validates its argument. */
  public static final class Builder {
    private ServerMode serverMode = ServerMode.CHILD_JVM;
    private int duplicates = 3;
    private int serversPerDuplicate = 1;
    private boolean fsync;
    private Path baseDir;
    private int repeaterLogCapacity = 100_000;
    private Znodes znodes = Znodes.defaults();
    private boolean startRepeater = true;
    private final Map<Integer, Map<String, String>> duplicateProperties = new LinkedHashMap<>();
    private final Map<Integer, Integer> serversOf = new LinkedHashMap<>();
    private final List<String> duplicateJvmArgs = new ArrayList<>();

    private Builder() {}

    /** Number of duplicates, 1..16 (default 3). */
    public Builder duplicates(int duplicates) {
      if (duplicates < 1 || duplicates > 16) {
        throw new IllegalArgumentException("duplicates must be in 1..16, was " + duplicates);
      }
      this.duplicates = duplicates;
      return this;
    }

    /** ZooKeeper servers per duplicate: 1, 3 or 5 (default 1). */
    public Builder serversPerDuplicate(int servers) {
      if (servers != 1 && servers != 3 && servers != 5) {
        throw new IllegalArgumentException("serversPerDuplicate must be 1, 3 or 5, was " + servers);
      }
      this.serversPerDuplicate = servers;
      return this;
    }

    /**
     * Where the duplicates' ZooKeeper servers run (default {@link ServerMode#CHILD_JVM}); {@link
     * ServerMode#IN_PROCESS} runs them in this JVM.
     */
    public Builder serverMode(ServerMode mode) {
      if (mode == null) {
        throw new NullPointerException("serverMode must not be null");
      }
      this.serverMode = mode;
      return this;
    }

    /**
     * ZooKeeper servers of duplicate {@code duplicateId} alone: 1, 3 or 5 (default {@link
     * #serversPerDuplicate}).
     */
    public Builder serversOf(int duplicateId, int servers) {
      if (duplicateId < 1) {
        throw new IllegalArgumentException("duplicateId must be >= 1, was " + duplicateId);
      }
      if (servers != 1 && servers != 3 && servers != 5) {
        throw new IllegalArgumentException(
            "servers of duplicate " + duplicateId + " must be 1, 3 or 5, was " + servers);
      }
      serversOf.put(duplicateId, servers);
      return this;
    }

    /**
     * Adds arguments for the duplicates' child JVMs, after their defaults ({@code -Xms32m -Xmx256m
     * -XX:+UseSerialGC}: small and quick to start, for tests), so they can override them (one
     * selecting a collector replaces the serial one); ignored {@link ServerMode#IN_PROCESS}. A load
     * test wants a collector and heap for it: ZooKeeper keeps its last 500 proposals in memory, and
     * the plugin makes each a batch of writes (docs/operations.md, memory), so on the defaults a
     * sustained write load runs into full collections. {@code zoolander bench --batching} passes
     * {@code -Xmx1g -XX:+UseG1GC}.
     *
     * @param args JVM arguments such as {@code -Xmx1g} or {@code -Dkey=value}, none null or blank
     */
    public Builder duplicateJvmArgs(String... args) {
      Objects.requireNonNull(args, "duplicateJvmArgs must not be null");
      for (String arg : args) {
        if (arg == null || arg.isBlank()) {
          throw new IllegalArgumentException(
              "duplicateJvmArgs must not hold a null or blank argument, were "
                  + Arrays.toString(args));
        }
      }
      duplicateJvmArgs.addAll(List.of(args));
      return this;
    }

    /** Whether ZooKeeper fsyncs its log (default false: faster, fine for tests). */
    public Builder fsync(boolean fsync) {
      this.fsync = fsync;
      return this;
    }

    /**
     * Where the servers' data and logs go (default: a new temporary directory, deleted on close; a
     * given directory is kept, only the servers' directories in it are deleted).
     */
    public Builder baseDir(Path baseDir) {
      if (baseDir == null) {
        throw new NullPointerException("baseDir must not be null");
      }
      this.baseDir = baseDir;
      return this;
    }

    /** The repeater's retransmission log capacity in messages (default 100,000). */
    public Builder repeaterLogCapacity(int messages) {
      if (messages < 1) {
        throw new IllegalArgumentException("repeaterLogCapacity must be >= 1, was " + messages);
      }
      this.repeaterLogCapacity = messages;
      return this;
    }

    /** Base path of Zoolander's znodes (default {@code /zoolander}). */
    public Builder basePath(String basePath) {
      this.znodes = new Znodes(basePath);
      return this;
    }

    /**
     * Whether {@link #start()} starts a repeater in this JVM (default true); without one, tests
     * start their own ({@link EmbeddedCluster#startRepeater()}, {@link
     * EmbeddedCluster#repeaterProcess()}).
     */
    public Builder startRepeater(boolean start) {
      this.startRepeater = start;
      return this;
    }

    /**
     * A {@code zoo.cfg} entry for every server of duplicate {@code duplicateId}, e.g. a fixed
     * plugin port ({@link io.zoolander.server.plugin.ZoolanderPluginConfig#PORT_KEY}); it wins over
     * the defaults.
     */
    public Builder duplicateProperty(int duplicateId, String key, String value) {
      if (duplicateId < 1) {
        throw new IllegalArgumentException("duplicateId must be >= 1, was " + duplicateId);
      }
      Objects.requireNonNull(key, "key must not be null");
      Objects.requireNonNull(value, "value must not be null");
      duplicateProperties.computeIfAbsent(duplicateId, id -> new LinkedHashMap<>()).put(key, value);
      return this;
    }

    public EmbeddedCluster start() throws IOException, InterruptedException, TimeoutException {
      EmbeddedCluster cluster =
          baseDir == null
              ? new EmbeddedCluster(this, Files.createTempDirectory("zoolander-cluster-"), true)
              : new EmbeddedCluster(this, baseDir, false);
      try {
        cluster.startAll();
        return cluster;
      } catch (IOException | InterruptedException | TimeoutException | RuntimeException e) {
        cluster.close();
        throw e;
      }
    }
  }
}
