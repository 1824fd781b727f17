package io.zoolander.server.internal.leader;

import java.io.IOException;
import java.util.Map;
import java.util.Properties;
import org.apache.zookeeper.server.quorum.QuorumPeerConfig;

/**
 * A {@link QuorumPeerConfig} that keeps the {@code zoolander.*} entries of {@code zoo.cfg}.
 * ZooKeeper itself turns unknown keys into {@code zookeeper.*} system properties, which several
 * servers in one JVM would share; keeping them here makes them per server.
 */
public final class ZoolanderPeerConfig extends QuorumPeerConfig {

  /** Parses of this JVM write the same static flags and system properties: one at a time. */
  private static final Object PARSE_LOCK = new Object();

  private volatile Map<String, String> zoolanderProperties = Map.of();

  @Override
  public void parse(String path) throws ConfigException {
    synchronized (PARSE_LOCK) {
      super.parse(path);
    }
  }

  @Override
  public void parseProperties(Properties zkProp) throws IOException, ConfigException {
    zoolanderProperties = Map.copyOf(PluginSettings.zoolanderEntries(zkProp));
    synchronized (PARSE_LOCK) {
      // ZooKeeper keeps standaloneEnabled and reconfigEnabled in static fields that a parse sets
      // only when the
      // file names them: an earlier parse in this JVM must not decide this file's mode. Start from
      // ZooKeeper's
      // defaults.
      QuorumPeerConfig.setStandaloneEnabled(true);
      QuorumPeerConfig.setReconfigEnabled(false);
      super.parseProperties(zkProp);
    }
  }

  /**
   * @return the {@code zoolander.*} entries of the parsed file, full keys
   */
  public Map<String, String> zoolanderProperties() {
    return zoolanderProperties;
  }
}
