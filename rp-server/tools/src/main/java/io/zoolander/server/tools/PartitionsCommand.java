package io.zoolander.server.tools;

import io.zoolander.client.PartitionedClient;
import io.zoolander.client.Partitioning;
import io.zoolander.client.ZoolanderClient;
import io.zoolander.client.ZoolanderClientBuilder;
import io.zoolander.client.balance.BalanceDecision;
import io.zoolander.client.balance.BalancerSettings;
import io.zoolander.client.balance.PartitionBalancer;
import io.zoolander.server.cli.CliException;
import io.zoolander.server.cli.DuplicatesCommand;
import io.zoolander.wire.NameRoutes;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

/**
 * {@code zoolander partitions routes|move|recover|balance}: the route records of a partitioned
 * deployment, moves of a top-level name between its partitions ({@link PartitionedClient#moveName},
 * {@link PartitionedClient#recoverMove}), and a {@link PartitionBalancer} that makes them as the
 * write load shifts, as a client of every partition. Only in the tools' jar: it needs the client
 * SDK.
 */
@Command(
    name = "partitions",
    mixinStandardHelpOptions = true,
    description =
        "Show the route records of a partitioned deployment, move a top-level name to another"
            + " partition online, finish or undo a move whose mover stopped, or move names as the"
            + " write load shifts. See docs/operations.md, \"Moving a name to another partition\".",
    subcommands = {
      PartitionsCommand.Routes.class,
      PartitionsCommand.Move.class,
      PartitionsCommand.Recover.class,
      PartitionsCommand.Balance.class
    })
public final class PartitionsCommand implements Runnable {
  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Option(
      names = "--repeater",
      paramLabel = "P=HOST:PORT",
      scope = ScopeType.INHERIT,
      description =
          "Partition P's repeater (repeat the option for each partition; several for one are"
              + " standbys).")
  List<String> repeaters = new ArrayList<>();

  @Option(
      names = "--duplicate",
      paramLabel = "P=CONNECT_STRING",
      required = true,
      scope = ScopeType.INHERIT,
      description =
          "A duplicate of partition P: its ensemble's ZooKeeper connect string (its plugin is"
              + " found there). Every partition from 0 up needs at least one.")
  List<String> duplicates = new ArrayList<>();

  @Option(
      names = "--base-path",
      paramLabel = "PATH",
      defaultValue = "/zoolander",
      scope = ScopeType.INHERIT,
      description =
          "Base path of Zoolander's znodes in every duplicate (default: ${DEFAULT-VALUE}).")
  String basePath;

  @Option(
      names = "--timeout-seconds",
      paramLabel = "S",
      defaultValue = "30",
      scope = ScopeType.INHERIT,
      description =
          "Bound on connecting and on each request, and on the whole command (default:"
              + " ${DEFAULT-VALUE}).")
  int timeoutSeconds;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /** Partition to its client's builder, from the options. */
  private Map<Integer, ZoolanderClientBuilder> builders() {
    if (timeoutSeconds < 1) {
      throw CliException.usage("--timeout-seconds must be >= 1, was " + timeoutSeconds);
    }
    Map<Integer, ZoolanderClientBuilder> builders = new TreeMap<>();
    for (String d : duplicates) {
      Assignment a = Assignment.parse("--duplicate", d);
      builder(builders, a.partition()).duplicate(a.value());
    }
    for (String r : repeaters) {
      Assignment a = Assignment.parse("--repeater", r);
      int colon = a.value().lastIndexOf(':');
      int port;
      try {
        port = colon <= 0 ? -1 : Integer.parseInt(a.value().substring(colon + 1));
      } catch (NumberFormatException e) {
        port = -1;
      }
      if (port < 1 || port > 65_535 || !builders.containsKey(a.partition())) {
        throw CliException.usage(
            "--repeater must be P=HOST:PORT for a partition P given a --duplicate, was '"
                + r
                + "'");
      }
      builders.get(a.partition()).repeater(a.value().substring(0, colon), port);
    }
    int count = builders.isEmpty() ? 0 : ((TreeMap<Integer, ?>) builders).lastKey() + 1;
    for (int p = 0; p < count; p++) {
      if (!builders.containsKey(p)) {
        throw CliException.usage("partition " + p + " has no --duplicate " + p + "=...");
      }
    }
    return builders;
  }

  private ZoolanderClientBuilder builder(Map<Integer, ZoolanderClientBuilder> builders, int p) {
    return builders.computeIfAbsent(
        p,
        k -> {
          Duration timeout = Duration.ofSeconds(timeoutSeconds);
          return ZoolanderClient.builder()
              .basePath(basePath)
              .requestTimeout(timeout)
              .connectTimeout(timeout);
        });
  }

