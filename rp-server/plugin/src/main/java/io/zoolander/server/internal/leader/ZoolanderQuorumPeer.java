package io.zoolander.server.internal.leader;

import java.io.IOException;
import javax.security.sasl.SaslException;
import org.apache.zookeeper.common.X509Exception;
import org.apache.zookeeper.server.persistence.FileTxnSnapLog;
import org.apache.zookeeper.server.quorum.Leader;
import org.apache.zookeeper.server.quorum.QuorumPeer;

/**
 * A {@link QuorumPeer} whose leader runs the Zoolander plugin: ZooKeeper 3.9.5 calls {@link
 * #makeLeader(FileTxnSnapLog)} each time this peer enters the LEADING state, and the {@link
 * PluginLeaderZooKeeperServer} built there starts and stops the plugin with the leader's ZooKeeper
 * server. Everything else is stock ZooKeeper.
 */
public final class ZoolanderQuorumPeer extends QuorumPeer {

  private final LeaderPluginHost pluginHost;
  private final PluginSettings settings;

  /**
   * @param settings the Zoolander configuration of this server
   * @param pluginHost runs the plugin of each leadership term
   * @throws SaslException as {@link QuorumPeer#QuorumPeer()}
   */
  public ZoolanderQuorumPeer(PluginSettings settings, LeaderPluginHost pluginHost)
      throws SaslException {
    this.settings = settings;
    this.pluginHost = pluginHost;
  }

  @Override
  protected Leader makeLeader(FileTxnSnapLog logFactory) throws IOException, X509Exception {
    return new Leader(
        this, new PluginLeaderZooKeeperServer(logFactory, this, getZkDb(), settings, pluginHost));
  }

  /**
   * @return the plugin host of this peer
   */
  public LeaderPluginHost pluginHost() {
    return pluginHost;
  }
}
