package io.zoolander.server.cli;

import io.zoolander.server.jmx.ZoolanderJmx;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.MalformedURLException;
import java.util.concurrent.Callable;
import javax.management.JMException;
import javax.management.MBeanServerConnection;
import javax.management.RuntimeMBeanException;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code zoolander duplicates list|add|retire|fan-out}: changes the set of duplicates (and the read
 * fan-out it advises) of a running deployment through the repeater's remote JMX console ({@code
 * zoolander repeater --jmx-port}), the same operations JConsole shows on {@code
 * io.zoolander:type=Repeater}.
 */
@Command(
    name = "duplicates",
    mixinStandardHelpOptions = true,
    description =
        "List, add or retire the duplicates of a running deployment, or set the read fan-out it"
            + " advises, through the repeater's JMX console"
            + " (zoolander repeater --jmx-port). See docs/operations.md, \"Adding and retiring duplicates"
            + " online\".",
    subcommands = {
      DuplicatesCommand.List.class,
      DuplicatesCommand.Add.class,
      DuplicatesCommand.Retire.class,
      DuplicatesCommand.FanOut.class
    })
public final class DuplicatesCommand implements Runnable {
  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Option(
      names = "--jmx",
      paramLabel = "HOST:PORT",
      required = true,
      scope = picocli.CommandLine.ScopeType.INHERIT,
      description =
          "The repeater's JMX console: the host and port of zoolander repeater --jmx-host/--jmx-port.")
  String jmx;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /** Runs {@code action} on the repeater's MBean over a connection to {@code --jmx}. */
  private Object onRepeater(RepeaterAction action) {
    JMXServiceURL url = serviceUrl(jmx);
    JMXConnector connector;
    try {
      connector = connect(url);
    } catch (IOException e) {
      throw new CliException(
          "cannot reach the repeater's JMX console at " + jmx + ": " + Help.oneLine(e));
    }
    try (connector) {
      return action.run(connector.getMBeanServerConnection());
    } catch (RuntimeMBeanException e) {
      // The operation's own error: only its message crosses JMX.
      Throwable cause = e.getCause() != null ? e.getCause() : e;
      throw new CliException(cause.getMessage());
    } catch (javax.management.InstanceNotFoundException e) {
      throw new CliException(
          "no repeater at the JMX console " + jmx + " (" + ZoolanderJmx.REPEATER + " not found)");
    } catch (IOException e) {
      throw new CliException(
          "cannot reach the repeater's JMX console at " + jmx + ": " + Help.oneLine(e));
    } catch (JMException e) {
      throw new CliException("the repeater's JMX console at " + jmx + ": " + Help.oneLine(e));
    }
  }

  /**
   * As jconsole does: the operator names the JMX console of their own repeater (on loopback or a
   * private network, as docs/operations.md says); its replies are open types (strings).
   */
  @SuppressWarnings("BanJNDI")
  private static JMXConnector connect(JMXServiceURL url) throws IOException {
    return JMXConnectorFactory.connect(url);
  }

  /** {@code host:port} to the service URL {@code JmxConsole} serves. */
  public static JMXServiceURL serviceUrl(String hostPort) {
    int colon = hostPort.lastIndexOf(':');
    if (colon <= 0 || colon == hostPort.length() - 1) {
      throw CliException.usage("--jmx must be HOST:PORT, was '" + hostPort + "'");
    }
    String host = hostPort.substring(0, colon);
    int port;
    try {
      port = Integer.parseInt(hostPort.substring(colon + 1));
    } catch (NumberFormatException e) {
      throw CliException.usage("--jmx must be HOST:PORT, was '" + hostPort + "'");
    }
    if (port < 1 || port > 65_535) {
      throw CliException.usage("--jmx port must be in 1..65535, was " + port);
    }
    try {
      return new JMXServiceURL(
          "service:jmx:rmi://"
              + host
              + ":"
              + port
              + "/jndi/rmi://"
              + host
              + ":"
              + port
              + "/jmxrmi");
    } catch (MalformedURLException e) {
      throw CliException.usage("--jmx must be HOST:PORT, was '" + hostPort + "'");
    }
  }

