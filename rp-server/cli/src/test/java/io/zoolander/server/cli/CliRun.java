package io.zoolander.server.cli;

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
    int exit =
        ZoolanderCommand.execute(args, new PrintWriter(out, true), new PrintWriter(err, true));
    return new CliRun(exit, out.toString(), err.toString());
  }
}
