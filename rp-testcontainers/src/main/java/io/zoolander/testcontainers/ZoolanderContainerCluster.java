package io.zoolander.testcontainers;

import io.zoolander.client.ZoolanderClient;
import io.zoolander.client.ZoolanderClientBuilder;
import io.zoolander.server.internal.testing.Ports;
import io.zoolander.server.testing.TreeDigest;
import io.zoolander.wire.Znodes;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.testcontainers.containers.output.OutputFrame;
import org.testcontainers.lifecycle.Startable;
import org.testcontainers.lifecycle.Startables;

/**
 * A whole Zoolander deployment in containers, for users' Testcontainers tests: N duplicates (each a
 * ZooKeeper ensemble of 1, 3 or 5 {@link ZoolanderServerContainer}s) and a {@link
 * ZoolanderRepeaterContainer}, all in the host's network namespace on 127.0.0.1 with free ports.
 * Once {@link #start() started} every server is healthy and the repeater serves; {@link
 * #clientBuilder()} gives a client builder set up for it. Usable as a JUnit 5 {@code @Container}
 * field (it is {@link Startable}).
 *
 * <pre>{@code
 * @Testcontainers
 * class MyTest {
 *   @Container
 *   static ZoolanderContainerCluster cluster = ZoolanderContainerCluster.builder()
 *       .images(ZoolanderImages.of(DockerImageName.parse("zoolander/server:0.1.0"),
 *           DockerImageName.parse("zoolander/repeater:0.1.0")))
 *       .duplicates(3)
 *       .build();
 *
 *   @Test
 *   void writesAndReads() {
 *     try (ZoolanderClient client = cluster.clientBuilder().build()) {
 *       client.create("/x", new byte[] {1}).join();
 *       assertArrayEquals(new byte[] {1}, client.getData("/x").join().data());
 *     }
 *   }
 * }
 * }</pre>
 *
 * <p>Not thread-safe: drive one cluster from one thread at a time.
 */
public final class ZoolanderContainerCluster implements Startable {
  private static final long POLL_MS = 100;

  private final Builder config;
  private final Map<Integer, List<ZoolanderServerContainer>> duplicates = new LinkedHashMap<>();
  private final ZoolanderRepeaterContainer repeater;

  private ZoolanderContainerCluster(Builder config) {
    this.config = config;
    try {
      for (int d = 1; d <= config.duplicates; d++) {
        List<ZoolanderServerContainer> servers = new ArrayList<>();
        StringBuilder serverLines = new StringBuilder();
        int[] clientPorts = new int[config.serversPerDuplicate];
        for (int s = 1; s <= config.serversPerDuplicate; s++) {
          clientPorts[s - 1] = Ports.next();
          serverLines
              .append(s == 1 ? "" : " ")
              .append("server.")
              .append(s)
              .append("=127.0.0.1:")
              .append(Ports.next())
              .append(':')
              .append(Ports.next());
        }
        for (int s = 1; s <= config.serversPerDuplicate; s++) {
          ZoolanderServerContainer server =
              new ZoolanderServerContainer(config.images.server())
                  .withDuplicateId(d)
                  .withServerId(s)
                  .withClientPort(clientPorts[s - 1])
                  .withServers(serverLines.toString())
                  .withBasePath(config.znodes.basePath());
          if (config.zooKeeperUser != null) {
            server.withZooKeeperIdentity(config.zooKeeperUser, config.zooKeeperPassword);
          }
          if (config.logConsumer != null) {
            server.withLogConsumer(config.logConsumer);
          }
          servers.add(server);
        }
        duplicates.put(d, servers);
      }
      repeater =
          new ZoolanderRepeaterContainer(config.images.repeater())
              .withClientPort(Ports.next())
              .withBasePath(config.znodes.basePath());
      duplicates.forEach((id, servers) -> repeater.withDuplicate(id, connectString(servers)));
      if (config.repeaterJmx) {
        repeater.withJmxPort(Ports.next());
      }
      if (config.zooKeeperUser != null) {
        repeater.withZooKeeperIdentity(config.zooKeeperUser, config.zooKeeperPassword);
      }
      if (config.logConsumer != null) {
        repeater.withLogConsumer(config.logConsumer);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("no free ports on 127.0.0.1", e);
    }
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * Starts every server (together, so that each ensemble forms its quorum), waits until all are
   * healthy, then starts the repeater and waits until it serves. The first start builds or pulls
   * the images.
   */
  @Override
  public void start() {
    Startables.deepStart(duplicates.values().stream().flatMap(List::stream)).join();
    repeater.start();
  }

  /** Stops and removes every container. */
  @Override
  public void stop() {
    repeater.stop();
    duplicates.values().forEach(servers -> servers.forEach(ZoolanderServerContainer::stop));
  }

  /**
   * A client builder set up with this cluster's repeater, duplicates and base path; the caller
   * closes the client.
   */
  public ZoolanderClientBuilder clientBuilder() {
    ZoolanderClientBuilder builder =
        ZoolanderClient.builder()
            .basePath(config.znodes.basePath())
            .repeater("127.0.0.1", repeater.clientPort());
    duplicates.values().forEach(servers -> builder.duplicate(connectString(servers)));
    return builder;
  }

  /** The duplicates' ids, 1..N. */
  public List<Integer> duplicateIds() {
    return List.copyOf(duplicates.keySet());
  }

  /** The servers of duplicate {@code id}, by server id 1..n. */
  public List<ZoolanderServerContainer> servers(int id) {
    List<ZoolanderServerContainer> servers = duplicates.get(id);
    if (servers == null) {
      throw new IllegalArgumentException(
          "no duplicate " + id + " (duplicates: " + duplicates.keySet() + ")");
    }
    return List.copyOf(servers);
  }

  /** The ZooKeeper connect string of duplicate {@code id}'s ensemble. */
  public String connectString(int id) {
    return connectString(servers(id));
  }

  /** The repeater. */
  public ZoolanderRepeaterContainer repeater() {
    return repeater;
  }

  /**
   * Kills every server of duplicate {@code id} like {@code kill -9}: the whole duplicate is down,
   * its data kept.
   */
  public void killDuplicate(int id) {
    servers(id).forEach(ZoolanderServerContainer::kill);
  }

  /**
   * Starts the killed servers of duplicate {@code id} again, with their data and ports, and waits
   * until all are healthy. The duplicate's new leader catches up from the repeater's log.
   */
  public void restartDuplicate(int id) {
    Startables.deepStart(
            servers(id).stream()
                .map(
                    s ->
                        new Startable() {
                          @Override
                          public void start() {
                            s.restart();
                          }

                          @Override
                          public void stop() {}
                        }))
        .join();
  }

  /**
   * The tree digest of every duplicate, by id: its data and its applied seq, read from its
   * ensemble.
   */
  public Map<Integer, TreeDigest> digests() throws Exception {
    Map<Integer, TreeDigest> out = new LinkedHashMap<>();
    for (int id : duplicates.keySet()) {
      out.put(id, TreeDigest.of(connectString(id), config.znodes));
    }
    return out;
  }

  /**
   * Waits until every duplicate has applied at least {@code seq} and all hold the same tree at the
   * same applied seq (Zoolander's invariant 4: once writes stop, live duplicates converge); returns
   * their digests.
   *
   * @throws TimeoutException if that does not happen within {@code timeout}, naming the differences
   */
  public Map<Integer, TreeDigest> awaitConverged(long seq, Duration timeout) throws Exception {
    Objects.requireNonNull(timeout, "timeout must not be null");
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      Map<Integer, TreeDigest> digests = digests();
      TreeDigest first = digests.values().iterator().next();
      long firstSeq = first.state().appliedSeq();
      if (firstSeq >= seq
          && digests.values().stream()
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
            "duplicates did not converge at seq >= " + seq + " within " + timeout + why);
      }
      Thread.sleep(POLL_MS);
    }
  }

