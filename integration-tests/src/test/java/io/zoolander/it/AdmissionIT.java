package io.zoolander.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.zoolander.client.RetryBudget;
import io.zoolander.client.WriteResult;
import io.zoolander.client.ZoolanderClient;
import io.zoolander.client.ZoolanderException;
import io.zoolander.server.repeater.AdmissionSettings;
import io.zoolander.server.repeater.AdmissionState;
import io.zoolander.server.repeater.Repeater;
import io.zoolander.server.testing.EmbeddedCluster;
import io.zoolander.server.testing.TreeDigest;
import io.zoolander.wire.ErrorCode;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Admission control on real ZooKeeper duplicates: with every duplicate slowed (each write stalls
 * its applier 20 ms, a capacity of about 50 writes/s) and 200 writes/s offered, the repeater sheds
 * with a retry-after hint, the client backs off and each write either succeeds or fails with the
 * documented exception (THROTTLEDOP, OVERLOADED); every acknowledged write is on every duplicate,
 * no refused one is anywhere, and the duplicates converge.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class AdmissionIT {
  private static final int WRITES = 400;
  private static final long WRITE_GAP_MS = 5;

  @Test
  void shedWritesBackOffAndNothingAcknowledgedIsLost() throws Exception {
    SimpleMeterRegistry repeaterMeters = new SimpleMeterRegistry();
    SimpleMeterRegistry clientMeters = new SimpleMeterRegistry();
    try (EmbeddedCluster cluster =
        EmbeddedCluster.builder().duplicates(2).startRepeater(false).start()) {
      Repeater repeater =
          cluster.startRepeater(
              b ->
                  b.meterRegistry(repeaterMeters)
                      .admission(
                          AdmissionSettings.builder()
                              .targetSla(0.9)
                              .tauMs(100)
                              .controlPeriodMs(50)
                              .minServiceSamples(20)
                              .retryAfterMs(20, 500)
                              .build()));
      for (int id : cluster.duplicateIds()) {
        cluster.injectAnomaly(id, "probability=1;delayMs=20;distribution=fixed;applies=writes");
      }
      List<CompletableFuture<WriteResult>> writes = new ArrayList<>();
      ScheduledExecutorService pacer = Executors.newSingleThreadScheduledExecutor();
      try (ZoolanderClient client =
          cluster
              .clientBuilder()
              .writeRetryDelay(Duration.ofMinutes(2))
              .requestTimeout(Duration.ofMinutes(2))
              .retryBudget(RetryBudget.builder().maxShedWriteRetries(5).build())
              .meterRegistry(clientMeters)
              .build()) {
        AtomicInteger next = new AtomicInteger();
        CompletableFuture<Void> offered = new CompletableFuture<>();
        ScheduledFuture<?> load =
            pacer.scheduleAtFixedRate(
                () -> {
                  int i = next.getAndIncrement();
                  if (i < WRITES) {
                    synchronized (writes) {
                      writes.add(client.create("/adm-" + i, utf8("w" + i)));
                    }
                  } else {
                    offered.complete(null);
                  }
                },
                0,
                WRITE_GAP_MS,
                TimeUnit.MILLISECONDS);
        offered.get(60, TimeUnit.SECONDS);
        load.cancel(false);

        List<String> acked = new ArrayList<>();
        List<String> refused = new ArrayList<>();
        for (int i = 0; i < WRITES; i++) {
          try {
            writes.get(i).join();
            acked.add("/adm-" + i);
          } catch (CompletionException e) {
            assertThat(e.getCause()).isInstanceOf(ZoolanderException.class);
            ZoolanderException z = (ZoolanderException) e.getCause();
            assertThat(z.code())
                .as("write %d: %s", i, z.getMessage())
                .isEqualTo(KeeperException.Code.THROTTLEDOP);
            assertThat(z.errorCode()).contains(ErrorCode.OVERLOADED);
            refused.add("/adm-" + i);
          }
        }
        AdmissionState state = repeater.admission().orElseThrow();
        System.out.printf(
            "admission: %d writes acknowledged, %d refused (THROTTLEDOP); repeater %s%n",
            acked.size(), refused.size(), state);
        assertThat(state.shed()).as("the repeater shed: %s", state).isPositive();
        assertThat(repeaterMeters.counter("zoolander.repeater.admission.shed").count())
            .isPositive();
        assertThat(clientMeters.counter("zoolander.client.write.shed").count()).isPositive();
        assertThat(acked).as("admitted writes").isNotEmpty();

        for (int id : cluster.duplicateIds()) {
          cluster.clearAnomaly(id);
        }
        Map<Integer, TreeDigest> digests = cluster.awaitConverged(Duration.ofSeconds(60));
        for (TreeDigest digest : digests.values()) {
          assertThat(digest.entries().keySet())
              .containsAll(acked)
              .doesNotContainAnyElementsOf(refused);
        }
        assertThat(repeater.nextSeq() - 1).isGreaterThanOrEqualTo(acked.size());
      }
      pacer.shutdownNow();
    }
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
