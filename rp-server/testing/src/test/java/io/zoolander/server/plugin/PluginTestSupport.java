package io.zoolander.server.plugin;

import io.zoolander.server.ZoolanderPeerMain;
import io.zoolander.server.testing.ZooKeeperEnsemble;
import io.zoolander.testsupport.Await;
import io.zoolander.testsupport.ZooKeepers;
import io.zoolander.wire.BookkeepingState;
import io.zoolander.wire.PluginEndpoint;
import io.zoolander.wire.Znodes;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;

/** Ensembles running the real plugin, and plain ZooKeeper reads of what it wrote. */
final class PluginTestSupport {

  static final Duration WAIT = Duration.ofSeconds(30);
  static final Znodes ZNODES = Znodes.defaults();

  private PluginTestSupport() {}

  static ZooKeeperEnsemble.Builder ensemble(int servers, int duplicateId) {
    return ZooKeeperEnsemble.builder()
        .servers(servers)
        .property(ZoolanderPeerMain.PLUGIN_FACTORY_KEY, ZoolanderPluginFactory.class.getName())
        .property(ZoolanderPeerMain.STOP_TIMEOUT_KEY, "3000")
        .property(ZoolanderPluginConfig.DUPLICATE_ID_KEY, Integer.toString(duplicateId))
        .property(ZoolanderPluginConfig.SESSION_TIMEOUT_MS_KEY, "4000")
        .property(ZoolanderPluginConfig.RETRANSMIT_TIMEOUT_MS_KEY, "300")
        .property(ZoolanderPluginConfig.READ_WAIT_MS_KEY, "1500")
        .jvmArgs("-XX:TieredStopAtLevel=1", "-Xshare:auto")
        .startTimeout(WAIT);
  }

  /** Closes a test's session and its ensemble, either of which may not have started. */
  static void close(ZooKeeper zk, ZooKeeperEnsemble ensemble) throws InterruptedException {
    if (zk != null) {
      zk.close(1_000);
    }
    if (ensemble != null) {
      ensemble.close();
    }
  }

  static ZooKeeper connect(String connectString) throws Exception {
    ZooKeeper zk = ZooKeepers.connect(connectString, Duration.ofSeconds(10), WAIT);
    return zk;
  }

  /**
   * Waits until the endpoint znode holds an endpoint that accepts connections, and returns it.
   * After a test restarted the server (kill -9), the dead plugin's endpoint stays in the znode
   * until the restarted plugin replaces it (its session is restored with the server's data): a test
   * that starts then must not take it.
   */
  static PluginEndpoint awaitLiveEndpoint(ZooKeeper zk, ZooKeeperEnsemble ensemble)
      throws InterruptedException {
    return awaitEndpoint(zk, ensemble, PluginTestSupport::acceptsConnections);
  }

  private static boolean acceptsConnections(PluginEndpoint endpoint) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(endpoint.host(), endpoint.port()), 1_000);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /** Waits until the endpoint znode holds an endpoint {@code accepted} and returns it. */
  static PluginEndpoint awaitEndpoint(
      ZooKeeper zk, ZooKeeperEnsemble ensemble, Predicate<PluginEndpoint> accepted)
      throws InterruptedException {
    AtomicReference<PluginEndpoint> found = new AtomicReference<>();
    Await.await(
        WAIT,
        "the plugin publishes an acceptable endpoint",
        () -> {
          PluginEndpoint endpoint = PluginEndpoint.decode(getData(zk, ZNODES.endpoint()));
          if (accepted.test(endpoint)) {
            found.set(endpoint);
            return true;
          }
          return false;
        },
        () -> diagnostics(ensemble));
    return found.get();
  }

  static BookkeepingState state(ZooKeeper zk) {
    return BookkeepingState.decode(getData(zk, ZNODES.state()));
  }

  /**
   * @return the data of an application path, null if the node does not exist
   */
  static String appData(ZooKeeper zk, String applicationPath) {
    try {
      Stat stat = zk.exists(ZNODES.toZnode(applicationPath), false);
      return stat == null
          ? null
          : new String(getData(zk, ZNODES.toZnode(applicationPath)), StandardCharsets.UTF_8);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * @return the znode's stat, null if it does not exist
   */
  static Stat stat(ZooKeeper zk, String znode) {
    try {
      return zk.exists(znode, false);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  static byte[] getData(ZooKeeper zk, String znode) {
    try {
      return zk.getData(znode, false, null);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static String diagnostics(ZooKeeperEnsemble ensemble) {
    return ensemble.serverIds().stream()
        .map(
            id ->
                "server "
                    + id
                    + " ("
                    + (ensemble.isRunning(id) ? ensemble.mode(id).orElse("not serving") : "down")
                    + ")\n"
                    + ensemble.logTail(id, 25))
        .collect(Collectors.joining("\n\n"));
  }
}
