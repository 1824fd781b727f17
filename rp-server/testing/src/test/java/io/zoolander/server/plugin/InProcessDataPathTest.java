package io.zoolander.server.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.zoolander.client.NodeData;
import io.zoolander.client.ReadPolicy;
import io.zoolander.client.ZoolanderClient;
import io.zoolander.server.jmx.MeterNames;
import io.zoolander.server.testing.EmbeddedCluster;
import io.zoolander.server.testing.ServerMode;
import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The plugin's in-process data path (issue 17) while writes flow: writes submitted into the
 * leaders' request pipelines, reads answered from their in-memory trees. Each client reads its own
 * writes, never goes back in time, and every answer's data is what its reported seq says; most
 * reads are answered on the event loop, without the applier; every write went in-process, and the
 * applier's lookups (client records, the result predictor's stats) were read from the tree.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class InProcessDataPathTest {

  @Test
  void writesGoInProcessAndReadsAreFreshMonotonicAndServedFromTheTree() throws Exception {
    // The plugins' meters go to the global registry, a no-op until a registry is added to it.
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    Metrics.addRegistry(meters);
    try (EmbeddedCluster cluster =
        EmbeddedCluster.builder().duplicates(2).serverMode(ServerMode.IN_PROCESS).start()) {
      double directBefore = counted(MeterNames.PLUGIN_READS_DIRECT);
      ZoolanderClient writer = cluster.clientBuilder().build();
      ZoolanderClient reader = cluster.clientBuilder().readPolicy(ReadPolicy.fixed(2)).build();
      try {
        assertThat(writer.create("/counter", value(0)).get(30, TimeUnit.SECONDS).succeeded())
            .isTrue();
        assertThat(reader.create("/own", value(0)).get(30, TimeUnit.SECONDS).succeeded()).isTrue();
        // A sequential create under a parent the predictor has not seen: it needs the parent's
        // child count, read from the tree (the clients' records were, at their first writes).
        double lookupsBefore = counted(MeterNames.PLUGIN_LOOKUPS_LOCAL);
        assertThat(writer.createSequential("/job-", value(0)).get(30, TimeUnit.SECONDS).succeeded())
            .isTrue();
        AtomicBoolean writing = new AtomicBoolean(true);
        AtomicLong written = new AtomicLong();
        Thread background =
            new Thread(
                () -> {
                  try {
                    for (long v = 1; v <= 400; v++) {
                      writer.setData("/counter", value(v), -1).get(30, TimeUnit.SECONDS);
                      written.set(v);
                    }
                  } catch (Exception e) {
                    throw new IllegalStateException(e);
                  } finally {
                    writing.set(false);
                  }
                },
                "writer");
        background.start();

        ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
        long lastSeen = -1;
        long lastSeq = -1;
        long ownWrites = 0;
        int reads = 0;
        while (writing.get() || reads < 50) {
          // The reader's own write to another path: its next read must see at least that seq.
          long ownSeq =
              reader.setData("/own", value(++ownWrites), -1).get(30, TimeUnit.SECONDS).seq();
          NodeData own = reader.getData("/own").get(30, TimeUnit.SECONDS);
          if (own.appliedSeq() < ownSeq || ByteBuffer.wrap(own.data()).getLong() != ownWrites) {
            problems.add("own write " + ownWrites + " at seq " + ownSeq + " read as " + own);
          }
          NodeData counter = reader.getData("/counter").get(30, TimeUnit.SECONDS);
          long v = ByteBuffer.wrap(counter.data()).getLong();
          if (v < lastSeen || counter.appliedSeq() < lastSeq) {
            problems.add(
                "went back: " + v + " at seq " + counter.appliedSeq() + " after " + lastSeen);
          }
          if (counter.version() != v) {
            problems.add("counter " + v + " with version " + counter.version());
          }
          lastSeen = v;
          lastSeq = Math.max(lastSeq, counter.appliedSeq());
          reads++;
        }
        background.join(60_000);
        assertThat(written.get()).as("writes done").isEqualTo(400);
        assertThat(problems).isEmpty();
        assertThat(reads).isGreaterThanOrEqualTo(50);
        assertThat(counted(MeterNames.PLUGIN_MULTIS_LOCAL))
            .as("multis submitted in-process, on both duplicates")
            .isGreaterThanOrEqualTo(2 * 402.0 / 64);
        assertThat(counted(MeterNames.PLUGIN_LOOKUPS_LOCAL) - lookupsBefore)
            .as("the predictor's stats read from the in-memory tree, on both duplicates")
            .isGreaterThanOrEqualTo(2);
        assertThat(counted(MeterNames.PLUGIN_READS_DIRECT) - directBefore)
            .as("reads answered on the event loop from the in-memory tree")
            .isGreaterThan(reads / 2.0);
      } finally {
        reader.close();
        writer.close();
      }
    } finally {
      Metrics.removeRegistry(meters);
    }
  }

  private static double counted(String meter) {
    return Metrics.globalRegistry.find(meter).functionCounters().stream()
        .mapToDouble(FunctionCounter::count)
        .sum();
  }

  private static byte[] value(long v) {
    return ByteBuffer.allocate(Long.BYTES).putLong(v).array();
  }
}
