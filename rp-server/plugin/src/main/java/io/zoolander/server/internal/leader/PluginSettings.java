package io.zoolander.server.internal.leader;

import io.zoolander.server.LeaderPluginFactory;
import io.zoolander.server.ZoolanderPeerMain;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.apache.zookeeper.server.quorum.QuorumPeerConfig;
import org.apache.zookeeper.server.quorum.QuorumPeerConfig.ConfigException;

/**
 * The Zoolander part of a server's configuration: the {@code zoolander.*} entries of its {@code
 * zoo.cfg}, the plugin factory they name, and the data directory.
 *
 * @param factory the plugin factory, {@code null} when none is configured
 * @param stopTimeout how long the server waits for a plugin to stop
 * @param properties the {@code zoolander.*} entries, full keys
 * @param dataDir the configured data directory
 */
public record PluginSettings(
    LeaderPluginFactory factory,
    Duration stopTimeout,
    Map<String, String> properties,
    Path dataDir) {

  /** Default of {@value ZoolanderPeerMain#STOP_TIMEOUT_KEY}. */
  public static final Duration DEFAULT_STOP_TIMEOUT = Duration.ofSeconds(5);

  public PluginSettings {
    properties = Map.copyOf(properties);
  }

  /**
   * Extracts the settings of a parsed configuration.
   *
   * @param config the parsed configuration; if it is not a {@link ZoolanderPeerConfig}, its
   *     configuration file (if any) is read again for the {@code zoolander.*} entries
   * @return the settings
   * @throws ConfigException if an entry is invalid or the plugin factory cannot be created
   */
  public static PluginSettings of(QuorumPeerConfig config) throws ConfigException {
    Map<String, String> properties;
    if (config instanceof ZoolanderPeerConfig zoolanderConfig) {
      properties = zoolanderConfig.zoolanderProperties();
    } else if (config.getConfigFilename() != null) {
      properties = readZoolanderProperties(Path.of(config.getConfigFilename()));
    } else {
      properties = Map.of();
    }
    return of(properties, config.getDataDir() == null ? null : config.getDataDir().toPath());
  }

  static PluginSettings of(Map<String, String> properties, Path dataDir) throws ConfigException {
    String factoryName = properties.get(ZoolanderPeerMain.PLUGIN_FACTORY_KEY);
    LeaderPluginFactory factory =
        factoryName == null || factoryName.isBlank() ? null : instantiate(factoryName.trim());
    Duration stopTimeout = DEFAULT_STOP_TIMEOUT;
    String stopTimeoutMs = properties.get(ZoolanderPeerMain.STOP_TIMEOUT_KEY);
    if (stopTimeoutMs != null) {
      try {
        stopTimeout = Duration.ofMillis(Long.parseLong(stopTimeoutMs.trim()));
      } catch (NumberFormatException e) {
        throw new ConfigException(
            ZoolanderPeerMain.STOP_TIMEOUT_KEY + " is not a number: " + stopTimeoutMs);
      }
      if (stopTimeout.isNegative() || stopTimeout.isZero()) {
        throw new ConfigException(
            ZoolanderPeerMain.STOP_TIMEOUT_KEY + " must be positive: " + stopTimeoutMs);
      }
    }
    return new PluginSettings(factory, stopTimeout, properties, dataDir);
  }

  /**
   * @return the entries of {@code properties} whose key has the Zoolander prefix
   */
  static Map<String, String> zoolanderEntries(Properties properties) {
    Map<String, String> entries = new TreeMap<>();
    for (String key : properties.stringPropertyNames()) {
      if (key.startsWith(ZoolanderPeerMain.PROPERTY_PREFIX)) {
        entries.put(key, properties.getProperty(key).trim());
      }
    }
    return entries;
  }

  private static Map<String, String> readZoolanderProperties(Path configFile)
      throws ConfigException {
    Properties properties = new Properties();
    try (InputStream in = Files.newInputStream(configFile)) {
      properties.load(in);
    } catch (IOException e) {
      throw new ConfigException("Error reading " + configFile, e);
    }
    return zoolanderEntries(properties);
  }

  private static LeaderPluginFactory instantiate(String className) throws ConfigException {
    try {
      ClassLoader loader = Thread.currentThread().getContextClassLoader();
      if (loader == null) {
        loader = PluginSettings.class.getClassLoader();
      }
      Class<?> type = Class.forName(className, true, loader);
      if (!LeaderPluginFactory.class.isAssignableFrom(type)) {
        throw new ConfigException(
            ZoolanderPeerMain.PLUGIN_FACTORY_KEY
                + ": "
                + className
                + " does not implement "
                + LeaderPluginFactory.class.getName());
      }
      return (LeaderPluginFactory) type.getDeclaredConstructor().newInstance();
    } catch (ConfigException e) {
      throw e;
    } catch (ReflectiveOperationException | RuntimeException e) {
      throw new ConfigException(
          ZoolanderPeerMain.PLUGIN_FACTORY_KEY + ": cannot create " + className, e);
    } catch (LinkageError e) {
      throw new ConfigException(
          ZoolanderPeerMain.PLUGIN_FACTORY_KEY + ": cannot load " + className + ": " + e);
    }
  }
}
