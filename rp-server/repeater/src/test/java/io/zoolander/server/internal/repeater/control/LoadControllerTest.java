package io.zoolander.server.internal.repeater.control;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.zoolander.model.SlaEstimate;
import io.zoolander.server.internal.repeater.RepeaterMeters;
import io.zoolander.server.jmx.MeterNames;
import io.zoolander.server.repeater.ControllerDecision.Reason;
import io.zoolander.server.repeater.ControllerSettings;
import io.zoolander.server.repeater.FanOutDecision;
import io.zoolander.wire.Membership;
import io.zoolander.wire.Membership.Member;
import io.zoolander.wire.Membership.State;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The controller's period on a fake deployment: what it asks, the change it makes through the
 * membership API, what it counts and publishes, and how it takes a failed change.
 */
class LoadControllerTest {
  private final AtomicLong clock = new AtomicLong();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final RepeaterMeters meters = new RepeaterMeters(registry, 5);
  private final FakeDeployment deployment = new FakeDeployment();

  /** A deployment whose set, rate and prediction the test sets, and whose changes it completes. */
  private static class FakeDeployment implements LoadController.Deployment {
    volatile Membership membership =
        new Membership(1, List.of(new Member(1, State.ACTIVE, "127.0.0.1:2181")));
    volatile double sla = Double.NaN; // for any N; NaN: no samples
    final List<String> calls = new ArrayList<>();
    CompletableFuture<Membership> change;
    RuntimeException failure;

    @Override
    public Membership membership() {
      if (failure != null) {
        throw failure;
      }
      return membership;
    }

    @Override
    public double arrivalRatePerSec() {
      return 100;
    }

    @Override
    public int predictorSamples() {
      return Double.isNaN(sla) ? 0 : 1_000;
    }

    @Override
    public SlaEstimate predict(int duplicates, double arrivalRatePerSec, double tauMs) {
      calls.add("predict " + duplicates + " at " + arrivalRatePerSec + "/s, tau " + tauMs);
      return Double.isNaN(sla)
          ? null
          : new SlaEstimate(tauMs, sla, sla, sla, 0.95, 0, 0, SlaEstimate.Method.EXACT, 0.1);
    }

    @Override
    public SlaEstimate predictWithout(
        int withoutId, int duplicates, double arrivalRatePerSec, double tauMs) {
      calls.add("predict " + duplicates + " without " + withoutId);
      return Double.isNaN(sla)
          ? null
          : new SlaEstimate(tauMs, sla, sla, sla, 0.95, 0, 0, SlaEstimate.Method.EXACT, 0.1);
    }

    @Override
    public CompletableFuture<Membership> setReadFanOut(int fanOut) {
      calls.add("fan-out " + fanOut);
      membership = membership.withReadFanOut(fanOut);
      return CompletableFuture.completedFuture(membership);
    }

    @Override
    public CompletableFuture<Membership> addDuplicate(int duplicateId, String connectString) {
      calls.add("add " + duplicateId + " " + connectString);
      change = new CompletableFuture<>();
      return change;
    }

    @Override
    public CompletableFuture<Membership> retireDuplicate(int duplicateId) {
      calls.add("retire " + duplicateId);
      change = new CompletableFuture<>();
      return change;
    }
  }

  private LoadController controller() {
    return new LoadController(
        ControllerSettings.builder()
            .tauMs(7)
            .cooldownMs(1_000)
            .retirePeriods(2)
            .spare(2, "127.0.0.1:2281")
            .build(),
        2,
        deployment,
        clock::get,
        meters);
  }

  private double decisions(String action, Reason reason) {
    return registry
        .get(MeterNames.REPEATER_CONTROLLER_DECISIONS)
        .tag(MeterNames.TAG_ACTION, action)
        .tag(MeterNames.TAG_REASON, reason.tag())
        .counter()
        .count();
  }

  private double gauge(String name) {
    return registry.get(name).gauge().value();
  }

  @Test
  void addsASpareThroughTheMembershipApiAndMetersEveryDecision() {
    LoadController c = controller();
    assertThat(gauge(MeterNames.REPEATER_CONTROLLER_SLA_CURRENT)).isNaN();
    assertThat(gauge(MeterNames.REPEATER_CONTROLLER_SPARES_FREE)).isEqualTo(1);

    c.period();
    assertThat(c.last().reason()).isEqualTo(Reason.NO_SAMPLES);
    assertThat(decisions("hold", Reason.NO_SAMPLES)).isEqualTo(1);
    assertThat(deployment.calls).as("no engine run without samples").isEmpty();

    deployment.sla = 0.9;
    deployment.calls.clear();
    c.period();
    assertThat(c.last().reason()).isEqualTo(Reason.BELOW_TARGET);
    assertThat(deployment.calls)
        .containsExactly(
            "predict 1 at 100.0/s, tau 7.0",
            "predict 2 at 100.0/s, tau 7.0",
            "add 2 127.0.0.1:2281");
    assertThat(decisions("add", Reason.BELOW_TARGET)).isEqualTo(1);
    assertThat(gauge(MeterNames.REPEATER_CONTROLLER_DUPLICATES)).isEqualTo(1);
    assertThat(gauge(MeterNames.REPEATER_CONTROLLER_SLA_CURRENT)).isEqualTo(0.9);
    assertThat(gauge(MeterNames.REPEATER_CONTROLLER_SLA_MORE)).isEqualTo(0.9);
    assertThat(gauge(MeterNames.REPEATER_CONTROLLER_SLA_FEWER)).isNaN();

    c.period();
    assertThat(c.last().reason()).isEqualTo(Reason.CHANGE_IN_PROGRESS);

    Membership added =
        new Membership(
            2,
            List.of(
                new Member(1, State.ACTIVE, "127.0.0.1:2181"),
                new Member(2, State.ACTIVE, "127.0.0.1:2281")));
    deployment.membership = added;
    deployment.change.complete(added);
    c.period();
    assertThat(c.last().reason()).isEqualTo(Reason.BELOW_TARGET_AT_BUDGET);
    assertThat(gauge(MeterNames.REPEATER_CONTROLLER_DUPLICATES)).isEqualTo(2);
    assertThat(gauge(MeterNames.REPEATER_CONTROLLER_SPARES_FREE)).isZero();
  }

