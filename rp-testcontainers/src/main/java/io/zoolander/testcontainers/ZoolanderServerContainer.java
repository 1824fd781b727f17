package io.zoolander.testcontainers;

import com.github.dockerjava.api.model.HealthCheck;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Future;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;

/**
 * One ZooKeeper server of a duplicate, running {@code zoolander server} (ZooKeeper with the
 * Zoolander plugin) from the server image of {@code docker/server}. It runs in the host's network
 * namespace and binds 127.0.0.1 only, on the ports given here (pick free ones), so nothing leaves
 * loopback and no port mapping is involved: the server's connect string is {@link #connectString()}
 * for the test JVM, the repeater and the other servers alike.
 *
 * <p>Started, it is healthy: part of a quorum. A one-server duplicate is a quorum of one; the
 * servers of a larger one must start together ({@code Startables.deepStart}), since none is healthy
 * before a quorum is up. {@link ZoolanderContainerCluster} does all this for a whole deployment.
 */
public class ZoolanderServerContainer extends GenericContainer<ZoolanderServerContainer> {
  /**
   * How often the engine runs the image's health check while a test waits (the image's own interval
   * is 10 s).
   */
  public static final Duration HEALTH_INTERVAL = Duration.ofMillis(500);

  /** How long start (and {@link #restart()}) waits for the server to be healthy. */
  public static final Duration START_TIMEOUT = Duration.ofMinutes(2);

  private Integer duplicateId;
  private int serverId = 1;
  private int clientPort;
  private String servers;

  /** A server of the given image, e.g. {@link ZoolanderImages#server()}. */
  public ZoolanderServerContainer(Future<String> image) {
    super(image);
    withNetworkMode("host");
    withEnv("ZOO_CLIENT_PORT_ADDRESS", "127.0.0.1");
    withEnv("ZOOLANDER_PLUGIN_HOST", "127.0.0.1");
    withEnv(
        "ZOOLANDER_PLUGIN_PORT", "0"); // a free port, published in the duplicate's endpoint znode
    withCreateContainerCmdModifier(cmd -> cmd.withHealthcheck(healthCheckEvery(HEALTH_INTERVAL)));
    waitingFor(Wait.forHealthcheck().withStartupTimeout(START_TIMEOUT));
  }

  /**
   * The image's health check command, run at this interval (an empty test inherits the image's).
   */
  static HealthCheck healthCheckEvery(Duration interval) {
    return new HealthCheck().withInterval(interval.toNanos()).withRetries(3);
  }

  /** This server's duplicate: {@code ZOOLANDER_DUPLICATE_ID} (required). */
  public ZoolanderServerContainer withDuplicateId(int duplicateId) {
    if (duplicateId < 0) {
      throw new IllegalArgumentException("duplicateId must be >= 0, was " + duplicateId);
    }
    this.duplicateId = duplicateId;
    return withEnv("ZOOLANDER_DUPLICATE_ID", Integer.toString(duplicateId));
  }

  /** This server's id in its ensemble, its {@code myid}: {@code ZOO_MY_ID} (1 unless set). */
  public ZoolanderServerContainer withServerId(int serverId) {
    if (serverId < 1 || serverId > 255) {
      throw new IllegalArgumentException("serverId must be in 1..255, was " + serverId);
    }
    this.serverId = serverId;
    return withEnv("ZOO_MY_ID", Integer.toString(serverId));
  }

  /**
   * The port ZooKeeper clients connect to on 127.0.0.1: {@code ZOO_CLIENT_PORT} (required: pick a
   * free one).
   */
  public ZoolanderServerContainer withClientPort(int clientPort) {
    if (clientPort < 1 || clientPort > 65535) {
      throw new IllegalArgumentException("clientPort must be in 1..65535, was " + clientPort);
    }
    this.clientPort = clientPort;
    return withEnv("ZOO_CLIENT_PORT", Integer.toString(clientPort));
  }

  /**
   * The ensemble's servers as {@code zoo.cfg} lines, {@code ZOO_SERVERS}: {@code
   * "server.1=127.0.0.1:<quorumPort>:<electionPort> server.2=..."}, the same for every server of
   * the duplicate (required).
   */
  public ZoolanderServerContainer withServers(String servers) {
    Objects.requireNonNull(servers, "servers must not be null");
    if (servers.isBlank()) {
      throw new IllegalArgumentException("servers must not be blank");
    }
    this.servers = servers;
    return withEnv("ZOO_SERVERS", servers);
  }

  /**
   * Zoolander's base path in the ensemble, {@code ZOOLANDER_BASE_PATH} ({@code /zoolander} unless
   * set).
   */
  public ZoolanderServerContainer withBasePath(String basePath) {
    Objects.requireNonNull(basePath, "basePath must not be null");
    return withEnv("ZOOLANDER_BASE_PATH", basePath);
  }

  /**
   * The plugins' ZooKeeper identity, digest scheme ({@code ZOOLANDER_ZOOKEEPER_to create and guard
   * themR} and a password file): with it the plugins put an ACL on Zoolander's znodes so that only
   * they may write them (docs/operations.md, "ZooKeeper ACLs"), and the plugin uses it to create
   * and guard them. Give every server and the repeater the same one.
   *
   * @throws IllegalArgumentException if {@code user} is empty or holds ':', or {@code password} is
   *     empty
   */
  public ZoolanderServerContainer withZooKeeperIdentity(String user, String password) {
    ZooKeeperIdentity.apply(this, user, password);
    return self();
  }

  @Override
  protected void configure() {
    if (duplicateId == null) {
      throw new IllegalStateException("duplicateId is not set: call withDuplicateId");
    }
    if (clientPort == 0) {
      throw new IllegalStateException("clientPort is not set: call withClientPort");
    }
    if (servers == null) {
      throw new IllegalStateException("servers is not set: call withServers");
    }
    if (!servers.contains("server." + serverId + "=")) {
      throw new IllegalStateException(
          "servers does not list this server (server." + serverId + "=...): " + servers);
    }
  }

  /** This duplicate's id. */
  public int duplicateId() {
    return Objects.requireNonNull(duplicateId, "duplicateId is not set");
  }

  /** This server's id in its ensemble. */
  public int serverId() {
    return serverId;
  }

  /** {@code 127.0.0.1:<clientPort>}. */
  public String connectString() {
    return "127.0.0.1:" + clientPort;
  }

  /**
   * Kills the server's process like {@code kill -9} ({@code docker kill}) and waits until the
   * container has stopped. Its data stays in the container, for {@link #restart()}.
   */
  public void kill() {
    ContainerControl.kill(this);
  }

  /**
   * Starts the killed container again, with its data and ports, and waits until it is healthy. Its
   * ensemble elects a leader, whose plugin catches up from the repeater's log.
   */
  public void restart() {
    ContainerControl.restart(this);
    waitUntilContainerStarted();
  }
}
