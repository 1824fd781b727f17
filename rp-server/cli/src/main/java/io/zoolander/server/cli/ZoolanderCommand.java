package io.zoolander.server.cli;

import java.io.PrintWriter;
import java.nio.charset.Charset;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code zoolander} command: entry point of the slim server jar (the operator's commands {@code
 * predict}, {@code plan}, {@code server}, {@code repeater} and {@code duplicates}). The tools' jar
 * adds {@code demo} and {@code bench} through {@link #commandLine(Object...)} and runs the same
 * {@link #execute(CommandLine, String[], PrintWriter, PrintWriter)}.
 */
@Command(
    name = "zoolander",
    mixinStandardHelpOptions = true,
    version = "zoolander 0.1.0",
    description = "Replication for predictability on Apache ZooKeeper.")
public final class ZoolanderCommand implements Runnable {

  @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  public static void main(String[] args) {
    logDefaults();
    // The platform's default charset, as PrintWriter(OutputStream, boolean) uses: console output.
    Charset console = Charset.defaultCharset();
    System.exit(
        execute(
            args,
            new PrintWriter(System.out, true, console),
            new PrintWriter(System.err, true, console)));
  }

  /**
   * Defaults of the runnable jar's logger (slf4j-simple, to standard error) unless set with {@code
   * -D}: timestamps, and ZooKeeper's configuration parser at WARN, so that its INFO lines do not
   * precede a one-line configuration error.
   */
  public static void logDefaults() {
    setIfAbsent("org.slf4j.simpleLogger.showDateTime", "true");
    setIfAbsent("org.slf4j.simpleLogger.dateTimeFormat", "yyyy-MM-dd HH:mm:ss.SSS");
    setIfAbsent(
        "org.slf4j.simpleLogger.log.org.apache.zookeeper.server.quorum.QuorumPeerConfig", "warn");
  }

  /** Sets a system property (a logger default) unless the user set it with {@code -D}. */
  public static void setIfAbsent(String key, String value) {
    if (System.getProperty(key) == null) {
      System.setProperty(key, value);
    }
  }

  /**
   * Runs the command; bad flags and bad files give one line on {@code err} and a non-zero exit
   * code.
   */
  /** Runs {@code zoolander args...} (the operator's commands) and returns its exit status. */
  public static int execute(String[] args, PrintWriter out, PrintWriter err) {
    return execute(commandLine(), args, out, err);
  }

  /**
   * Runs {@code args} on {@code cli} (from {@link #commandLine(Object...)}) with the command's
   * error handling: a usage error (picocli's, or {@link CliException#usage}) prints one line and
   * the {@code --help} hint and exits 2; another {@link CliException} or an {@link
   * IllegalArgumentException} prints one line and exits 1.
   */
  public static int execute(CommandLine cli, String[] args, PrintWriter out, PrintWriter err) {
    cli.setOut(out);
    cli.setErr(err);
    cli.setParameterExceptionHandler(
        (ex, arguments) -> {
          ex.getCommandLine().getErr().println("zoolander: " + ex.getMessage());
          ex.getCommandLine()
              .getErr()
              .println(
                  "Try '"
                      + ex.getCommandLine().getCommandSpec().qualifiedName()
                      + " --help' for more information.");
          return 2;
        });
    cli.setExecutionExceptionHandler(
        (ex, commandLine, parseResult) -> {
          if (ex instanceof CliException failure) {
            commandLine.getErr().println("zoolander: " + failure.line());
            if (failure.isUsage()) {
              commandLine
                  .getErr()
                  .println(
                      "Try '"
                          + commandLine.getCommandSpec().qualifiedName()
                          + " --help' for more information.");
              return 2;
            }
            return 1;
          }
          if (ex instanceof IllegalArgumentException) {
            commandLine.getErr().println("zoolander: " + ex.getMessage());
            return 1;
          }
          throw ex;
        });
    return cli.execute(args);
  }

  /**
   * Parses {@code args} as {@link #execute} would, without running anything: the check that every
   * {@code zoolander} command shown in the documentation still parses.
   *
   * @throws CommandLine.ParameterException naming the unknown subcommand or option, or the invalid
   *     value
   */
  static CommandLine.ParseResult parseOnly(String... args) {
    return commandLine().parseArgs(args);
  }

  /**
   * The command line of {@code zoolander}: {@code tools} (picocli commands, listed first), then the
   * operator's commands, whose help lists every setting of their files.
   *
   * @param tools further subcommands, such as the tools' {@code demo} and {@code bench}
   */
  public static CommandLine commandLine(Object... tools) {
    CommandLine cli = new CommandLine(new ZoolanderCommand());
    for (Object tool : tools) {
      cli.addSubcommand(tool);
    }
    for (Object command :
        List.of(
            new PredictCommand(),
            new PlanCommand(),
            new ServerCommand(),
            new RepeaterCommand(),
            new DuplicatesCommand())) {
      cli.addSubcommand(command);
    }
    cli.getSubcommands()
        .get("server")
        .getCommandSpec()
        .usageMessage()
        .footer(ServerCommand.settingsHelp().toArray(String[]::new));
    cli.getSubcommands()
        .get("repeater")
        .getCommandSpec()
        .usageMessage()
        .footer(RepeaterCommand.settingsHelp().toArray(String[]::new));
    return cli;
  }
}
