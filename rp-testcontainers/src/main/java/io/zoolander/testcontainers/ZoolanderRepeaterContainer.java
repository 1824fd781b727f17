package io.zoolander.testcontainers;

import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;

/**
 * The repeater of a deployment, running {@code zoolander repeater} from the repeater image of
 * {@code docker/repeater}. Like {@link ZoolanderServerContainer} it runs in the host's network
 * namespace and binds 127.0.0.1 only: clients connect to {@code 127.0.0.1:}{@link #clientPort()}.
 *
 * <p>Started, it is healthy: it has read every duplicate's state, taken a new epoch and accepts
 * clients. Start it after the duplicates' servers.
 */
public class ZoolanderRepeaterContainer extends GenericContainer<ZoolanderRepeaterContainer> {
  private final Map<Integer, String> duplicates = new TreeMap<>();
  private int clientPort;
  private OptionalInt jmxPort = OptionalInt.empty();

  /** A repeater of the given image, e.g. {@link ZoolanderImages#repeater()}. */
  public ZoolanderRepeaterContainer(Future<String> image) {
    super(image);
    withNetworkMode("host");
    withEnv("ZOOLANDER_CLIENT_HOST", "127.0.0.1");
    withCreateContainerCmdModifier(
        cmd ->
            cmd.withHealthcheck(
                ZoolanderServerContainer.healthCheckEvery(
                    ZoolanderServerContainer.HEALTH_INTERVAL)));
    waitingFor(Wait.forHealthcheck().withStartupTimeout(ZoolanderServerContainer.START_TIMEOUT));
  }

  /**
   * Adds duplicate {@code id}, whose ensemble is at {@code connectString} (at least one is
   * required).
   */
  public ZoolanderRepeaterContainer withDuplicate(int id, String connectString) {
    if (id < 0) {
      throw new IllegalArgumentException("duplicate id must be >= 0, was " + id);
    }
    Objects.requireNonNull(connectString, "connectString must not be null");
    if (connectString.isBlank() || connectString.contains(" ")) {
      throw new IllegalArgumentException(
          "connectString must be host:port[,host:port...], was '" + connectString + "'");
    }
    duplicates.put(id, connectString);
    return withEnv(
        "ZOOLANDER_DUPLICATES",
        duplicates.entrySet().stream()
            .map(e -> e.getKey() + "=" + e.getValue())
            .collect(Collectors.joining(" ")));
  }

  /** The port clients connect to on 127.0.0.1 (required: pick a free one). */
  public ZoolanderRepeaterContainer withClientPort(int clientPort) {
    if (clientPort < 1 || clientPort > 65535) {
      throw new IllegalArgumentException("clientPort must be in 1..65535, was " + clientPort);
    }
    this.clientPort = clientPort;
    return withEnv("ZOOLANDER_CLIENT_PORT", Integer.toString(clientPort));
  }

  /**
   * Runs the JMX console on this port of 127.0.0.1 ({@code ZOOLANDER_JMX_PORT}, passed as {@code
   * zoolander repeater --jmx-port}): an RMI connector at {@code
   * service:jmx:rmi:///jndi/rmi://127.0.0.1:<port>/jmxrmi}.
   */
  public ZoolanderRepeaterContainer withJmxPort(int jmxPort) {
    if (jmxPort < 1 || jmxPort > 65535) {
      throw new IllegalArgumentException("jmxPort must be in 1..65535, was " + jmxPort);
    }
    this.jmxPort = OptionalInt.of(jmxPort);
    return withEnv("ZOOLANDER_JMX_PORT", Integer.toString(jmxPort));
  }

  /**
   * Zoolander's base path in every duplicate ({@code /zoolander} unless set); equal to the
   * servers'.
   */
  public ZoolanderRepeaterContainer withBasePath(String basePath) {
    Objects.requireNonNull(basePath, "basePath must not be null");
    return withEnv("ZOOLANDER_BASE_PATH", basePath);
  }

  /**
   * The plugins' ZooKeeper identity, digest scheme ({@code ZOOLANDER_ZOOKEEPER_to claim its epoch
   * in every duplicate's state znodeR} and a password file): with it the plugins put an ACL on
   * Zoolander's znodes so that only they may write them (docs/operations.md, "ZooKeeper ACLs"), and
   * the repeater uses it to claim its epoch in every duplicate's state znode. Give every server and
   * the repeater the same one.
   *
   * @throws IllegalArgumentException if {@code user} is empty or holds ':', or {@code password} is
   *     empty
   */
  public ZoolanderRepeaterContainer withZooKeeperIdentity(String user, String password) {
    ZooKeeperIdentity.apply(this, user, password);
    return self();
  }

  @Override
  protected void configure() {
    if (duplicates.isEmpty()) {
      throw new IllegalStateException("no duplicate: call withDuplicate");
    }
    if (clientPort == 0) {
      throw new IllegalStateException("clientPort is not set: call withClientPort");
    }
  }

  /** The port clients connect to, on 127.0.0.1. */
  public int clientPort() {
    return clientPort;
  }

  /** The JMX console's port on 127.0.0.1, if set. */
  public OptionalInt jmxPort() {
    return jmxPort;
  }

  /** The duplicates by id, as their connect strings. */
  public Map<Integer, String> duplicates() {
    return Map.copyOf(duplicates);
  }

  /** Kills the repeater like {@code kill -9} and waits until its container has stopped. */
  public void kill() {
    ContainerControl.kill(this);
  }

  /**
   * Starts the killed repeater again and waits until it is healthy: it takes a new, higher epoch.
   */
  public void restart() {
    ContainerControl.restart(this);
    waitUntilContainerStarted();
  }
}
