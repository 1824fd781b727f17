package io.zoolander.server.tools;

import java.io.PrintWriter;
import java.io.StringWriter;

/**
 * One run of the {@code zoolander} command line in the test JVM, as a user would see it.
 *
 * @param exit the exit status
 * @param out what it printed on standard output
 * @param err what it printed on standard error
 */
record CliRun(int exit, String out, String err) {

  /** Runs {@code zoolander args...} and captures its exit status and both streams. */
  static CliRun run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exit = ZoolanderTools.execute(args, new PrintWriter(out, true), new PrintWriter(err, true));
    return new CliRun(exit, out.toString(), err.toString());
  }

  /**
   * A usage error as the command prints it: exit status 2, the error on one line, then where the
   * (sub)command's help is; returns the error line.
   *
   * @throws AssertionError if the run was anything else
   */
  String usageError() {
    String[] lines = err.strip().split("\n");
    if (exit != 2 || lines.length != 2 || !lines[1].matches("Try 'zoolander [\\w -]+ --help'.*")) {
      throw new AssertionError("expected a usage error (exit 2, two lines), got " + this);
    }
    return lines[0];
  }
}
