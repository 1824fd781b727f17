package io.zoolander.testsupport;

import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import org.apache.zookeeper.server.ServerCnxnFactory;
import org.apache.zookeeper.server.ZooKeeperServer;

/**
 * One standalone ZooKeeper server in this JVM on 127.0.0.1 and a free port, for tests that need a
 * real server but not a whole Zoolander deployment (the embedded cluster is for that).
 */
public final class StandaloneZooKeeper implements AutoCloseable {
  private final ZooKeeperServer server;
  private final ServerCnxnFactory factory;

  private StandaloneZooKeeper(ZooKeeperServer server, ServerCnxnFactory factory) {
    this.server = server;
    this.factory = factory;
  }

  /** Starts a server whose snapshots and logs go to {@code dir}/data. */
  @SuppressWarnings("AddressSelection") // 127.0.0.1 exactly: the connect string names it
  public static StandaloneZooKeeper start(Path dir) throws IOException, InterruptedException {
    File data = dir.resolve("data").toFile();
    ZooKeeperServer server = new ZooKeeperServer(data, data, 2_000);
    ServerCnxnFactory factory =
        ServerCnxnFactory.createFactory(new InetSocketAddress("127.0.0.1", 0), 20);
    factory.startup(server);
    return new StandaloneZooKeeper(server, factory);
  }

  /** The server, for tests that look at its internals (its in-memory tree, its pipeline). */
  public ZooKeeperServer server() {
    return server;
  }

  /** {@code 127.0.0.1:port}. */
  public String connectString() {
    return "127.0.0.1:" + factory.getLocalPort();
  }

  @Override
  public void close() {
    factory.shutdown();
  }
}
