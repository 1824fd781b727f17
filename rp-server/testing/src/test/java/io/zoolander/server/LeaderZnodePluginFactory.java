package io.zoolander.server;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;

/**
 * Test plugin: while its server leads, it holds the ephemeral znode {@value #LEADER_PATH}
 * containing its server id, through a ZooKeeper client connected to its own server only.
 */
public final class LeaderZnodePluginFactory implements LeaderPluginFactory {

  static final String PARENT_PATH = "/zoolander";
  static final String LEADER_PATH = "/zoolander/leader";
  static final int SESSION_TIMEOUT_MILLIS = 2_000;

  @Override
  public LeaderPlugin newPlugin() {
    return new LeaderZnodePlugin();
  }

  private static final class LeaderZnodePlugin implements LeaderPlugin {

    private volatile ZooKeeper client;
    private volatile LeaderContext context;

    @Override
    public void start(LeaderContext ctx) throws Exception {
      context = ctx;
      PluginEvents.record(ctx, "starting");
      CountDownLatch connected = new CountDownLatch(1);
      client =
          new ZooKeeper(
              ctx.localConnectString(),
              SESSION_TIMEOUT_MILLIS,
              event -> {
                if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
                  connected.countDown();
                }
              });
      if (!connected.await(30, TimeUnit.SECONDS)) {
        throw new IllegalStateException(
            "Could not connect to own server " + ctx.localConnectString());
      }
      try {
        client.create(PARENT_PATH, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
      } catch (KeeperException.NodeExistsException e) {
        // created by an earlier leader
      }
      byte[] id = Long.toString(ctx.serverId()).getBytes(StandardCharsets.UTF_8);
      while (true) {
        try {
          client.create(LEADER_PATH, id, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
          break;
        } catch (KeeperException.NodeExistsException e) {
          // The previous leader's node lives until its session expires: wait for it to go.
          CountDownLatch gone = new CountDownLatch(1);
          if (client.exists(LEADER_PATH, event -> gone.countDown()) != null) {
            gone.await(SESSION_TIMEOUT_MILLIS * 5L, TimeUnit.MILLISECONDS);
          }
        }
      }
      PluginEvents.record(ctx, "start");
    }

    @Override
    public void stop() {
      ZooKeeper zk = client;
      if (zk != null) {
        try {
          zk.close(1_000);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      if (context != null) {
        PluginEvents.record(context, "stop");
      }
    }
  }
}
