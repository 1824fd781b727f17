package io.zoolander.server.jmx;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.rmi.NoSuchObjectException;
import java.rmi.registry.LocateRegistry;
import java.rmi.registry.Registry;
import java.rmi.server.RMIServerSocketFactory;
import java.rmi.server.UnicastRemoteObject;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import javax.management.MBeanServer;
import javax.management.remote.JMXConnectorServer;
import javax.management.remote.JMXConnectorServerFactory;
import javax.management.remote.JMXServiceURL;
import javax.management.remote.rmi.RMIConnectorServer;

/**
 * Remote JMX for an MBean server: an RMI registry and the RMI connector server, both on one {@code
 * host:port}, so one port is all a firewall or a container has to publish. The service URL is
 * {@code service:jmx:rmi://<host>:<port>/jndi/rmi://<host>:<port>/jmxrmi} ({@link #serviceUrl()});
 * {@code jconsole <that URL>} connects.
 *
 * <pre>{@code
 * try (JmxConsole console = JmxConsole.builder().port(9010).build().start()) {
 *   System.out.println(console.serviceUrl());
 *   ...
 * }
 * }</pre>
 *
 * <p>No authentication and no TLS: keep the default host, {@value #DEFAULT_HOST}, and reach it
 * through an SSH tunnel or a private network. The stubs the registry hands out name {@code
 * java.rmi.server.hostname}: {@link #start()} sets that JVM-wide system property to the host when
 * it is unset and the host is not a wildcard address (with a wildcard, set it to the name clients
 * use).
 */
public final class JmxConsole implements AutoCloseable {
  /** The address the console binds by default: local connections only. */
  public static final String DEFAULT_HOST = "127.0.0.1";

  /** The RMI registry name of the connector, the last part of the service URL. */
  public static final String REGISTRY_NAME = "jmxrmi";

  /** JVM-wide system property naming the host in RMI stubs. */
  static final String RMI_HOSTNAME_PROPERTY = "java.rmi.server.hostname";

  private final String host;
  private final int port;
  private final MBeanServer mbeanServer;
  private Registry registry;
  private JMXConnectorServer connector;
  private JMXServiceURL url;

  private JmxConsole(Builder b) {
    this.host = b.host;
    this.port = b.port;
    this.mbeanServer = b.mbeanServer;
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * Binds the registry and the connector and starts serving.
   *
   * @throws IOException if the port cannot be bound
   * @throws IllegalStateException if already started
   */
  public synchronized JmxConsole start() throws IOException {
    if (connector != null) {
      throw new IllegalStateException("console already started");
    }
    InetAddress bind = InetAddress.getByName(host);
    if (!bind.isAnyLocalAddress() && System.getProperty(RMI_HOSTNAME_PROPERTY) == null) {
      System.setProperty(RMI_HOSTNAME_PROPERTY, host);
    }
    BoundSocketFactory sockets = new BoundSocketFactory(bind);
    registry = LocateRegistry.createRegistry(port, null, sockets);
    int bound = sockets.boundPort;
    String authority = (host.contains(":") ? "[" + host + "]" : host) + ":" + bound;
    url =
        new JMXServiceURL(
            "service:jmx:rmi://" + authority + "/jndi/rmi://" + authority + "/" + REGISTRY_NAME);
    Map<String, Object> env = new HashMap<>();
    // The same factory instance and port as the registry: RMI serves both on one listening socket.
    env.put(RMIConnectorServer.RMI_SERVER_SOCKET_FACTORY_ATTRIBUTE, sockets);
    try {
      connector = JMXConnectorServerFactory.newJMXConnectorServer(url, env, mbeanServer);
      connector.start();
    } catch (IOException | RuntimeException e) {
      connector = null;
      unexportRegistry();
      throw e;
    }
    return this;
  }

  /**
   * The URL a JMX client connects to, e.g. {@code
   * service:jmx:rmi://127.0.0.1:9010/jndi/rmi://127.0.0.1:9010/jmxrmi}.
   *
   * @throws IllegalStateException before {@link #start()}
   */
  public synchronized JMXServiceURL serviceUrl() {
    if (url == null) {
      throw new IllegalStateException("console not started");
    }
    return url;
  }

  /** Stops the connector (closing its client connections) and the registry. Idempotent. */
  @Override
  public synchronized void close() {
    if (connector != null) {
      try {
        connector.stop();
      } catch (IOException e) {
        // closing anyway: the registry goes next
      }
      connector = null;
    }
    unexportRegistry();
  }

  private void unexportRegistry() {
    if (registry != null) {
      try {
        UnicastRemoteObject.unexportObject(registry, true);
      } catch (NoSuchObjectException e) {
        // already gone
      }
      registry = null;
    }
  }

  /**
   * Server sockets on one address; records the port of the first, so port 0 gives one ephemeral
   * port, reused for the connector. Equality is identity: RMI shares a listening socket between
   * exports with an equal factory.
   */
  private static final class BoundSocketFactory implements RMIServerSocketFactory {
    private final InetAddress address;
    private volatile int boundPort;

    BoundSocketFactory(InetAddress address) {
      this.address = address;
    }

    @Override
    public ServerSocket createServerSocket(int port) throws IOException {
      ServerSocket socket = new ServerSocket(port, 0, address);
      if (boundPort == 0) {
        boundPort = socket.getLocalPort();
      }
      return socket;
    }
  }

  /** Configures a {@link JmxConsole}; every setter validates its argument. */
  public static final class Builder {
    private String host = DEFAULT_HOST;
    private int port;
    private MBeanServer mbeanServer = ManagementFactory.getPlatformMBeanServer();

    private Builder() {}

    /**
     * The address to bind (default {@value #DEFAULT_HOST}); {@code 0.0.0.0} for every interface.
     *
     * @throws IllegalArgumentException if blank or not an address of this host's form
     */
    public Builder host(String host) {
      Objects.requireNonNull(host, "host must not be null");
      if (host.isBlank()) {
        throw new IllegalArgumentException("host must not be blank");
      }
      this.host = host;
      return this;
    }

    /**
     * The port of the registry and the connector (default 0, an ephemeral port: read it from {@link
     * #serviceUrl()}).
     *
     * @param port 0 to 65535
     */
    public Builder port(int port) {
      if (port < 0 || port > 65535) {
        throw new IllegalArgumentException("port must be in 0..65535, was " + port);
      }
      this.port = port;
      return this;
    }

    /**
     * The MBeans served (default: the platform MBean server, where Zoolander registers its MBeans).
     */
    public Builder mbeanServer(MBeanServer mbeanServer) {
      this.mbeanServer = Objects.requireNonNull(mbeanServer, "mbeanServer must not be null");
      return this;
    }

    public JmxConsole build() {
      return new JmxConsole(this);
    }
  }
}