  @Test
  void advisesAReadFanOutThroughTheRecordAndMetersIt() {
    LoadController c = controller();
    // Two configured duplicates outside the pool: the set holds, only the fan-out moves.
    deployment.membership =
        new Membership(
            2,
            List.of(
                new Member(1, State.ACTIVE, "127.0.0.1:2181"),
                new Member(3, State.ACTIVE, "127.0.0.1:2381")));
    deployment.sla = 0.999; // for any N: one per read meets the target with the margin
    c.period();
    assertThat(c.lastFanOut().reason()).isEqualTo(FanOutDecision.Reason.READS_MISS);
    assertThat(deployment.calls).contains("fan-out 1");
    assertThat(deployment.calls)
        .as("each question asked of the model once a period")
        .filteredOn(call -> call.equals("predict 1 at 100.0/s, tau 7.0"))
        .hasSize(1);
    assertThat(deployment.membership.readFanOut()).isEqualTo(1);
    assertThat(gauge(MeterNames.REPEATER_CONTROLLER_FAN_OUT)).isEqualTo(1);
    assertThat(
            registry
                .get(MeterNames.REPEATER_CONTROLLER_FAN_OUT_DECISIONS)
                .tag(MeterNames.TAG_ACTION, "raise")
                .tag(MeterNames.TAG_REASON, "reads_miss")
                .counter()
                .count())
        .isEqualTo(1);
    c.period();
    assertThat(c.lastFanOut().reason()).isEqualTo(FanOutDecision.Reason.AT_ONE);

    // The duplicates slow down: reads ask both at once, before any spare could be added.
    deployment.sla = 0.9;
    deployment.calls.clear();
    c.period();
    assertThat(c.lastFanOut().reason()).isEqualTo(FanOutDecision.Reason.READS_MISS);
    assertThat(c.lastFanOut().fanOut()).isEqualTo(2);
    assertThat(deployment.calls).contains("fan-out 2");
    c.period();
    assertThat(c.lastFanOut().reason()).isEqualTo(FanOutDecision.Reason.READS_ASK_ALL);
  }

  @Test
  void aFailedChangeIsCountedAndCooledDown() {
    LoadController c = controller();
    deployment.sla = 0.5;
    c.period();
    deployment.change.completeExceptionally(new IllegalStateException("transfer failed"));
    assertThat(
            registry
                .get(MeterNames.REPEATER_CONTROLLER_CHANGES_FAILED)
                .tag(MeterNames.TAG_ACTION, "add")
                .counter()
                .count())
        .isEqualTo(1);
    c.period();
    assertThat(c.last().reason()).isEqualTo(Reason.COOLDOWN);
    clock.addAndGet(1_000_000_000L);
    c.period();
    assertThat(c.last().reason()).isEqualTo(Reason.BELOW_TARGET);
    assertThat(deployment.calls).filteredOn(call -> call.startsWith("add")).hasSize(2);
  }

  @Test
  void aChangeRefusedAtOnceIsAFailedChange() {
    FakeDeployment refusing =
        new FakeDeployment() {
          @Override
          public CompletableFuture<Membership> addDuplicate(int id, String connectString) {
            throw new IllegalStateException("the repeater is closing");
          }
        };
    refusing.sla = 0.5;
    LoadController c =
        new LoadController(
            ControllerSettings.builder().spare(2, "127.0.0.1:2281").build(),
            2,
            refusing,
            clock::get,
            meters);
    c.period();
    assertThat(c.last().reason()).isEqualTo(Reason.BELOW_TARGET);
    c.period();
    assertThat(c.last().reason()).as("the refusal ended the change").isEqualTo(Reason.COOLDOWN);
  }

  @Test
  void aPeriodThatCannotObserveDecidesNothing() {
    LoadController c = controller();
    deployment.failure = new IllegalStateException("closing");
    c.period();
    assertThat(c.last()).isNull();
    deployment.failure = null;
    c.period();
    assertThat(c.last()).isNotNull();
  }

  @Test
  void itsMetersGoWithTheRepeaters() {
    controller();
    assertThat(registry.getMeters())
        .extracting(m -> m.getId().getName())
        .contains(
            MeterNames.REPEATER_CONTROLLER_DECISIONS,
            MeterNames.REPEATER_CONTROLLER_CHANGES_FAILED,
            MeterNames.REPEATER_CONTROLLER_DUPLICATES,
            MeterNames.REPEATER_CONTROLLER_SPARES_FREE,
            MeterNames.REPEATER_CONTROLLER_SLA_CURRENT,
            MeterNames.REPEATER_CONTROLLER_SLA_FEWER,
            MeterNames.REPEATER_CONTROLLER_SLA_MORE,
            MeterNames.REPEATER_CONTROLLER_FAN_OUT_DECISIONS,
            MeterNames.REPEATER_CONTROLLER_FAN_OUT);
    meters.close();
    assertThat(registry.getMeters())
        .extracting(m -> m.getId().getName())
        .noneMatch(name -> name.startsWith(MeterNames.REPEATER_CONTROLLER_PREFIX));
  }
}