  /**
   * A client of every partition, whose partitioning routes {@code name} (if not null) to {@code
   * from}.
   */
  private PartitionedClient connect(String name, int from) {
    Map<Integer, ZoolanderClientBuilder> builders = builders();
    Partitioning.Builder partitioning = Partitioning.builder().partitions(builders.size());
    if (name != null) {
      if (from < 0 || from >= builders.size()) {
        throw CliException.usage(
            "--from " + from + " is not one of the " + builders.size() + " partitions");
      }
      try {
        partitioning.route(name, from);
      } catch (IllegalArgumentException e) {
        throw CliException.usage("--name: " + e.getMessage());
      }
    }
    return connect(builders, partitioning);
  }

  /** A client of every partition of {@code builders}, routing by {@code partitioning}. */
  private PartitionedClient connect(
      Map<Integer, ZoolanderClientBuilder> builders, Partitioning.Builder partitioning) {
    PartitionedClient.Builder client = PartitionedClient.builder();
    List<ZoolanderClient> built = new ArrayList<>();
    try {
      for (Map.Entry<Integer, ZoolanderClientBuilder> b : builders.entrySet()) {
        ZoolanderClient c = b.getValue().build();
        built.add(c);
        client.partition(b.getKey(), c);
      }
      return client.partitioning(partitioning.build()).build();
    } catch (RuntimeException e) {
      built.forEach(ZoolanderClient::close);
      throw new CliException("cannot connect to every partition: " + e.getMessage());
    }
  }

  private <T> T await(CompletableFuture<T> future, String what) {
    try {
      return future.get(timeoutSeconds, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CliException(what + ": interrupted");
    } catch (TimeoutException e) {
      throw new CliException(what + ": no answer within " + timeoutSeconds + " s");
    } catch (ExecutionException e) {
      throw new CliException(what + ": " + e.getCause().getMessage());
    }
  }

  /** {@code P=VALUE}. */
  record Assignment(int partition, String value) {
    static Assignment parse(String option, String text) {
      int eq = text.indexOf('=');
      int partition = -1;
      try {
        partition = eq <= 0 ? -1 : Integer.parseInt(text.substring(0, eq));
      } catch (NumberFormatException e) {
        partition = -1;
      }
      if (partition < 0 || eq == text.length() - 1) {
        throw CliException.usage(
            option + " must be P=VALUE with P a partition >= 0, was '" + text + "'");
      }
      return new Assignment(partition, text.substring(eq + 1));
    }
  }

  /** {@code zoolander partitions routes}. */
  @Command(
      name = "routes",
      mixinStandardHelpOptions = true,
      description =
          "Print each partition's route record: one line per name frozen or moved away, or that"
              + " none is.")
  static final class Routes implements Callable<Integer> {
    @ParentCommand PartitionsCommand parent;
    @Spec picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      PrintWriter out = spec.commandLine().getOut();
      try (PartitionedClient client = parent.connect(null, 0)) {
        for (int p = 0; p < client.partitioning().partitions(); p++) {
          NameRoutes routes = parent.await(client.routes(p), "partition " + p + "'s route record");
          if (routes.routes().isEmpty()) {
            out.println("partition " + p + ": every name is served here");
          }
          int partition = p;
          routes
              .routes()
              .forEach(
                  (name, route) ->
                      out.println("partition " + partition + ": " + route.describe(name)));
        }
      }
      out.flush();
      return 0;
    }
  }

  /** The {@code --name} of {@code move} and {@code recover}. */
  static final class NameOption {
    @Option(
        names = "--name",
        required = true,
        paramLabel = "NAME",
        description = "The top-level name.")
    String name;
  }

  /** {@code zoolander partitions move}. */
  @Command(
      name = "move",
      mixinStandardHelpOptions = true,
      description =
          "Move every path under a top-level name to another partition, online; waits until it is"
              + " done.")
  static final class Move implements Callable<Integer> {
    @ParentCommand PartitionsCommand parent;
    @Spec picocli.CommandLine.Model.CommandSpec spec;

    @Mixin NameOption target;

    @Option(
        names = "--from",
        required = true,
        paramLabel = "P",
        description =
            "The partition the clients' routes send it to (if it was moved since, the move starts"
                + " where it lives now).")
    int from;

    @Option(
        names = "--to",
        required = true,
        paramLabel = "P",
        description = "The partition to move it to.")
    int to;

