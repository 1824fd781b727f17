package io.zoolander.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.zoolander.server.jmx.ZoolanderJmx;
import io.zoolander.testsupport.ProjectRoot;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;

/**
 * The meters that {@code zoolander server} and {@code zoolander repeater} publish over JMX (through
 * {@link ZoolanderJmx#newMeterRegistry()}) appear as MBeans of types that docs/operations.md names,
 * every kind of meter the code uses included.
 */
class MeterMBeansDocumentedTest {

  @Test
  void everyMeterMBeanTypeIsDocumented() throws Exception {
    String operations =
        Files.readString(ProjectRoot.find().resolve("docs/operations.md"), StandardCharsets.UTF_8);
    AtomicLong value = new AtomicLong(3);
    MeterRegistry registry = ZoolanderJmx.newMeterRegistry();
    try {
      Counter.builder("zoolander.test.counter").register(registry).increment();
      Timer.builder("zoolander.test.timer").register(registry).record(Duration.ofMillis(1));
      DistributionSummary.builder("zoolander.test.summary").register(registry).record(1);
      Gauge.builder("zoolander.test.gauge", value, AtomicLong::get).register(registry);
      Set<String> types = new TreeSet<>();
      for (ObjectName n :
          ManagementFactory.getPlatformMBeanServer()
              .queryNames(new ObjectName(ZoolanderJmx.DOMAIN + ":name=zoolander.test.*,*"), null)) {
        types.add(n.getKeyProperty("type"));
      }
      assertThat(types).as("MBean types of the four kinds of meter").hasSize(4);
      for (String type : types) {
        assertThat(operations)
            .as("docs/operations.md names the MBean type %s", type)
            .contains("type=" + type);
      }
    } finally {
      registry.close();
    }
  }
}
