package io.zoolander.server.testing;

import io.zoolander.client.ZoolanderClient;
import io.zoolander.client.ZoolanderClientBuilder;
import io.zoolander.server.plugin.ZoolanderPluginConfig;
import io.zoolander.server.plugin.ZoolanderPluginFactory;
import io.zoolander.server.repeater.Repeater;
import io.zoolander.wire.Znodes;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;

/**
 * A whole Zoolander deployment on one machine, for tests and demos: N duplicates (each a ZooKeeper ensemble of 1, 3
 * or 5 servers in child JVMs running the plugin) and a repeater in this JVM, all on 127.0.0.1 with free ports. Hands
 * out connected clients and tree digests; stops and deletes everything on {@link #close()}.
 *
 * <pre>{@code
 * try (EmbeddedCluster cluster = EmbeddedCluster.builder().duplicates(3).start();
 *      ZoolanderClient client = cluster.newClient()) {
 *   client.create("/x", data).join();
 * }
 * }</pre>
 */
public final class EmbeddedCluster implements AutoCloseable {
  private final Builder config;
  private final Map<Integer, ZooKeeperEnsemble> duplicates = new LinkedHashMap<>();
  private final List<ZoolanderClient> clients = new ArrayList<>();
  private Repeater repeater;

  private EmbeddedCluster(Builder config) {
    this.config = config;
  }

  public static Builder builder() {
    return new Builder();
  }

  private void startAll() throws IOException, InterruptedException, TimeoutException {
    List<CompletableFuture<Void>> starts = new ArrayList<>();
    for (int id = 1; id <= config.duplicates; id++) {
      ZooKeeperEnsemble ensemble =
          ZooKeeperEnsemble.builder()
              .servers(config.serversPerDuplicate)
              .baseDir(config.baseDir.resolve("duplicate-" + id))
              .fsync(config.fsync)
              .property("zoolander.pluginFactory", ZoolanderPluginFactory.class.getName())
              .property(ZoolanderPluginConfig.DUPLICATE_ID_KEY, Integer.toString(id))
              .property(ZoolanderPluginConfig.BASE_PATH_KEY, config.znodes.basePath())
              .build();
      duplicates.put(id, ensemble);
      starts.add(CompletableFuture.runAsync(() -> {
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
    startRepeater();
  }

  /** Starts a new repeater (after {@link #killRepeater()}); it takes a higher epoch than any duplicate holds. */
  public Repeater startRepeater() throws IOException, InterruptedException, TimeoutException {
    Repeater.Builder builder =
        Repeater.builder().basePath(config.znodes.basePath()).logCapacity(config.repeaterLogCapacity);
    duplicates.forEach((id, ensemble) -> builder.duplicate(id, ensemble.connectString()));
    repeater = builder.build().start();
    return repeater;
  }

  /** Stops the repeater abruptly-as-possible in-process (its connections close). */
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
      throw new IllegalArgumentException("duplicate id must be in 1.." + duplicates.size() + ", was " + id);
    }
    return e;
  }

  public List<Integer> duplicateIds() {
    return List.copyOf(duplicates.keySet());
  }

  public Znodes znodes() {
    return config.znodes;
  }

  /** A builder pre-set with this cluster's repeater and duplicates, for clients with their own settings. */
  public ZoolanderClientBuilder clientBuilder() {
    ZoolanderClientBuilder builder =
        ZoolanderClient.builder()
            .repeater(repeater.boundAddress().getHostString(), repeater.boundAddress().getPort())
            .basePath(config.znodes.basePath());
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

  /** The tree digest of every duplicate, by id. */
  public Map<Integer, TreeDigest> digests() throws Exception {
    Map<Integer, TreeDigest> out = new LinkedHashMap<>();
    for (Map.Entry<Integer, ZooKeeperEnsemble> e : duplicates.entrySet()) {
      out.put(e.getKey(), TreeDigest.of(e.getValue().connectString(), config.znodes));
    }
    return out;
  }

  /** Waits until every duplicate's bookkeeping state has applied at least {@code seq}; returns the digests. */
  public Map<Integer, TreeDigest> awaitApplied(long seq, Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      Map<Integer, TreeDigest> digests = digests();
      if (digests.values().stream().allMatch(d -> d.state().appliedSeq() >= seq)) {
        return digests;
      }
      if (System.nanoTime() > deadline) {
        throw new TimeoutException("duplicates did not apply seq " + seq + " within " + timeout + ": " + digests);
      }
      Thread.sleep(100);
    }
  }

  @Override
  public void close() {
    synchronized (clients) {
      clients.forEach(ZoolanderClient::close);
      clients.clear();
    }
    killRepeater();
    duplicates.values().forEach(ZooKeeperEnsemble::close);
  }

  /** Builds and starts an {@link EmbeddedCluster}; every setter validates its argument. */
  public static final class Builder {
    private int duplicates = 3;
    private int serversPerDuplicate = 1;
    private boolean fsync;
    private Path baseDir;
    private int repeaterLogCapacity = 100_000;
    private Znodes znodes = Znodes.defaults();

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

    /** Whether ZooKeeper fsyncs its log (default false: faster, fine for tests). */
    public Builder fsync(boolean fsync) {
      this.fsync = fsync;
      return this;
    }

    /** Where the servers' data and logs go (default: a new temporary directory). */
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

    public EmbeddedCluster start() throws IOException, InterruptedException, TimeoutException {
      if (baseDir == null) {
        baseDir = Files.createTempDirectory("zoolander-cluster-");
      }
      EmbeddedCluster cluster = new EmbeddedCluster(this);
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
