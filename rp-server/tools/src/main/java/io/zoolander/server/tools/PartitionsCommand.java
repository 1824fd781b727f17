package io.zoolander.server.tools;

import io.zoolander.client.PartitionedClient;
import io.zoolander.client.Partitioning;
import io.zoolander.client.ZoolanderClient;
import io.zoolander.client.ZoolanderClientBuilder;
import io.zoolander.server.cli.CliException;
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
 * {@code zoolander partitions routes|move|recover}: the route records of a partitioned deployment,
 * and moves of a top-level name between its partitions ({@link PartitionedClient#moveName}, {@link
 * PartitionedClient#recoverMove}), as a client of every partition. Only in the tools' jar: it needs
 * the client SDK.
 */
@Command(
    name = "partitions",
    mixinStandardHelpOptions = true,
    description =
        "Show the route records of a partitioned deployment, move a top-level name to another"
            + " partition online, or finish or undo a move whose mover stopped. See"
            + " docs/operations.md, \"Moving a name to another partition\".",
    subcommands = {
      PartitionsCommand.Routes.class,
      PartitionsCommand.Move.class,
      PartitionsCommand.Recover.class
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
}
