package io.zoolander.server.cli;

import io.zoolander.server.repeater.Failover;
import io.zoolander.server.repeater.Repeater;
import io.zoolander.server.repeater.RepeaterKeys;
import io.zoolander.server.repeater.RepeaterListener;
import java.io.IOException;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code zoolander repeater}: runs the repeater of a deployment in this process until SIGTERM (or
 * until a newer repeater deposes it).
 */
@Command(
    name = "repeater",
    mixinStandardHelpOptions = true,
    description = {
      "Run the repeater: it sequences every client write and streams it, in order, to every duplicate's plugin.",
      "Prints the address clients connect to and its epoch once it serves, then runs until SIGTERM (exit status 143)"
          + " or until a newer repeater deposes it (exit status 1). Logs go to standard error."
    })
final class RepeaterCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Option(
      names = "--config",
      paramLabel = "FILE",
      required = true,
      description =
          "The repeater's properties file: one key=value per line, # comments (settings below).")
  Path config;

  @Mixin JmxOptions jmx;

  /**
   * The help section listing every setting of the properties file, from the repeater's descriptors
   * ({@link RepeaterKeys#ALL}).
   */
  static List<String> settingsHelp() {
    List<String> lines = new ArrayList<>();
    lines.add("");
    lines.add("Settings of the properties file (key=default):");
    Help.settings(RepeaterKeys.ALL.settings(), lines);
    lines.add("");
    lines.add("Example:");
    lines.add("  clientHost=0.0.0.0");
    lines.add("  clientPort=7000");
    lines.add("  duplicate.1=zk-a1:2181,zk-a2:2181,zk-a3:2181");
    lines.add("  duplicate.2=zk-b1:2181,zk-b2:2181,zk-b3:2181");
    lines.add("See docs/operations.md for a whole deployment.");
    return lines;
  }

  @Override
  public Integer call() {
    RepeaterConfig settings = RepeaterConfig.read(config);
    PrintWriter out = spec.commandLine().getOut();
    CountDownLatch stopped = new CountDownLatch(1);
    AtomicReference<String> deposedBy = new AtomicReference<>();
    RepeaterListener listener =
        new RepeaterListener() {
          @Override
          public void deposed(int duplicateId, String reason) {
            deposedBy.compareAndSet(null, "duplicate " + duplicateId + " reports " + reason);
            stopped.countDown();
          }
        };
    JmxOptions.Running console = jmx.start(out);
    Repeater.Builder builder =
        settings.toBuilder()
            .listener(listener)
            .meterRegistry(console.meters)
            .mbeanServer(ManagementFactory.getPlatformMBeanServer());
    Failover failover = null;
    if (settings.failover() != null) {
      try {
        failover = Failover.of(builder, settings.failover());
      } catch (IOException | IllegalArgumentException e) {
        console.close();
        throw new CliException("the repeater did not start: " + Help.oneLine(e));
      }
    }
    AtomicReference<Repeater> running = new AtomicReference<>();
    Failover standby = failover;
    Thread shutdownHook =
        new Thread(
            () -> {
              if (standby != null) {
                standby.close();
              }
              Repeater r = running.get();
              if (r != null) {
                r.close();
              }
              stopped.countDown();
            },
            "zoolander-repeater-shutdown");
    Runtime.getRuntime().addShutdownHook(shutdownHook);
    try {
      Repeater repeater;
      if (standby != null) {
        out.printf(
            "repeater standby, heartbeat %s: takes over when elected%n",
            standby.heartbeatAddress());
        out.flush();
        repeater = standby.awaitActive();
        running.set(repeater);
        out.printf(
            "failover: took over %d ms after the active repeater was presumed dead%n",
            standby.takeoverMillis());
      } else {
        repeater = builder.build();
        running.set(repeater);
        try {
          repeater.start();
        } catch (IOException | TimeoutException | IllegalStateException e) {
          throw new CliException("the repeater did not start: " + Help.oneLine(e));
        }
      }
      InetSocketAddress address = repeater.boundAddress();
      out.printf(
          "repeater listening on %s:%d, epoch %d, next seq %d, duplicates %s%n",
          address.getHostString(),
          address.getPort(),
          repeater.epoch(),
          repeater.nextSeq(),
          settings.duplicates().entrySet().stream()
              .map(e -> e.getKey() + "=" + e.getValue())
              .collect(Collectors.joining(" ")));
      out.flush();
      stopped.await();
    } catch (InterruptedException e) {
      // Stopped by whoever runs this command in-process (tests): a normal stop, like SIGTERM.
      Thread.currentThread().interrupt();
    } finally {
      if (standby != null) {
        standby.close();
      }
      Repeater r = running.get();
      if (r != null) {
        r.close();
      }
      console.close();
      try {
        Runtime.getRuntime().removeShutdownHook(shutdownHook);
      } catch (IllegalStateException e) {
        // JVM shutdown in progress: the hook closes the repeater (again, harmlessly)
      }
    }
    String deposed = deposedBy.get();
    if (deposed != null) {
      throw new CliException(
          "repeater epoch " + running.get().epoch() + " deposed by a newer repeater: " + deposed);
    }
    out.println("repeater stopped");
    out.flush();
    return 0;
  }
}
