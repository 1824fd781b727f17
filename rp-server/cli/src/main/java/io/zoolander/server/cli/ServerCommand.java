package io.zoolander.server.cli;

import io.micrometer.core.instrument.Metrics;
import io.zoolander.server.ZoolanderPeerMain;
import io.zoolander.server.internal.leader.PluginSettings;
import io.zoolander.server.internal.leader.ZoolanderPeerConfig;
import io.zoolander.server.plugin.ZoolanderPluginConfig;
import io.zoolander.server.plugin.ZoolanderPluginFactory;
import io.zoolander.server.security.PluginSecurity;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
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

  /** One documented zoo.cfg entry: key, default as text, meaning. */
  record Entry(String key, String defaultValue, String meaning) {}

  /**
   * Every {@code zoolander.*} setting, keys and defaults read from {@link ZoolanderPluginConfig}
   * and {@link ZoolanderPeerMain}; a unit test checks that no key of {@link ZoolanderPluginConfig}
   * is missing.
   */
  static final List<Entry> ZOOLANDER_SETTINGS =
      withSecurity(
          List.of(
              new Entry(
                  ZoolanderPeerMain.PLUGIN_FACTORY_KEY,
                  ZoolanderPluginFactory.class.getName(),
                  "Required, with this value: the plugin that runs while this server leads."),
              new Entry(
                  ZoolanderPluginConfig.DUPLICATE_ID_KEY,
                  "<id> (required)",
                  "This duplicate's id (an integer >= 0): the same on every server of the ensemble, different in every"
                      + " duplicate, and the <id> of the repeater's duplicate.<id> line."),
              new Entry(
                  ZoolanderPluginConfig.BASE_PATH_KEY,
                  ZoolanderPluginConfig.BASE_PATH_DEFAULT,
                  "Where Zoolander keeps its znodes in this ensemble; the same in every duplicate, the repeater and the"
                      + " clients."),
              new Entry(
                  ZoolanderPluginConfig.HOST_KEY,
                  ZoolanderPluginConfig.HOST_DEFAULT,
                  "Address the plugin's server binds to (repeater and clients connect to it); 0.0.0.0 for every"
                      + " interface, with "
                      + ZoolanderPluginConfig.ADVERTISED_HOST_KEY
                      + "."),
              new Entry(
                  ZoolanderPluginConfig.PORT_KEY,
                  Integer.toString(ZoolanderPluginConfig.PORT_DEFAULT),
                  "Port it binds to; 0 picks a free one. Either way the address is published in the"
                      + " <basePath>/endpoint znode, where the repeater and clients find it."),
              new Entry(
                  ZoolanderPluginConfig.ADVERTISED_HOST_KEY,
                  "(the bind host)",
                  "Host published in the endpoint znode: one the repeater and clients can reach. Required when the bind"
                      + " host is a wildcard address."),
              new Entry(
                  ZoolanderPluginConfig.SESSION_TIMEOUT_MS_KEY,
                  Integer.toString(ZoolanderPluginConfig.SESSION_TIMEOUT_MS_DEFAULT),
                  "Session timeout (ms) of the plugin's ZooKeeper client of its own server; ZooKeeper clamps it to"
                      + " 2..20 ticks."),
              new Entry(
                  ZoolanderPluginConfig.CONNECT_TIMEOUT_MS_KEY,
                  Long.toString(ZoolanderPluginConfig.CONNECT_TIMEOUT_MS_DEFAULT),
                  "How long (ms) the plugin waits at start for its own server to accept its client."),
              new Entry(
                  ZoolanderPluginConfig.GAP_BUFFER_MESSAGES_KEY,
                  Integer.toString(ZoolanderPluginConfig.GAP_BUFFER_MESSAGES_DEFAULT),
                  "Most sequenced writes held after a gap while the missing ones are retransmitted."),
              new Entry(
                  ZoolanderPluginConfig.RETRANSMIT_TIMEOUT_MS_KEY,
                  Long.toString(ZoolanderPluginConfig.RETRANSMIT_TIMEOUT_MS_DEFAULT),
                  "How long (ms) a retransmission request stays unanswered before it is sent again."),
              new Entry(
                  ZoolanderPluginConfig.READ_WAIT_MS_KEY,
                  Long.toString(ZoolanderPluginConfig.READ_WAIT_MS_DEFAULT),
                  "How long (ms) a read waits for this duplicate to apply the client's last seen seq before it is"
                      + " refused (the client tries another duplicate)."),
              new Entry(
                  ZoolanderPluginConfig.MAX_WAITING_READS_KEY,
                  Integer.toString(ZoolanderPluginConfig.MAX_WAITING_READS_DEFAULT),
                  "Most reads waiting at once; more are refused at once."),
              new Entry(
                  ZoolanderPluginConfig.MAX_QUEUED_MESSAGES_KEY,
                  Integer.toString(ZoolanderPluginConfig.MAX_QUEUED_MESSAGES_DEFAULT),
                  "Received, unhandled messages at which the plugin stops reading the connection that sent the last"
                      + " one (TCP back-pressure) until half are handled."),
              new Entry(
                  ZoolanderPluginConfig.ADVERTISED_PORT_KEY,
                  Integer.toString(ZoolanderPluginConfig.ADVERTISED_PORT_DEFAULT),
                  "Port published in the endpoint znode; 0 publishes the bound port. Set it when the repeater and"
                      + " clients reach the plugin through a forwarded port or a proxy."),
              new Entry(
                  ZoolanderPluginConfig.RECENT_WRITES_MESSAGES_KEY,
                  Integer.toString(ZoolanderPluginConfig.RECENT_WRITES_MESSAGES_DEFAULT),
                  "Most applied writes kept in memory (also at most "
                      + ZoolanderPluginConfig.RECENT_WRITES_MAX_BYTES
                      + " bytes), so that a new repeater can recover from this duplicate the writes other duplicates"
                      + " missed when the old repeater died; 0 keeps none."),
              new Entry(
                  ZoolanderPluginConfig.MAX_BATCH_BYTES_KEY,
                  Integer.toString(ZoolanderPluginConfig.MAX_BATCH_BYTES_DEFAULT),
                  "Most bytes of one batch of writes, applied as one ZooKeeper multi (besides at most 64 writes and"
                      + " jute.maxbuffer). ZooKeeper keeps its last 500 proposals in memory: this bounds what they hold."),
              new Entry(
                  ZoolanderPluginConfig.PLANNED_SLOWNESS_MAX_MS_KEY,
                  Long.toString(ZoolanderPluginConfig.PLANNED_SLOWNESS_MAX_MS_DEFAULT),
                  "Planned slowness: the plugin tells its clients when its server starts a snapshot and when it ends, and"
                      + " they read from other duplicates meanwhile; this bounds how long a client keeps it out if the end"
                      + " is lost. 0 announces nothing."),
              new Entry(
                  ZoolanderPeerMain.STOP_TIMEOUT_KEY,
                  Long.toString(PluginSettings.DEFAULT_STOP_TIMEOUT.toMillis()),
                  "How long (ms) the server waits for the plugin to stop when leadership ends or the server stops.")));

  /** {@code base}, then the security entries of {@link PluginSecurity} (all off by default). */
  private static List<Entry> withSecurity(List<Entry> base) {
    List<Entry> all = new ArrayList<>(base);
    PluginSecurity.KEYS.forEach(k -> all.add(new Entry(k.key(), k.defaultValue(), k.meaning())));
    return List.copyOf(all);
  }

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
    for (Entry e : ZOOLANDER_SETTINGS) {
      lines.add("  " + e.key() + "=" + e.defaultValue());
      Help.wrap(e.meaning(), "      ", lines);
    }
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
      PluginSettings.of(parsed);
    } catch (ConfigException e) {
      throw new CliException(file + ": " + Help.oneLine(e));
    }
    if (factory.trim().equals(ZoolanderPluginFactory.class.getName())) {
      TreeSet<String> unknown = new TreeSet<>(zoolander.keySet());
      ZOOLANDER_SETTINGS.forEach(e -> unknown.remove(e.key()));
      if (!unknown.isEmpty()) {
        throw new CliException(
            file
                + ": unknown Zoolander setting"
                + (unknown.size() > 1 ? "s " : " ")
                + String.join(", ", unknown)
                + " (zoolander server --help lists them)");
      }
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
}
