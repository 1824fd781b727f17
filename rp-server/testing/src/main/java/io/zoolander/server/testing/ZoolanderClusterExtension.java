package io.zoolander.server.testing;

import io.zoolander.client.ZoolanderClient;
import io.zoolander.client.ZoolanderClientBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * A JUnit 5 extension that runs an {@link EmbeddedCluster} for a test class: started before the
 * class's first test, closed after its last. Register it on a {@code static} field:
 *
 * <pre>{@code
 * class MyTest {
 *   @RegisterExtension
 *   static final ZoolanderClusterExtension CLUSTER =
 *       ZoolanderClusterExtension.builder().duplicates(3).serversPerDuplicate(1).build();
 *   // or .serverMode(ServerMode.IN_PROCESS) to run the ZooKeeper servers in the test JVM
 *
 *   @Test
 *   void readsItsWrite(ZoolanderClient client) {          // a new client per test, closed after it
 *     client.create("/x", new byte[] {1}).join();
 *     assertArrayEquals(new byte[] {1}, client.getData("/x").join().data());
 *   }
 *
 *   @Test
 *   void survivesADuplicateCrash(ZoolanderClient client) throws Exception {
 *     CLUSTER.cluster().killDuplicate(2);                   // faults through the cluster
 *     ...
 *   }
 * }
 * }</pre>
 *
 * <p>Parameters of type {@link ZoolanderClient} get a new client connected to the cluster
 * (configured by {@link Builder#client(Consumer)}): a test's, and its
 * {@code @BeforeEach}/{@code @AfterEach} methods', are closed after the test; a constructor's or
 * {@code @BeforeAll}/{@code @AfterAll} method's with the cluster. Parameters of type {@link
 * EmbeddedCluster} get the cluster itself.
 *
 * <p>The tests of a class share the cluster and its data: use distinct paths per test, or clean up.
 * {@code @Nested} classes share their enclosing class's cluster. Not for tests of one class running
 * in parallel. The extension needs JUnit Jupiter on the test class path, which rp-server declares
 * {@code provided}: a project that uses it has JUnit Jupiter as a test dependency anyway.
 */
public final class ZoolanderClusterExtension
    implements BeforeAllCallback,
        AfterAllCallback,
        BeforeEachCallback,
        AfterEachCallback,
        ParameterResolver {

  private final EmbeddedCluster.Builder clusterBuilder;
  private final Consumer<ZoolanderClientBuilder> clientConfig;

  /**
   * Clients handed to parameters, by the unique id of the context (test or class) that closes them.
   */
  private final Map<String, List<ZoolanderClient>> clients = new ConcurrentHashMap<>();

  private volatile EmbeddedCluster cluster;

  /**
   * Classes (the registering one and its {@code @Nested} ones) whose tests are running; guarded by
   * this.
   */
  private int classes;

  private ZoolanderClusterExtension(Builder builder) {
    this.clusterBuilder = builder.cluster;
    this.clientConfig = builder.clientConfig;
  }

  /**
   * A builder for an extension running three one-server duplicates, as {@link
   * EmbeddedCluster#builder()}.
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * The running cluster: its repeater, duplicates, fault injection, digests.
   *
   * @throws IllegalStateException outside the tests of the class that registered this extension
   */
  public EmbeddedCluster cluster() {
    EmbeddedCluster running = cluster;
    if (running == null) {
      throw new IllegalStateException(
          "the Zoolander cluster runs only during the tests of the class that registers"
              + " the extension");
    }
    return running;
  }

  /**
   * A new client of the cluster, configured like injected ones, closed with the cluster (or by the
   * caller).
   */
  public ZoolanderClient newClient() {
    ZoolanderClientBuilder builder = cluster().clientBuilder();
    clientConfig.accept(builder);
    ZoolanderClient client = builder.build();
    clients.computeIfAbsent(CLASS_KEY, k -> new ArrayList<>()).add(client);
    return client;
  }

  @Override
  public synchronized void beforeAll(ExtensionContext context) throws Exception {
    if (classes++ == 0) {
      cluster = clusterBuilder.start();
    }
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    if (cluster == null) {
      throw new ExtensionConfigurationException(
          "ZoolanderClusterExtension must be registered on a static field"
              + " (@RegisterExtension static final ZoolanderClusterExtension ...): it starts one cluster for the whole"
              + " test class");
    }
  }

  @Override
  public void afterEach(ExtensionContext context) {
    closeClients(context.getUniqueId());
  }

  @Override
  public synchronized void afterAll(ExtensionContext context) {
    if (--classes > 0) {
      return;
    }
    EmbeddedCluster running = cluster;
    cluster = null;
    try {
      List.copyOf(clients.keySet()).forEach(this::closeClients);
    } finally {
      if (running != null) {
        running.close();
      }
    }
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    Class<?> type = parameter.getParameter().getType();
    return type == ZoolanderClient.class || type == EmbeddedCluster.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    if (cluster == null) {
      throw new ParameterResolutionException(
          "no Zoolander cluster runs: register ZoolanderClusterExtension on a" + " static field");
    }
    if (parameter.getParameter().getType() == EmbeddedCluster.class) {
      return cluster;
    }
    ZoolanderClientBuilder builder = cluster.clientBuilder();
    clientConfig.accept(builder);
    ZoolanderClient client = builder.build();
    String owner = context.getTestMethod().isPresent() ? context.getUniqueId() : CLASS_KEY;
    clients.computeIfAbsent(owner, k -> new ArrayList<>()).add(client);
    return client;
  }

  /** Owner of the clients closed only with the cluster. */
  private static final String CLASS_KEY = "";

  private void closeClients(String owner) {
    List<ZoolanderClient> owned = clients.remove(owner);
    if (owned != null) {
      owned.forEach(ZoolanderClient::close);
    }
  }

  /**
   * Configures a {@link ZoolanderClusterExtension}; every setter validates its argument at once.
   */
  public static final class Builder {
    private final EmbeddedCluster.Builder cluster = EmbeddedCluster.builder();
    private Consumer<ZoolanderClientBuilder> clientConfig = b -> {};

    private Builder() {}

    /** Number of duplicates, 1..16 (default 3). */
    public Builder duplicates(int duplicates) {
      cluster.duplicates(duplicates);
      return this;
    }

    /** ZooKeeper servers per duplicate: 1, 3 or 5 (default 1). */
    public Builder serversPerDuplicate(int servers) {
      cluster.serversPerDuplicate(servers);
      return this;
    }

    /**
     * Where the ZooKeeper servers run (default {@link ServerMode#CHILD_JVM}); {@link
     * ServerMode#IN_PROCESS} runs them in the test JVM: faster to start, see {@link
     * ServerMode#IN_PROCESS} for what differs.
     */
    public Builder serverMode(ServerMode mode) {
      cluster.serverMode(mode);
      return this;
    }

    /**
     * Adds arguments for the duplicates' child JVMs, as {@link
     * EmbeddedCluster.Builder#duplicateJvmArgs}.
     */
    public Builder duplicateJvmArgs(String... args) {
      cluster.duplicateJvmArgs(args);
      return this;
    }

    /** Whether ZooKeeper fsyncs its log (default false). */
    public Builder fsync(boolean fsync) {
      cluster.fsync(fsync);
      return this;
    }

    /** The repeater's retransmission log capacity in messages (default 100,000). */
    public Builder repeaterLogCapacity(int messages) {
      cluster.repeaterLogCapacity(messages);
      return this;
    }

    /** Base path of Zoolander's znodes (default {@code /zoolander}). */
    public Builder basePath(String basePath) {
      cluster.basePath(basePath);
      return this;
    }

    /**
     * Settings of the injected clients (and of {@link ZoolanderClusterExtension#newClient()}),
     * applied after the cluster's addresses, e.g. {@code b -> b.readPolicy(ReadPolicy.all())}.
     */
    public Builder client(Consumer<ZoolanderClientBuilder> config) {
      this.clientConfig = Objects.requireNonNull(config, "config must not be null");
      return this;
    }

    /** The extension, to be registered with {@code @RegisterExtension} on a static field. */
    public ZoolanderClusterExtension build() {
      return new ZoolanderClusterExtension(this);
    }
  }
}
