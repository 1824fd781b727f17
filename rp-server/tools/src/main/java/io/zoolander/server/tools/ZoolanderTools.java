package io.zoolander.server.tools;

import io.zoolander.server.cli.ZoolanderCommand;
import java.io.PrintWriter;
import java.nio.charset.Charset;
import picocli.CommandLine;

/**
 * Entry point of the runnable {@code zoolander.jar} behind the README's {@code ./zoolander}: the
 * operator's commands of {@link ZoolanderCommand} plus {@code demo}, {@code bench} and {@code
 * partitions}, which only this jar carries (they need the client SDK).
 */
public final class ZoolanderTools {

  /** slf4j-simple's log file: the demo writes its log there, not among its progress and table. */
  static final String LOG_FILE_PROPERTY = "org.slf4j.simpleLogger.logFile";

  /** Where {@code demo} logs unless {@code -Dorg.slf4j.simpleLogger.logFile} says otherwise. */
  static final String DEMO_LOG = "zoolander-demo.log";

  private ZoolanderTools() {}

  public static void main(String[] args) {
    ZoolanderCommand.logDefaults();
    if (args.length > 0 && (args[0].equals("bench") || args[0].equals("demo"))) {
      // The standard ZooKeeper client's INFO lines (sessions opened, closed) would bury the
      // progress and the table.
      ZoolanderCommand.setIfAbsent("org.slf4j.simpleLogger.log.org.apache.zookeeper", "warn");
    }
    if (args.length > 0 && args[0].equals("demo")) {
      ZoolanderCommand.setIfAbsent(LOG_FILE_PROPERTY, DEMO_LOG);
    }
    // The platform's default charset, as PrintWriter(OutputStream, boolean) uses: console output.
    Charset console = Charset.defaultCharset();
    System.exit(
        execute(
            args,
            new PrintWriter(System.out, true, console),
            new PrintWriter(System.err, true, console)));
  }

  /**
   * Runs {@code zoolander args...} with every command, tools included, and returns its exit status.
   */
  public static int execute(String[] args, PrintWriter out, PrintWriter err) {
    return ZoolanderCommand.execute(commandLine(), args, out, err);
  }

  /**
   * The whole command line: {@code demo}, {@code bench} and {@code partitions}, then the operator's
   * commands.
   */
  public static CommandLine commandLine() {
    return ZoolanderCommand.commandLine(
        new DemoCommand(), new BenchCommand(), new PartitionsCommand());
  }
}
