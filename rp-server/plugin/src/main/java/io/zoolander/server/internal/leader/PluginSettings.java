package io.zoolander.server.internal.leader;

import io.zoolander.server.LeaderPluginFactory;
import io.zoolander.server.settings.Setting;
import io.zoolander.server.settings.SettingException;
import io.zoolander.server.settings.SettingSet;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import org.apache.zookeeper.server.quorum.QuorumPeerConfig;
import org.apache.zookeeper.server.quorum.QuorumPeerConfig.ConfigException;

/**
 * The Zoolander part of a server's configuration: the {@code zoolander.*} entries of its {@code
 * zoo.cfg}, the plugin factory they name, and the data directory. The launcher's own entries are
 * {@link #SETTINGS}; a factory that declares its plugin's ({@link LeaderPluginFactory#settings()})
 * has every other {@code zoolander.*} key refused here, when the server starts.
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

  /** Prefix of the {@code zoo.cfg} entries that belong to Zoolander and its plugin. */
  public static final String PREFIX = "zoolander.";

  /** {@code zoo.cfg} key naming the {@link LeaderPluginFactory} class. */
  public static final String FACTORY_KEY = "zoolander.pluginFactory";

  /** {@code zoo.cfg} key: bound, in milliseconds, on waiting for a plugin to stop. */
  public static final String STOP_TIMEOUT_KEY = "zoolander.plugin.stopTimeoutMs";

  /** Default of {@value #STOP_TIMEOUT_KEY}. */
  public static final Duration DEFAULT_STOP_TIMEOUT = Duration.ofSeconds(5);

  /** The launcher's {@value #FACTORY_KEY}. */
  public static final Setting<String> FACTORY =
      Setting.text(FACTORY_KEY)
          .defaultText("(none: plain ZooKeeper)")
          .doc(
              "Class name of the LeaderPluginFactory whose plugin runs while this server leads; without it the"
                  + " server is plain ZooKeeper.")
          .build();

  /** The launcher's {@value #STOP_TIMEOUT_KEY}. */
  public static final Setting<Long> STOP_TIMEOUT =
      Setting.integer(STOP_TIMEOUT_KEY)
          .defaultValue(DEFAULT_STOP_TIMEOUT.toMillis())
          .range(1L, Long.MAX_VALUE)
          .unit("ms")
          .doc(
              "How long (ms) the server waits for the plugin to stop when leadership ends or the server stops.")
          .build();

  /** The entries the launcher itself reads. */
  public static final List<Setting<?>> SETTINGS = List.of(FACTORY, STOP_TIMEOUT);

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
    String factoryName = properties.get(FACTORY_KEY);
    LeaderPluginFactory factory =
        factoryName == null || factoryName.isBlank() ? null : instantiate(factoryName.trim());
    Duration stopTimeout = DEFAULT_STOP_TIMEOUT;
    String stopTimeoutMs = properties.get(STOP_TIMEOUT_KEY);
    if (stopTimeoutMs != null) {
      try {
        stopTimeout = Duration.ofMillis(Long.parseLong(stopTimeoutMs.trim()));
      } catch (NumberFormatException e) {
        throw new ConfigException(STOP_TIMEOUT_KEY + " is not a number: " + stopTimeoutMs);
      }
      if (stopTimeout.isNegative() || stopTimeout.isZero()) {
        throw new ConfigException(STOP_TIMEOUT_KEY + " must be positive: " + stopTimeoutMs);
      }
    }
    if (factory != null) {
      checkKeys(factory, properties);
    }
    return new PluginSettings(factory, stopTimeout, properties, dataDir);
  }

  /**
   * Refuses a {@code zoolander.*} key that neither the launcher nor the factory's plugin reads,
   * when the factory declares its settings.
   *
   * @throws ConfigException naming every unknown key and the nearest known one; its cause is the
   *     {@link SettingException}
   */
  static void checkKeys(LeaderPluginFactory factory, Map<String, String> properties)
      throws ConfigException {
    String name = factory.getClass().getName();
    SettingSet known;
    try {
      List<Setting<?>> declared = factory.settings();
      if (declared == null || declared.isEmpty()) {
        return; // the plugin reads keys of its own that it does not declare
      }
      known = SettingSet.of(PREFIX, SETTINGS).and(declared);
    } catch (RuntimeException e) {
      throw new ConfigException(FACTORY_KEY + ": " + name + ".settings() failed: " + e, e);
    }
    try {
      known.checkKeys(properties.keySet());
    } catch (SettingException e) {
      StringBuilder message =
          new StringBuilder("unknown Zoolander setting")
              .append(e.unknownKeys().size() > 1 ? "s " : " ");
      String separator = "";
      for (Map.Entry<String, Optional<String>> u : e.unknownKeys().entrySet()) {
        message.append(separator).append(u.getKey());
        u.getValue().ifPresent(s -> message.append(" (did you mean ").append(s).append("?)"));
        separator = ", ";
      }
      message.append(" in zoo.cfg: neither the server nor ").append(name).append(" reads it");
      if (e.unknownKeys().size() > 1) {
        message.append(" (or them)");
      }
      throw new ConfigException(message.toString(), e);
    }
  }

  /**
   * @return the entries of {@code properties} whose key has the Zoolander prefix
   */
  static Map<String, String> zoolanderEntries(Properties properties) {
    Map<String, String> entries = new TreeMap<>();
    for (String key : properties.stringPropertyNames()) {
      if (key.startsWith(PREFIX)) {
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
            FACTORY_KEY
                + ": "
                + className
                + " does not implement "
                + LeaderPluginFactory.class.getName());
      }
      return (LeaderPluginFactory) type.getDeclaredConstructor().newInstance();
    } catch (ConfigException e) {
      throw e;
    } catch (ReflectiveOperationException | RuntimeException e) {
      throw new ConfigException(FACTORY_KEY + ": cannot create " + className, e);
    } catch (LinkageError e) {
      throw new ConfigException(FACTORY_KEY + ": cannot load " + className + ": " + e);
    }
  }
}
