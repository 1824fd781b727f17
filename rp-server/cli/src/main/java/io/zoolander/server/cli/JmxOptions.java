package io.zoolander.server.cli;

import io.micrometer.jmx.JmxMeterRegistry;
import io.zoolander.server.jmx.JmxConsole;
import io.zoolander.server.jmx.ZoolanderJmx;
import java.io.IOException;
import java.io.PrintWriter;
import picocli.CommandLine.Option;

/**
 * The JMX settings of {@code zoolander server} and {@code zoolander repeater}: the meters and
 * MBeans are always in the platform MBean server (so {@code jconsole <pid>} works on the same
 * host); {@code --jmx-port} adds the remote connector.
 */
final class JmxOptions {
  @Option(
      names = "--jmx-port",
      paramLabel = "PORT",
      description =
          "Serve remote JMX (RMI registry and connector on this one port; 0 picks a free one) and print its"
              + " service URL. Default: no remote JMX (local attach by pid still works). No authentication: keep"
              + " --jmx-host on a private address.")
  Integer port;

  @Option(
      names = "--jmx-host",
      paramLabel = "HOST",
      defaultValue = JmxConsole.DEFAULT_HOST,
      description =
          "Address the JMX port binds to (default: ${DEFAULT-VALUE}); 0.0.0.0 for every interface, with"
              + " -Djava.rmi.server.hostname=<name clients use> in ZOOLANDER_JAVA_OPTS.")
  String host;

  /** What {@link #start} started; close it when the command ends. */
  static final class Running implements AutoCloseable {
    final JmxMeterRegistry meters;
    final JmxConsole console; // null without --jmx-port

    private Running(JmxMeterRegistry meters, JmxConsole console) {
      this.meters = meters;
      this.console = console;
    }

    @Override
    public void close() {
      if (console != null) {
        console.close();
      }
      meters.close();
    }
  }

  /**
   * Creates the JMX meter registry and, with {@code --jmx-port}, starts the connector and prints
   * {@code JMX console at <service URL>}.
   *
   * @throws CliException if the port is out of range or cannot be bound
   */
  Running start(PrintWriter out) {
    JmxConsole console = null;
    if (port != null) {
      if (port < 0 || port > 65535) {
        throw CliException.usage("--jmx-port must be in 0..65535, was " + port);
      }
      try {
        console = JmxConsole.builder().host(host).port(port).build().start();
      } catch (IOException | IllegalArgumentException e) {
        throw new CliException("cannot serve JMX on " + host + ":" + port + ": " + Help.oneLine(e));
      }
      out.println("JMX console at " + console.serviceUrl());
      out.flush();
    }
    return new Running(ZoolanderJmx.newMeterRegistry(), console);
  }
}
