package io.zoolander.server.jmx;

import io.micrometer.core.instrument.Clock;
import io.micrometer.core.instrument.config.NamingConvention;
import io.micrometer.jmx.JmxConfig;
import io.micrometer.jmx.JmxMeterRegistry;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;

/** The names of Zoolander's MBeans, and the meter registry that exports its meters over JMX. */
public final class ZoolanderJmx {
  /** The one JMX domain of Zoolander's MBeans and meters. */
  public static final String DOMAIN = "io.zoolander";

  /** The repeater: {@link RepeaterMXBean}. */
  public static final ObjectName REPEATER = name(DOMAIN + ":type=Repeater");

  /** The repeater's SLA predictor: {@link PredictorMXBean}. */
  public static final ObjectName PREDICTOR = name(DOMAIN + ":type=Predictor");

  /** The repeater's admission control, while it is on: {@link AdmissionMXBean}. */
  public static final ObjectName ADMISSION = name(DOMAIN + ":type=Admission");

  private ZoolanderJmx() {}

  /**
   * The plugin of duplicate {@code duplicateId} on server {@code serverId} ({@code myid}): {@link
   * PluginMXBean}.
   */
  public static ObjectName plugin(int duplicateId, long serverId) {
    return name(DOMAIN + ":type=Plugin,duplicate=" + duplicateId + ",server=" + serverId);
  }

  /**
   * A registry that exports every meter as an MBean of the platform MBean server, in {@link
   * #DOMAIN}: {@code io.zoolander:name=<meter name>.<tag>.<value>...,type=<gauges|timers|meters>},
   * tags in alphabetical order, e.g. {@code
   * io.zoolander:name=zoolander.repeater.duplicate.lag.duplicate.1,type=gauges}. A timer's MBean
   * has the count, mean, max and percentiles (p50 to p99.9) in milliseconds. Close the registry to
   * unregister them.
   */
  public static JmxMeterRegistry newMeterRegistry() {
    JmxMeterRegistry registry =
        new JmxMeterRegistry(
            new JmxConfig() {
              @Override
              public String get(String key) {
                return null;
              }

              @Override
              public String domain() {
                return DOMAIN;
              }
            },
            Clock.SYSTEM);
    registry
        .config()
        .namingConvention(NamingConvention.dot); // the documented names, not camel case
    return registry;
  }

  private static ObjectName name(String name) {
    try {
      return new ObjectName(name);
    } catch (MalformedObjectNameException e) {
      throw new IllegalArgumentException(e);
    }
  }
}
