package io.zoolander.server.repeater;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.zoolander.server.jmx.MeterNames;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The load controller's settings are validated where they are given, naming the field, and a
 * repeater refuses a controller it could not run.
 */
class ControllerSettingsTest {

  @Test
  void defaults() {
    ControllerSettings s = ControllerSettings.builder().build();
    assertThat(s.targetSla()).isEqualTo(ControllerSettings.DEFAULT_TARGET_SLA);
    assertThat(s.tauMs()).isEqualTo(RepeaterSettings.DEFAULT_SLA_TAU_MS);
    assertThat(s.periodMs()).isEqualTo(ControllerSettings.DEFAULT_PERIOD_MS);
    assertThat(s.cooldownMs()).isEqualTo(ControllerSettings.DEFAULT_COOLDOWN_MS);
    assertThat(s.retireMargin()).isEqualTo(ControllerSettings.DEFAULT_RETIRE_MARGIN);
    assertThat(s.retirePeriods()).isEqualTo(ControllerSettings.DEFAULT_RETIRE_PERIODS);
    assertThat(s.minDuplicates()).isEqualTo(1);
    assertThat(s.maxDuplicates()).isEmpty();
    assertThat(s.spares()).isEmpty();
    assertThat(s.minSamples()).isEqualTo(ControllerSettings.DEFAULT_MIN_SAMPLES);
  }

  @Test
  void rejectsInvalidSettingsNamingThem() {
    ControllerSettings.Builder b = ControllerSettings.builder();
    assertThatThrownBy(() -> b.targetSla(1)).hasMessageContaining("targetSla");
    assertThatThrownBy(() -> b.targetSla(0)).hasMessageContaining("targetSla");
    assertThatThrownBy(() -> b.targetSla(Double.NaN)).hasMessageContaining("targetSla");
    assertThatThrownBy(() -> b.tauMs(0)).hasMessageContaining("tauMs");
    assertThatThrownBy(() -> b.tauMs(Double.POSITIVE_INFINITY)).hasMessageContaining("tauMs");
    assertThatThrownBy(() -> b.periodMs(0)).hasMessageContaining("periodMs");
    assertThatThrownBy(() -> b.periodMs(ControllerSettings.MAX_MS + 1))
        .hasMessageContaining("periodMs");
    assertThatThrownBy(() -> b.cooldownMs(-1)).hasMessageContaining("cooldownMs");
    assertThatThrownBy(() -> b.retireMargin(-0.1)).hasMessageContaining("retireMargin");
    assertThatThrownBy(() -> b.retireMargin(1)).hasMessageContaining("retireMargin");
    assertThatThrownBy(() -> b.retirePeriods(0)).hasMessageContaining("retirePeriods");
    assertThatThrownBy(() -> b.minDuplicates(0)).hasMessageContaining("minDuplicates");
    assertThatThrownBy(() -> b.maxDuplicates(0)).hasMessageContaining("maxDuplicates");
    assertThatThrownBy(() -> b.minSamples(0)).hasMessageContaining("minSamples");
    assertThatThrownBy(() -> b.spare(0, "127.0.0.1:2181"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("spare 0")
        .hasMessageContaining("duplicateId");
    assertThatThrownBy(() -> b.spare(2, "a b")).hasMessageContaining("connectString");
    assertThatThrownBy(() -> b.spare(2, null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("connectString");
    b.spare(2, "127.0.0.1:2281");
    assertThatThrownBy(() -> b.spare(2, "127.0.0.1:2282")).hasMessageContaining("already");
    assertThatThrownBy(() -> b.minDuplicates(3).maxDuplicates(2).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxDuplicates")
        .hasMessageContaining("minDuplicates");
    assertThat(b.cooldownMs(0).maxDuplicates(3).build().spares())
        .containsExactly(Map.entry(2, "127.0.0.1:2281"));
  }

  @Test
  void theRepeaterRefusesAControllerItCouldNotRun() {
    ControllerSettings controller = ControllerSettings.builder().spare(2, "127.0.0.1:2281").build();
    assertThatThrownBy(
            () ->
                Repeater.builder()
                    .duplicate(1, "127.0.0.1:2181")
                    .controller(controller)
                    .admission(AdmissionSettings.defaults())
                    .build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("admission control");
    assertThatThrownBy(
            () ->
                Repeater.builder()
                    .duplicate(1, "127.0.0.1:2181")
                    .controller(ControllerSettings.builder().spare(1, "127.0.0.1:9999").build())
                    .build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("spare 1")
        .hasMessageContaining("connect string");
    assertThatThrownBy(
            () ->
                Repeater.builder()
                    .duplicate(1, "127.0.0.1:2181")
                    .controller(ControllerSettings.builder().minDuplicates(2).build())
                    .build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("minDuplicates");
    assertThatThrownBy(() -> Repeater.builder().controller(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("controller");
  }

  @Test
  void offByDefaultAndOnWithItsMeters() {
    try (Repeater off = Repeater.builder().duplicate(1, "127.0.0.1:2181").build()) {
      assertThat(off.controllerDecision()).isEmpty();
    }
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    try (Repeater on =
        Repeater.builder()
            .duplicate(1, "127.0.0.1:2181")
            .meterRegistry(registry)
            .controller(ControllerSettings.builder().spare(2, "127.0.0.1:2281").build())
            .build()) {
      assertThat(on.controllerDecision()).as("before its first period").isEmpty();
      assertThat(registry.get(MeterNames.REPEATER_CONTROLLER_SPARES_FREE).gauge().value())
          .isEqualTo(1);
    }
    assertThat(registry.getMeters())
        .extracting(m -> m.getId().getName())
        .noneMatch(name -> name.startsWith(MeterNames.REPEATER_CONTROLLER_PREFIX));
  }
}
