package io.zoolander.server.cli;

import io.micrometer.core.instrument.Metrics;
import io.zoolander.server.ZoolanderPeerMain;
import io.zoolander.server.internal.leader.PluginSettings;
import io.zoolander.server.internal.leader.ZoolanderPeerConfig;
import io.zoolander.server.plugin.PluginKeys;
import io.zoolander.server.plugin.ZoolanderPluginConfig;
import io.zoolander.server.plugin.ZoolanderPluginFactory;
import io.zoolander.server.security.PluginSecurity;
import io.zoolander.server.settings.Setting;
import io.zoolander.server.settings.SettingException;
import io.zoolander.server.settings.SettingSet;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.Callable;
import org.apache.zookeeper.server.DatadirCleanupManager;
import org.apache.zookeeper.server.admin.AdminServer.AdminServerException;
import org.apache.zookeeper.server.quorum.QuorumPeerConfig.ConfigException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code zoolander server}: runs one ZooKeeper server of a duplicate ({@link ZoolanderPeerMain}) in
 * this process, after checking its {@code zoo.cfg} so that a mistake is one line at start rather
 * than a log entry when the server first leads.
 */
@Command(
    name = "server",
    mixinStandardHelpOptions = true,
    description = {
      "Run one ZooKeeper server of a duplicate (an ensemble of 1, 3 or 5 servers). While it leads its ensemble, the"
          + " Zoolander plugin runs inside it: it applies the repeater's sequenced writes and serves client reads.",
      "The zoo.cfg is checked first (ZooKeeper's entries and every zoolander.* setting); then the server runs until"
          + " SIGTERM. Logs go to standard error."
    })
