package io.zoolander.server.tools;

import io.zoolander.client.balance.PartitionLoad;
import io.zoolander.client.balance.PartitionProbe;
import io.zoolander.server.jmx.ZoolanderJmx;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import javax.management.JMException;
import javax.management.MBeanServerConnection;
import javax.management.openmbean.CompositeData;
import javax.management.openmbean.TabularData;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

/**
 * A partition seen through its repeater's JMX console: the repeater MBean's {@code
 * NameWriteRatesPerSec} and the predictor MBean's {@code writeCapacityPerSec(targetSla, tauMs)}, or
 * a capacity the operator measured (a write-saturation run, say) instead of the model's. Keeps its
 * connection, and connects again after a failed call (the repeater restarted, say): the failed
 * period holds, the next one tries again. One thread at a time (the balancer's).
 */
final class JmxPartitionProbe implements PartitionProbe, AutoCloseable {
  private final JMXServiceURL url;
  private final double targetSla;
  private final double tauMs;
  private final double fixedCapacityPerSec;
  private JMXConnector connector; // null until connected, and after a failure

  /**
   * @param fixedCapacityPerSec the partition's capacity, or NaN to ask the model at the target
   */
  JmxPartitionProbe(JMXServiceURL url, double targetSla, double tauMs, double fixedCapacityPerSec) {
    this.url = Objects.requireNonNull(url, "url must not be null");
    this.targetSla = targetSla;
    this.tauMs = tauMs;
    this.fixedCapacityPerSec = fixedCapacityPerSec;
  }

  @Override
  public PartitionLoad load() throws IOException, JMException {
    try {
      MBeanServerConnection jmx = connection();
      Map<String, Double> rates = new LinkedHashMap<>();
      TabularData table =
          (TabularData) jmx.getAttribute(ZoolanderJmx.REPEATER, "NameWriteRatesPerSec");
      for (Object row : table.values()) {
        CompositeData entry = (CompositeData) row;
        rates.put((String) entry.get("key"), (Double) entry.get("value"));
      }
      double capacity =
          !Double.isNaN(fixedCapacityPerSec)
              ? fixedCapacityPerSec
              : (Double)
                  jmx.invoke(
                      ZoolanderJmx.PREDICTOR,
                      "writeCapacityPerSec",
                      new Object[] {targetSla, tauMs},
                      new String[] {"double", "double"});
      return new PartitionLoad(rates, capacity);
    } catch (IOException | JMException | RuntimeException e) {
      close();
      throw e;
    }
  }

  /**
   * As jconsole does: the operator names the JMX console of their own repeater (on loopback or a
   * private network, as docs/operations.md says).
   */
  @SuppressWarnings("BanJNDI")
  private MBeanServerConnection connection() throws IOException {
    if (connector == null) {
      connector = JMXConnectorFactory.connect(url);
    }
    return connector.getMBeanServerConnection();
  }

  @Override
  public void close() {
    JMXConnector c = connector;
    connector = null;
    if (c != null) {
      try {
        c.close();
      } catch (IOException e) {
        // closing a broken connection: nothing more to do
      }
    }
  }
}
