package io.zoolander.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.zoolander.client.ZoolanderClient;
import io.zoolander.server.jmx.MeterNames;
import io.zoolander.server.repeater.ControllerDecision.Reason;
import io.zoolander.server.repeater.ControllerSettings;
import io.zoolander.server.repeater.Repeater;
import io.zoolander.server.testing.EmbeddedCluster;
import io.zoolander.server.testing.ServerMode;
import io.zoolander.server.testing.ZooKeeperEnsemble;
import io.zoolander.testsupport.Await;
import io.zoolander.wire.Membership;
import io.zoolander.wire.Membership.Member;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 21, "a controller that follows the load", with real ZooKeeper: one duplicate serves and one
 * provisioned spare waits. An anomaly on the duplicate's writes makes the model's prediction miss
 * the target, and the controller adds the spare (state transfer, the membership record); once the
 * anomaly is cleared and its slow samples have aged out, one duplicate is predicted to meet the
 * target with the margin, and the controller retires the spare. Twice, the second time adding the
 * spare it retired: one addition and one retirement per anomaly, no flapping in between.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class LoadControllerIT {
  private static final Duration WAIT = Duration.ofSeconds(90);

  /** Writes per second of the load: low enough that the slowed duplicate is never overloaded. */
  private static final int WRITES_PER_SECOND = 25;

  /** Bound on the load whatever happens. */
  private static final int MAX_WRITES = 5_000;

  private EmbeddedCluster cluster;
  private ZooKeeperEnsemble spare;
  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  private ZoolanderClient client;
  private ScheduledExecutorService pacer;

  @AfterEach
  void stop() {
    if (pacer != null) {
      pacer.shutdownNow();
    }
    if (client != null) {
      client.close();
    }
    if (cluster != null) {
      cluster.close();
    }
    if (spare != null) {
      spare.close();
    }
  }

  @Test
  void addsTheSpareWhenThePredictionMissesTheTargetAndRetiresItWhenItIsComfortable()
      throws Exception {
    cluster =
        EmbeddedCluster.builder()
            .duplicates(1)
            .serverMode(ServerMode.IN_PROCESS)
            .startRepeater(false)
            .start();
    spare =
        ZooKeeperEnsemble.builder()
            .servers(1)
            .serverMode(ServerMode.IN_PROCESS)
            .zoolanderDuplicate(2, cluster.znodes().basePath())
            .start();
    ControllerSettings settings =
        ControllerSettings.builder()
            .targetSla(0.9)
            .tauMs(30)
            .periodMs(200)
            .cooldownMs(1_000)
            .retireMargin(0.05)
            .retirePeriods(3)
            .maxDuplicates(2)
            .minSamples(20)
            .spare(2, spare.connectString())
            .build();
    Repeater repeater =
        cluster.startRepeater(
            b ->
                b.controller(settings)
                    .meterRegistry(meters)
                    // Slow samples must age out soon once the anomaly is gone.
                    .predictorSampleMaxAge(Duration.ofSeconds(3)));
    client = cluster.clientBuilder().requestTimeout(WAIT).build();

    // An open-loop load, paced, a bounded number of writes in flight and in all.
    AtomicInteger sent = new AtomicInteger();
    AtomicLong failed = new AtomicLong();
    Semaphore inFlight = new Semaphore(50);
    pacer = Executors.newSingleThreadScheduledExecutor();
    pacer.scheduleAtFixedRate(
        () -> {
          if (sent.get() >= MAX_WRITES || !inFlight.tryAcquire()) {
            return;
          }
          int i = sent.getAndIncrement();
          client
              .create("/load-" + i, new byte[] {(byte) i})
              .whenComplete(
                  (r, e) -> {
                    inFlight.release();
                    if (e != null || !r.succeeded()) {
                      failed.incrementAndGet();
                    }
                  });
        },
        0,
        1_000 / WRITES_PER_SECOND,
        TimeUnit.MILLISECONDS);

    // Healthy: one duplicate meets the target; the controller holds at its minimum.
    Await.await(
        WAIT,
        "the controller at its minimum, with samples",
        () -> repeater.controllerDecision().map(d -> d.reason() == Reason.AT_MINIMUM).orElse(false),
        () -> String.valueOf(repeater.controllerDecision()));
    assertThat(repeater.membership().members()).extracting(Member::duplicateId).containsExactly(1);

    // Twice: a spare retired goes back to the pool and is added again when needed.
    for (int cycle = 1; cycle <= 2; cycle++) {
      // A third of duplicate 1's writes stall 60 ms: at tau 30 ms one duplicate misses 0.9.
      cluster.injectAnomaly(1, "probability=0.33;delayMs=60;distribution=fixed;applies=writes");
      Await.await(
          WAIT,
          "the spare added and active (cycle " + cycle + ")",
          () -> {
            Membership m = repeater.membership();
            return m.activeCount() == 2 && m.member(2).isPresent();
          },
          () -> repeater.membership() + ", " + repeater.controllerDecision());
      assertThat(decisions("add", Reason.BELOW_TARGET)).isEqualTo(cycle);
      assertThat(repeater.duplicate(2).fenced()).isFalse();
      long sequenced = repeater.nextSeq() - 1;
      Await.await(
          WAIT,
          "the spare applied what was sequenced before it was active (cycle " + cycle + ")",
          () -> repeater.duplicate(2).ackedSeq() >= sequenced,
          () -> "acked " + repeater.duplicate(2).ackedSeq() + " of " + sequenced);

      // Cleared: once the slow samples age out, one duplicate is comfortable again.
      cluster.clearAnomaly(1);
      Await.await(
          WAIT,
          "the spare retired (cycle " + cycle + ")",
          () -> repeater.membership().member(2).isEmpty(),
          () -> repeater.membership() + ", " + repeater.controllerDecision());
      assertThat(repeater.membership().members())
          .extracting(Member::duplicateId)
          .containsExactly(1);
      assertThat(decisions("retire", Reason.FEWER_SUFFICE)).isEqualTo(cycle);
      assertThat(decisions("add", Reason.BELOW_TARGET)).as("no flapping").isEqualTo(cycle);
    }
    assertThat(
            meters
                .get(MeterNames.REPEATER_CONTROLLER_CHANGES_FAILED)
                .tag(MeterNames.TAG_ACTION, "add")
                .counter()
                .count())
        .isZero();
    pacer.shutdownNow();
    assertThat(sent.get()).isLessThan(MAX_WRITES);
    assertThat(failed.get()).as("writes that failed").isZero();
  }

  private double decisions(String action, Reason reason) {
    return meters
        .get(MeterNames.REPEATER_CONTROLLER_DECISIONS)
        .tag(MeterNames.TAG_ACTION, action)
        .tag(MeterNames.TAG_REASON, reason.tag())
        .counter()
        .count();
  }
}
