package io.zoolander.server;

import io.zoolander.server.settings.Setting;
import java.util.List;

/**
 * Creates the {@link LeaderPlugin} of each leadership term.
 *
 * <p>The implementation is named in {@code zoo.cfg} by its class name under the key {@value
 * ZoolanderPeerMain#PLUGIN_FACTORY_KEY}; it must be public and have a public no-argument
 * constructor. One factory instance is created when the server boots; a factory that cannot be
 * loaded or instantiated is a configuration error and the server refuses to start, like with any
 * other invalid {@code zoo.cfg} entry. Without that key the server runs as plain ZooKeeper.
 */
@FunctionalInterface
public interface LeaderPluginFactory {

  /**
   * Returns a new, not yet started plugin for a leadership term that is beginning. Called on the
   * plugin's own thread; an exception is logged like a failed {@link
   * LeaderPlugin#start(LeaderContext)}.
   *
   * @return a fresh plugin instance
   * @throws Exception if no plugin can be created
   */
  LeaderPlugin newPlugin() throws Exception;

  /**
   * The {@code zoo.cfg} entries the plugin reads, as descriptors with full keys (prefix {@value
   * ZoolanderPeerMain#PROPERTY_PREFIX} included). When the list is not empty, the server refuses at
   * start every {@value ZoolanderPeerMain#PROPERTY_PREFIX} key that neither it ({@link
   * ZoolanderPeerMain#settings()}) nor this list has, naming the nearest known key, so that a
   * misspelled key cannot silently leave a default in force. The default, an empty list, declares
   * nothing and every key is accepted.
   *
   * @return the plugin's settings, empty if it does not declare them
   */
  default List<Setting<?>> settings() {
    return List.of();
  }
}