    @Override
    public Integer call() {
      int partitions = parent.builders().size();
      if (to < 0 || to >= partitions) {
        throw CliException.usage("--to " + to + " is not one of the " + partitions + " partitions");
      }
      try (PartitionedClient client = parent.connect(target.name, from)) {
        parent.await(client.moveName(target.name, to), "the move of /" + target.name);
        PrintWriter out = spec.commandLine().getOut();
        out.println(
            "/" + target.name + " lives in partition " + client.partitionOf("/" + target.name));
        out.flush();
      }
      return 0;
    }
  }

  /** {@code zoolander partitions recover}. */
  @Command(
      name = "recover",
      mixinStandardHelpOptions = true,
      description =
          "Finish or undo a move of a top-level name whose mover stopped half-way (the name stays"
              + " frozen until then).")
  static final class Recover implements Callable<Integer> {
    @ParentCommand PartitionsCommand parent;
    @Spec picocli.CommandLine.Model.CommandSpec spec;

    @Mixin NameOption target;

    @Override
    public Integer call() {
      try (PartitionedClient client = parent.connect(null, 0)) {
        int lives =
            parent.await(client.recoverMove(target.name), "the recovery of /" + target.name);
        PrintWriter out = spec.commandLine().getOut();
        out.println(
            lives < 0
                ? "no move of /" + target.name + " was left unfinished"
                : "/" + target.name + " lives in partition " + lives);
        out.flush();
      }
      return 0;
    }
  }

  /** {@code zoolander partitions balance}. */
  @Command(
      name = "balance",
      mixinStandardHelpOptions = true,
      description =
          "Move top-level names between partitions as the write load shifts (a partition balancer:"
              + " docs/operations.md, \"A balancer that follows the write load\"), from each"
              + " partition's rates and capacity read through its repeater's JMX console; prints"
              + " each period's decision. Runs until stopped, or for --periods periods.")
  static final class Balance implements Callable<Integer> {
    @ParentCommand PartitionsCommand parent;
    @Spec picocli.CommandLine.Model.CommandSpec spec;

    @Option(
        names = "--jmx",
        paramLabel = "P=HOST:PORT",
        required = true,
        description =
            "Partition P's repeater JMX console (zoolander repeater --jmx-host/--jmx-port); every"
                + " partition needs one.")
    List<String> jmx = new ArrayList<>();

    @Option(
        names = "--route",
        paramLabel = "NAME=P",
        description =
            "A static route of the applications' partitioning (repeat the option): the balancer"
                + " must route names as they do.")
    List<String> routes = new ArrayList<>();

    @Option(
        names = "--default-partition",
        paramLabel = "P",
        defaultValue = "0",
        description = "The applications' default partition (default: ${DEFAULT-VALUE}).")
    int defaultPartition;

    @Option(
        names = "--target-sla",
        paramLabel = "FRACTION",
        defaultValue = "0.99",
        description =
            "The fraction of writes to be acknowledged within tau, which sets each partition's"
                + " capacity (default: ${DEFAULT-VALUE}).")
    double targetSla;

    @Option(
        names = "--tau-ms",
        paramLabel = "MS",
        defaultValue = "5",
        description = "The bound tau, in milliseconds (default: ${DEFAULT-VALUE}).")
    double tauMs;

    @Option(
        names = "--high-mark",
        paramLabel = "FRACTION",
        defaultValue = "" + BalancerSettings.DEFAULT_HIGH_MARK,
        description =
            "A partition above this fraction of its capacity sheds names (default:"
                + " ${DEFAULT-VALUE}).")
    double highMark;

    @Option(
        names = "--low-mark",
        paramLabel = "FRACTION",
        defaultValue = "" + BalancerSettings.DEFAULT_LOW_MARK,
        description =
            "A partition whose rate fits under this fraction of another's capacity is drained"
                + " into it (default: ${DEFAULT-VALUE}).")
    double lowMark;

    @Option(
        names = "--period-ms",
        paramLabel = "MS",
        defaultValue = "" + BalancerSettings.DEFAULT_PERIOD_MS,
        description = "How often it decides (default: ${DEFAULT-VALUE}).")
    long periodMs;

    @Option(
        names = "--cooldown-ms",
        paramLabel = "MS",
        defaultValue = "" + BalancerSettings.DEFAULT_COOLDOWN_MS,
        description = "No move within this long of the last one's end (default: ${DEFAULT-VALUE}).")
    long cooldownMs;

    @Option(
        names = "--consolidate-periods",
        paramLabel = "N",
        defaultValue = "" + BalancerSettings.DEFAULT_CONSOLIDATE_PERIODS,
        description =
            "Periods in a row a partition must fit into another before it is drained (default:"
                + " ${DEFAULT-VALUE}).")
    int consolidatePeriods;

