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
    subcommands = {DemoCommand.class, PredictCommand.class, PlanCommand.class})
public final class ZoolanderCommand implements Runnable {

  @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  public static void main(String[] args) {
    System.exit(execute(args, new PrintWriter(System.out, true), new PrintWriter(System.err, true)));
  }

  /** Runs the command; bad flags and bad files give one line on {@code err} and a non-zero exit code. */
  public static int execute(String[] args, PrintWriter out, PrintWriter err) {
    CommandLine cli = new CommandLine(new ZoolanderCommand());
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
}