  @FunctionalInterface
  private interface RepeaterAction {
    Object run(MBeanServerConnection jmx) throws IOException, JMException;
  }

  /** Prints what {@code action} returns on the repeater's MBean (one line per row); exit 0. */
  private int answer(picocli.CommandLine.Model.CommandSpec of, RepeaterAction action) {
    print(of.commandLine().getOut(), onRepeater(action));
    return 0;
  }

  private static void print(PrintWriter out, Object result) {
    if (result instanceof String[] rows) {
      for (String row : rows) {
        out.println(row);
      }
    } else {
      out.println(result);
    }
    out.flush();
  }

  /** {@code zoolander duplicates list}. */
  @Command(
      name = "list",
      mixinStandardHelpOptions = true,
      description =
          "Print the membership: its version, the read fan-out advised if any, then one line per"
              + " duplicate, <id> active|joining <connect string>.")
  static final class List implements Callable<Integer> {
    @ParentCommand DuplicatesCommand parent;
    @Spec picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      return parent.answer(spec, jmx -> jmx.getAttribute(ZoolanderJmx.REPEATER, "Members"));
    }
  }

  /** {@code zoolander duplicates add}. */
  @Command(
      name = "add",
      mixinStandardHelpOptions = true,
      description =
          "Add a duplicate: a running ZooKeeper ensemble whose servers run the plugin with"
              + " zoolander.duplicateId=ID. Waits (at most 2 minutes) until it has joined by state transfer"
              + " and is active.")
  static final class Add implements Callable<Integer> {
    @ParentCommand DuplicatesCommand parent;
    @Spec picocli.CommandLine.Model.CommandSpec spec;

    @Option(names = "--id", required = true, paramLabel = "ID", description = "Its duplicate id.")
    int id;

    @Option(
        names = "--connect",
        required = true,
        paramLabel = "CONNECT_STRING",
        description = "Its ensemble's ZooKeeper connect string, host:port[,host:port...].")
    String connect;

    @Override
    public Integer call() {
      return parent.answer(
          spec,
          jmx ->
              jmx.invoke(
                  ZoolanderJmx.REPEATER,
                  "addDuplicate",
                  new Object[] {id, connect},
                  new String[] {"int", String.class.getName()}));
    }
  }

  /** {@code zoolander duplicates retire}. */
  @Command(
      name = "retire",
      mixinStandardHelpOptions = true,
      description =
          "Retire a duplicate: the repeater records it gone, fences it and stops streaming to it;"
              + " clients stop reading from it. Its ensemble can then be stopped.")
  static final class Retire implements Callable<Integer> {
    @ParentCommand DuplicatesCommand parent;
    @Spec picocli.CommandLine.Model.CommandSpec spec;

    @Option(names = "--id", required = true, paramLabel = "ID", description = "Its duplicate id.")
    int id;

    @Override
    public Integer call() {
      return parent.answer(
          spec,
          jmx ->
              jmx.invoke(
                  ZoolanderJmx.REPEATER,
                  "retireDuplicate",
                  new Object[] {id},
                  new String[] {"int"}));
    }
  }

  /** {@code zoolander duplicates fan-out}. */
  @Command(
      name = "fan-out",
      mixinStandardHelpOptions = true,
      description =
          "Advise clients whose read policy is advised to ask C duplicates per read (0 withdraws the"
              + " advice); written to the membership record. The load controller, when on, sets it"
              + " too.")
  static final class FanOut implements Callable<Integer> {
    @ParentCommand DuplicatesCommand parent;
    @Spec picocli.CommandLine.Model.CommandSpec spec;

    @Option(
        names = "--reads",
        required = true,
        paramLabel = "C",
        description = "Duplicates each read asks; 0: no advice.")
    int reads;

    @Override
    public Integer call() {
      return parent.answer(
          spec,
          jmx ->
              jmx.invoke(
                  ZoolanderJmx.REPEATER,
                  "setReadFanOut",
                  new Object[] {reads},
                  new String[] {"int"}));
    }
  }
}
