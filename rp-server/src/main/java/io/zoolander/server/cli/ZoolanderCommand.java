package io.zoolander.server.cli;

import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code zoolander} command: entry point of the runnable jar. */
@Command(
    name = "zoolander",
    mixinStandardHelpOptions = true,
    version = "zoolander 0.1.0",
    description = "Replication for predictability on Apache ZooKeeper.",
    subcommands = {
      DemoCommand.class, BenchCommand.class, PredictCommand.class, PlanCommand.class, ServerCommand.class,
      RepeaterCommand.class
    })
public final class ZoolanderCommand implements Runnable {

  @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  public static void main(String[] args) {
    logDefaults();
    if (args.length > 0 && (args[0].equals("bench") || args[0].equals("demo"))) {
      // The standard ZooKeeper client's INFO lines (sessions opened, closed) would bury the progress and the table.
      setIfAbsent("org.slf4j.simpleLogger.log.org.apache.zookeeper", "warn");
    }
    System.exit(execute(args, new PrintWriter(System.out, true), new PrintWriter(System.err, true)));
  }

  /**
   * Defaults of the runnable jar's logger (slf4j-simple, to standard error) unless set with {@code -D}: timestamps,
   * and ZooKeeper's configuration parser at WARN, so that its INFO lines do not precede a one-line configuration
   * error.
   */
  private static void logDefaults() {
    setIfAbsent("org.slf4j.simpleLogger.showDateTime", "true");
    setIfAbsent("org.slf4j.simpleLogger.dateTimeFormat", "yyyy-MM-dd HH:mm:ss.SSS");
    setIfAbsent("org.slf4j.simpleLogger.log.org.apache.zookeeper.server.quorum.QuorumPeerConfig", "warn");
  }

  private static void setIfAbsent(String key, String value) {
    if (System.getProperty(key) == null) {
      System.setProperty(key, value);
    }
  }

  /** Runs the command; bad flags and bad files give one line on {@code err} and a non-zero exit code. */
  public static int execute(String[] args, PrintWriter out, PrintWriter err) {
    CommandLine cli = commandLine();
    cli.setOut(out);
    cli.setErr(err);
    cli.setParameterExceptionHandler(
        (ex, arguments) -> {
          ex.getCommandLine().getErr().println("zoolander: " + ex.getMessage());
          ex.getCommandLine().getErr().println("Try '" + ex.getCommandLine().getCommandSpec().qualifiedName()
              + " --help' for more information.");
          return 2;
        });
    cli.setExecutionExceptionHandler(
        (ex, commandLine, parseResult) -> {
          if (ex instanceof CliException || ex instanceof IllegalArgumentException) {
            commandLine.getErr().println("zoolander: " + ex.getMessage());
            return 1;
          }
          throw ex;
        });
    return cli.execute(args);
  }

  /**
   * Parses {@code args} as {@link #execute} would, without running anything: the check that every {@code zoolander}
   * command shown in the documentation still parses.
   *
   * @throws CommandLine.ParameterException naming the unknown subcommand or option, or the invalid value
   */
  static CommandLine.ParseResult parseOnly(String... args) {
    return commandLine().parseArgs(args);
  }

  /** The command line of {@code zoolander}, its subcommands' help listing every setting of their files. */
  static CommandLine commandLine() {
    CommandLine cli = new CommandLine(new ZoolanderCommand());
    cli.getSubcommands().get("server").getCommandSpec().usageMessage()
        .footer(ServerCommand.settingsHelp().toArray(String[]::new));
    cli.getSubcommands().get("repeater").getCommandSpec().usageMessage()
        .footer(RepeaterCommand.settingsHelp().toArray(String[]::new));
    return cli;
  }
}
