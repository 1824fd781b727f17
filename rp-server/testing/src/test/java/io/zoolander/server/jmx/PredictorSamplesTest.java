package io.zoolander.server.jmx;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.zoolander.client.WriteResult;
import io.zoolander.client.ZoolanderClient;
import io.zoolander.server.repeater.Repeater;
import io.zoolander.server.testing.EmbeddedCluster;
import io.zoolander.server.testing.ServerMode;
import io.zoolander.testsupport.Await;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.MBeanServer;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The predictor's service-time samples hold no queueing: only a write sent while its duplicate owed
 * no ACK is a sample, while the ACK-latency timer times every probe. One in-process duplicate whose
 * plugin stalls every write {@value #STALL_MS} ms; a write sent while another is being applied
 * waits for it, and must not become a sample. And they age out: with the repeater's clock injected,
 * a minute without writes leaves the predictor without samples (it says so, and answers NaN) until
 * the next write.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class PredictorSamplesTest {
  private static final long STALL_MS = 300;
  private static final Duration WAIT = Duration.ofSeconds(30);

  @Test
  void aWriteSentToABusyDuplicateIsTimedButNotASample() throws Exception {
    MBeanServer platform = ManagementFactory.getPlatformMBeanServer();
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    try (EmbeddedCluster cluster =
        EmbeddedCluster.builder()
            .duplicates(1)
            .serverMode(ServerMode.IN_PROCESS)
            .startRepeater(false)
            .start()) {
      Repeater repeater = cluster.startRepeater(b -> b.meterRegistry(meters).mbeanServer(platform));
      try (ZoolanderClient client = cluster.clientBuilder().build()) {
        byte[] value = {1};
        client.create("/p", value).join();
        cluster.injectAnomalyEverywhere(
            "probability=1;delayMs=" + STALL_MS + ";distribution=fixed;applies=writes");
        Timer timer =
            meters.get(MeterNames.REPEATER_ACK_LATENCY).tag(MeterNames.TAG_DUPLICATE, "1").timer();
        long timedBefore = timer.count();
        int samplesBefore = samples(platform).length;

        // 1 goes to an idle duplicate (a sample); 2 while 1 is applied (no probe: 1's is out); 3
        // once 1 is
        // acknowledged and 2 is being applied: probed, and it waits for 2 (timed, not a sample).
        CompletableFuture<WriteResult> first = client.setData("/p", value, -1);
        // 2 must reach the plugin while it applies 1, not with it (one multi of both would be one
        // 600 ms sample). No
        // event tells that the plugin has begun 1's stall: 50 ms into its 300 ms is well inside it.
        Thread.sleep(STALL_MS / 6);
        CompletableFuture<WriteResult> second = client.setData("/p", value, -1);
        long firstSeq = first.get(30, TimeUnit.SECONDS).seq();
        Await.await(
            WAIT,
            "the repeater has 1's ACK",
            () -> repeater.duplicate(1).ackedSeq() >= firstSeq,
            () -> "");
        CompletableFuture<WriteResult> third = client.setData("/p", value, -1);
        assertThat(second.isDone()).as("2 still being applied when 3 is sent").isFalse();
        long thirdSeq = third.get(30, TimeUnit.SECONDS).seq();
        second.get(30, TimeUnit.SECONDS);
        Await.await(
            WAIT,
            "the repeater has 3's ACK",
            () -> repeater.duplicate(1).ackedSeq() >= thirdSeq,
            () -> "");

        assertThat(timer.count() - timedBefore).as("probes timed: 1's and 3's").isEqualTo(2);
        assertThat(timer.max(TimeUnit.MILLISECONDS))
            .as("3 waited for 2")
            .isGreaterThan(1.5 * STALL_MS);
        double[] samples = samples(platform);
        assertThat(samples).as("only 1's is a sample").hasSize(samplesBefore + 1);
        assertThat(samples[samples.length - 1])
            .as("1's: the stall and the round trip, no queueing")
            .isBetween((double) STALL_MS, 1.5 * STALL_MS);
        assertThat(Arrays.stream(samples).max().orElseThrow()).isLessThan(1.5 * STALL_MS);
      }
    }
  }

  // BanJNDI: the point of the test is a JMX client connecting by URL to the local connector it
  // started, as an operator's console does.
  @SuppressWarnings("BanJNDI")
  @Test
  void samplesAgeOutAndThePredictorSaysHowManyItUsed() throws Exception {
    MBeanServer platform = ManagementFactory.getPlatformMBeanServer();
    AtomicLong now = new AtomicLong();
    try (EmbeddedCluster cluster =
            EmbeddedCluster.builder()
                .duplicates(1)
                .serverMode(ServerMode.IN_PROCESS)
                .startRepeater(false)
                .start();
        JmxConsole console = JmxConsole.builder().port(0).build().start()) {
      cluster.startRepeater(
          b ->
              b.mbeanServer(platform)
                  .ticker(now::get)
                  .predictorSampleMaxAge(Duration.ofSeconds(60)));
      try (JMXConnector connector = JMXConnectorFactory.connect(console.serviceUrl());
          ZoolanderClient client = cluster.clientBuilder().build()) {
        MBeanServerConnection jmx = connector.getMBeanServerConnection();
        ObjectName p = ZoolanderJmx.PREDICTOR;
        assertThat((Long) jmx.getAttribute(p, "SampleMaxAgeMs")).isEqualTo(60_000L);
        for (int i = 0; i < 5; i++) {
          client.create("/age-" + i, new byte[] {1}).get(30, TimeUnit.SECONDS);
        }
        Await.await(
            WAIT,
            "ACK latencies sampled",
            () -> samplesUsed(jmx) > 0,
            () -> "samples used " + samplesUsed(jmx));
        int used = samplesUsed(jmx);
        double sla = (Double) jmx.getAttribute(p, "PredictedSla");
        assertThat(sla).isBetween(0.0, 1.0);
        assertThat((Double) jmx.getAttribute(p, "PredictedSlaLow")).isLessThanOrEqualTo(sla);
        assertThat((Double) jmx.getAttribute(p, "PredictedSlaHigh")).isGreaterThanOrEqualTo(sla);
        assertThat(serviceTimeSamples(jmx)).hasSize(used);

        // No write for a minute (of the injected clock): the samples no longer speak for the
        // present.
        now.addAndGet(TimeUnit.SECONDS.toNanos(61));
        assertThat(samplesUsed(jmx)).isZero();
        assertThat(serviceTimeSamples(jmx)).isEmpty();
        assertThat((Double) jmx.getAttribute(p, "PredictedSla")).isNaN();
        assertThat((Double) jmx.getAttribute(p, "PredictedSlaLow")).isNaN();
        assertThat(
                (Double)
                    jmx.invoke(
                        p, "predictSla", new Object[] {2, 10.0}, new String[] {"int", "double"}))
            .isNaN();

        // A new write to the idle duplicate is a fresh sample.
        client.create("/age-fresh", new byte[] {1}).get(30, TimeUnit.SECONDS);
        Await.await(
            WAIT,
            "the fresh write sampled",
            () -> samplesUsed(jmx) == 1,
            () -> "samples used " + samplesUsed(jmx));
        assertThat((Double) jmx.getAttribute(p, "PredictedSla")).isBetween(0.0, 1.0);
      }
    }
  }

  private static int samplesUsed(MBeanServerConnection jmx) {
    try {
      return (Integer) jmx.getAttribute(ZoolanderJmx.PREDICTOR, "SamplesUsed");
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static double[] serviceTimeSamples(MBeanServerConnection jmx) throws Exception {
    return (double[])
        jmx.invoke(
            ZoolanderJmx.PREDICTOR, "serviceTimeSamplesMs", new Object[] {1}, new String[] {"int"});
  }

  private static double[] samples(MBeanServer platform) throws Exception {
    return (double[])
        platform.invoke(
            ZoolanderJmx.PREDICTOR, "serviceTimeSamplesMs", new Object[] {1}, new String[] {"int"});
  }
}