final class ServerCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Option(
      names = "--config",
      paramLabel = "FILE",
      required = true,
      description =
          "The server's zoo.cfg: ZooKeeper's entries plus the zoolander.* settings below.")
  Path config;

  @Mixin JmxOptions jmx;

  /** One documented ZooKeeper entry of zoo.cfg: key, default as text, meaning. */
  record Entry(String key, String defaultValue, String meaning) {}

  /**
   * Every {@code zoolander.*} setting, from the descriptors of their owners: the plugin's ({@link
   * PluginKeys#SETTINGS}), the launcher's ({@link ZoolanderPeerMain#settings()}) and the security
   * entries ({@link PluginSecurity#SETTINGS}), in that order.
   */
  static final List<Setting<?>> ZOOLANDER_SETTINGS =
      SettingSet.of(ZoolanderPeerMain.PROPERTY_PREFIX, PluginKeys.SETTINGS)
          .and(ZoolanderPeerMain.settings())
          .and(PluginSecurity.SETTINGS)
          .settings();

  /** The ZooKeeper entries Zoolander depends on. */
  static final List<Entry> ZOOKEEPER_ENTRIES =
      List.of(
          new Entry(
              "standaloneEnabled",
              "false (required)",
              "Also for a one-server duplicate: the plugin runs on the ensemble's leader, and only a"
                  + " quorum server has one."),
          new Entry(
              "server.N",
              "host:quorumPort:electionPort",
              "One line per server of this duplicate's ensemble (N = that server's myid), the same on each of its"
                  + " servers; a one-server duplicate has one line. Never list another duplicate's servers."),
          new Entry(
              "dataDir",
              "DIR",
              "Holds the data and the myid file, whose content is this server's N."),
          new Entry(
              "clientPort",
              "PORT",
              "Where ZooKeeper clients connect: the plugin's own session, the repeater and Zoolander clients"
                  + " (who find the plugin there)."),
          new Entry(
              "admin.enableServer",
              "false",
              "Or give every server on a host its own admin.serverPort: the AdminServer binds 8080 by default."),
          new Entry(
              "tickTime",
              "2000",
              "With initLimit and syncLimit, as for any ZooKeeper ensemble; session timeouts are clamped to 2..20"
                  + " ticks. forceSync=no trades durability for latency."));

  /** The help section listing every entry above. */
  static List<String> settingsHelp() {
    List<String> lines = new ArrayList<>();
    lines.add("");
    lines.add("Zoolander settings in zoo.cfg (key=default):");
    Help.settings(ZOOLANDER_SETTINGS, lines);
    lines.add("");
    lines.add("ZooKeeper entries that matter:");
    for (Entry e : ZOOKEEPER_ENTRIES) {
      lines.add("  " + e.key() + "=" + e.defaultValue());
      Help.wrap(e.meaning(), "      ", lines);
    }
    lines.add("");
    Help.wrap(
        "jute.maxbuffer (a JVM system property: ZOOLANDER_JAVA_OPTS=-Djute.maxbuffer=...) must be equal on"
            + " every server of every duplicate. See docs/operations.md for a whole deployment.",
        "",
        lines);
    return lines;
  }

  @Override
  public Integer call() {
    ZoolanderPeerConfig parsed =
        check(config.toAbsolutePath()); // ZooKeeper warns about a relative one
    DatadirCleanupManager purge =
        new DatadirCleanupManager(
            parsed.getDataDir(),
            parsed.getDataLogDir(),
            parsed.getSnapRetainCount(),
            parsed.getPurgeInterval());
    PrintWriter out = spec.commandLine().getOut();
    JmxOptions.Running console = jmx.start(out);
    // The plugins meter into the global registry (ZooKeeper creates them from zoo.cfg, without a
    // builder).
    Metrics.addRegistry(console.meters);
    purge.start();
    out.printf(
        "zoolander server %d of duplicate %s starting; ZooKeeper clients connect to %s:%d%n",
        parsed.getServerId(),
        parsed.zoolanderProperties().get(ZoolanderPluginConfig.DUPLICATE_ID_KEY),
        parsed.getClientPortAddress().getHostString(),
        parsed.getClientPortAddress().getPort());
    out.flush();
    try {
      new ZoolanderPeerMain().runFromConfig(parsed);
    } catch (IOException | AdminServerException e) {
      throw new CliException("the server stopped: " + Help.oneLine(e));
    } finally {
      purge.shutdown();
      Metrics.removeRegistry(console.meters);
      console.close();
    }
    return 0;
  }

  /** ZooKeeper's port keys, which its own parser refuses without naming them. */
  private static final List<String> PORT_KEYS =
      List.of("clientPort", "secureClientPort", "admin.serverPort");

  private static void checkPorts(Path file) {
    Properties properties = new Properties();
    try (Reader in = Files.newBufferedReader(file)) {
      properties.load(in);
    } catch (IOException | IllegalArgumentException e) {
      return; // ZooKeeper's parser reports an unreadable file
    }
    for (String key : PORT_KEYS) {
      String value = properties.getProperty(key);
      if (value == null) {
        continue;
      }
      int port;
      try {
        port = Integer.parseInt(value.trim());
      } catch (NumberFormatException e) {
        throw new CliException(
            file + ": " + key + " must be a port in 1..65535, was '" + value.trim() + "'");
      }
      if (port < 1 || port > 65535) {
        throw new CliException(file + ": " + key + " must be a port in 1..65535, was " + port);
      }
    }
  }

  /**
   * Parses and checks a server's {@code zoo.cfg} as the server would, and the {@code zoolander.*}
   * settings, which the server itself reads only when it first leads.
   *
   * @throws CliException with one line naming the file and the problem
   */
  static ZoolanderPeerConfig check(Path file) {
    if (!Files.isRegularFile(file)) {
      throw new CliException(
          "zoo.cfg " + file + (Files.exists(file) ? " is not a file" : " does not exist"));
    }
    checkPorts(file);
    ZoolanderPeerConfig parsed = new ZoolanderPeerConfig();
    try {
      parsed.parse(file.toString());
    } catch (ConfigException e) {
      throw new CliException(
          file + ": " + Help.oneLine(e).replace("Error processing " + file + ": ", ""));
    }
    if (!parsed.isDistributed()) {
      throw new CliException(
          file
              + ": the server would run standalone, without a leader to run the plugin: set"
              + " standaloneEnabled=false and list every server of the ensemble as server.N=host:port:port (a one-server"
              + " duplicate has one such line)");
    }
    if (parsed.getClientPortAddress() == null) {
      throw new CliException(
          file + ": clientPort is missing: the plugin, the repeater and clients connect there");
    }
    Map<String, String> zoolander = parsed.zoolanderProperties();
    String factory = zoolander.get(ZoolanderPeerMain.PLUGIN_FACTORY_KEY);
    if (factory == null || factory.isBlank()) {
      throw new CliException(
          file
              + ": "
              + ZoolanderPeerMain.PLUGIN_FACTORY_KEY
              + " is missing: add "
              + ZoolanderPeerMain.PLUGIN_FACTORY_KEY
              + "="
              + ZoolanderPluginFactory.class.getName()
              + " (without it the server is plain ZooKeeper)");
    }
    try {
      // The launcher's own check, as when the server starts: the factory, the stop timeout, and
      // every key against the descriptors of the launcher and of the plugin the factory makes.
      PluginSettings.of(parsed);
    } catch (ConfigException e) {
      if (e.getCause() instanceof SettingException unknown && !unknown.unknownKeys().isEmpty()) {
        throw new CliException(
            file
                + ": unknown Zoolander setting"
                + (unknown.unknownKeys().size() > 1 ? "s " : " ")
                + String.join(", ", unknown.unknownKeys().keySet())
                + " (zoolander server --help lists them)",
            suggestions(unknown.unknownKeys()));
      }
      throw new CliException(file + ": " + Help.oneLine(e));
    }
    if (factory.trim().equals(ZoolanderPluginFactory.class.getName())) {
      try {
        ZoolanderPluginConfig.from(zoolander);
      } catch (IllegalArgumentException e) {
        throw new CliException(
            file
                + ": "
                + e.getMessage()
                    .replaceFirst("^Invalid Zoolander plugin settings in zoo.cfg: ", ""));
      }
      try {
        PluginSecurity.from(zoolander); // reads the certificate, key and secret files it names
      } catch (IllegalArgumentException e) {
        throw new CliException(
            file
                + ": "
                + e.getMessage()
                    .replaceFirst("^Invalid Zoolander security settings in zoo.cfg: ", ""));
      }
    }
    return parsed;
  }

  /** {@code did you mean k?} for the unknown keys that have a near known key, null if none. */
  private static String suggestions(Map<String, Optional<String>> unknown) {
    List<String> near = unknown.values().stream().flatMap(Optional::stream).toList();
    return near.isEmpty() ? null : "did you mean " + String.join(", ", near) + "?";
  }
}