  private static String connectString(List<ZoolanderServerContainer> servers) {
    return servers.stream()
        .map(ZoolanderServerContainer::connectString)
        .collect(Collectors.joining(","));
  }

  /** Settings of a {@link ZoolanderContainerCluster}. */
  public static final class Builder {
    private ZoolanderImages images;
    private int duplicates = 3;
    private int serversPerDuplicate = 1;
    private Znodes znodes = Znodes.defaults();
    private boolean repeaterJmx;
    private Consumer<OutputFrame> logConsumer;
    private String zooKeeperUser;
    private String zooKeeperPassword;

    private Builder() {}

    /** The server and repeater images (required). */
    public Builder images(ZoolanderImages images) {
      this.images = Objects.requireNonNull(images, "images must not be null");
      return this;
    }

    /** How many duplicates (1..9; 3 unless set). */
    public Builder duplicates(int duplicates) {
      if (duplicates < 1 || duplicates > 9) {
        throw new IllegalArgumentException("duplicates must be in 1..9, was " + duplicates);
      }
      this.duplicates = duplicates;
      return this;
    }

    /** Servers in each duplicate's ensemble: 1, 3 or 5 (1 unless set). */
    public Builder serversPerDuplicate(int servers) {
      if (servers != 1 && servers != 3 && servers != 5) {
        throw new IllegalArgumentException("serversPerDuplicate must be 1, 3 or 5, was " + servers);
      }
      this.serversPerDuplicate = servers;
      return this;
    }

    /** Zoolander's base path in every duplicate ({@code /zoolander} unless set). */
    public Builder basePath(String basePath) {
      this.znodes = new Znodes(Objects.requireNonNull(basePath, "basePath must not be null"));
      return this;
    }

    /**
     * Whether the repeater runs its JMX console on a free port ({@link
     * ZoolanderRepeaterContainer#jmxPort()}).
     */
    public Builder repeaterJmx(boolean repeaterJmx) {
      this.repeaterJmx = repeaterJmx;
      return this;
    }

    /**
     * The plugins' ZooKeeper identity (digest scheme), given to every server and the repeater (none
     * unless set): the plugins then put an ACL on Zoolander's znodes, so that a plain ZooKeeper
     * client may read them but not write them, as in a production deployment (docs/operations.md,
     * "ZooKeeper ACLs").
     *
     * @throws IllegalArgumentException if {@code user} is empty or holds ':', or {@code password}
     *     is empty
     */
    public Builder zooKeeperIdentity(String user, String password) {
      ZooKeeperIdentity.check(user, password);
      this.zooKeeperUser = user;
      this.zooKeeperPassword = password;
      return this;
    }

    /** Receives every container's output (e.g. an {@code Slf4jLogConsumer}); none unless set. */
    public Builder logConsumer(Consumer<OutputFrame> logConsumer) {
      this.logConsumer = Objects.requireNonNull(logConsumer, "logConsumer must not be null");
      return this;
    }

    /**
     * The cluster's containers, with free ports picked now; {@link
     * ZoolanderContainerCluster#start()} starts them.
     *
     * @throws IllegalStateException if no images are set
     */
    public ZoolanderContainerCluster build() {
      if (images == null) {
        throw new IllegalStateException("images are not set: call images(ZoolanderImages)");
      }
      return new ZoolanderContainerCluster(this);
    }
  }
}