    @Option(
        names = "--capacity-per-sec",
        paramLabel = "WRITES",
        description =
            "Every partition's capacity in writes/s, as measured (a write-saturation run, say),"
                + " instead of the model's at the target, which serves writes one at a time and so"
                + " underrates a repeater that batches them.")
    Double capacityPerSec;

    @Option(
        names = "--max-serving-partitions",
        paramLabel = "N",
        description =
            "The node budget: a partition without writes takes a name only while fewer than N"
                + " partitions have writes (default: no limit).")
    Integer maxServingPartitions;

    @Option(
        names = "--periods",
        paramLabel = "N",
        defaultValue = "0",
        description =
            "Decide this many periods, wait for a move under way to end, and exit; 0 runs until"
                + " stopped (default: ${DEFAULT-VALUE}).")
    int periods;

    @Override
    public Integer call() throws InterruptedException {
      BalancerSettings settings;
      try {
        settings =
            BalancerSettings.builder()
                .highMark(highMark)
                .lowMark(lowMark)
                .periodMs(periodMs)
                .cooldownMs(cooldownMs)
                .consolidatePeriods(consolidatePeriods)
                .maxServingPartitions(
                    maxServingPartitions == null
                        ? BalancerSettings.DEFAULT_MAX_SERVING_PARTITIONS
                        : maxServingPartitions)
                .build();
      } catch (IllegalArgumentException | IllegalStateException e) {
        throw CliException.usage(e.getMessage());
      }
      if (!(targetSla > 0 && targetSla < 1)) {
        throw CliException.usage("--target-sla must be in (0, 1), was " + targetSla);
      }
      if (!(tauMs > 0) || Double.isInfinite(tauMs)) {
        throw CliException.usage("--tau-ms must be positive, was " + tauMs);
      }
      if (capacityPerSec != null && !(capacityPerSec > 0 && capacityPerSec < 1e12)) {
        throw CliException.usage("--capacity-per-sec must be positive, was " + capacityPerSec);
      }
      if (periods < 0) {
        throw CliException.usage("--periods must be >= 0, was " + periods);
      }
      Map<Integer, ZoolanderClientBuilder> builders = parent.builders();
      Partitioning.Builder partitioning = Partitioning.builder().partitions(builders.size());
      try {
        partitioning.defaultPartition(defaultPartition);
        for (String route : routes) {
          int eq = route.lastIndexOf('=');
          int partition;
          try {
            partition = eq <= 0 ? -1 : Integer.parseInt(route.substring(eq + 1));
          } catch (NumberFormatException e) {
            partition = -1;
          }
          if (partition < 0) {
            throw CliException.usage(
                "--route must be NAME=P with P a partition >= 0, was '" + route + "'");
          }
          partitioning.route(route.substring(0, eq), partition);
        }
      } catch (IllegalArgumentException e) {
        throw CliException.usage(e.getMessage());
      }
      Map<Integer, JmxPartitionProbe> probes = new TreeMap<>();
      for (String console : jmx) {
        Assignment a = Assignment.parse("--jmx", console);
        if (a.partition() >= builders.size()) {
          throw CliException.usage(
              "--jmx " + console + ": partition " + a.partition() + " has no --duplicate");
        }
        probes.put(
            a.partition(),
            new JmxPartitionProbe(
                DuplicatesCommand.serviceUrl(a.value()),
                targetSla,
                tauMs,
                capacityPerSec == null ? Double.NaN : capacityPerSec));
      }
      PrintWriter out = spec.commandLine().getOut();
      try (PartitionedClient client = parent.connect(builders, partitioning)) {
        PartitionBalancer.Builder balancer = PartitionBalancer.builder(client).settings(settings);
        probes.forEach(balancer::probe);
        List<String> moved = new ArrayList<>();
        try (PartitionBalancer running = build(balancer)) {
          for (int period = 0; periods == 0 || period < periods; period++) {
            if (period > 0) {
              Thread.sleep(periodMs);
            }
            BalanceDecision decision = running.decideOnce();
            out.println(decision.describe());
            out.flush();
            if (decision.moves()) {
              moved.add(decision.name());
            }
          }
          parent.await(running.lastMove(), "the last move");
        }
        for (String name : moved) {
          out.println("/" + name + " lives in partition " + client.partitionOf("/" + name));
        }
        out.flush();
      } finally {
        probes.values().forEach(JmxPartitionProbe::close);
      }
      return 0;
    }

    private static PartitionBalancer build(PartitionBalancer.Builder balancer) {
      try {
        return balancer.build();
      } catch (IllegalStateException e) {
        throw CliException.usage(e.getMessage().replace("needs a probe", "needs a --jmx"));
      }
    }
  }
}
