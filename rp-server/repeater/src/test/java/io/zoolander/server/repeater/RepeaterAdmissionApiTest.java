package io.zoolander.server.repeater;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

/**
 * The admission API of the public repeater: off by default, a view and a run-time target when on,
 * meters.
 */
class RepeaterAdmissionApiTest {

  @Test
  void offByDefault() {
    try (Repeater repeater = Repeater.builder().duplicate(1, "127.0.0.1:2181").build()) {
      assertThat(repeater.admission()).isEmpty();
      assertThatThrownBy(() -> repeater.admissionTarget(0.9, 10))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("admission control is off");
    }
  }

  @Test
  void onItShowsItsStateTakesANewTargetAndRegistersItsMeters() {
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    try (Repeater repeater =
        Repeater.builder()
            .duplicate(1, "127.0.0.1:2181")
            .meterRegistry(meters)
            .admission(AdmissionSettings.builder().targetSla(0.99).tauMs(20).build())
            .build()) {
      AdmissionState state = repeater.admission().orElseThrow();
      assertThat(state.targetSla()).isEqualTo(0.99);
      assertThat(state.tauMs()).isEqualTo(20);
      assertThat(state.limiting()).isFalse();
      assertThat(state.rateLimitPerSec()).isInfinite();
      assertThat(state.shed()).isZero();
      repeater.admissionTarget(0.9, 40);
      assertThatThrownBy(() -> repeater.admissionTarget(0.9, 0))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("tauMs");
      assertThat(meters.get("zoolander.repeater.admission.shed").counter().count()).isZero();
      assertThat(meters.get("zoolander.repeater.admission.rate.limit").gauge().value())
          .isInfinite();
    }
  }

  @Test
  void builderRejectsNulls() {
    assertThatThrownBy(() -> Repeater.builder().admission(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("admission");
    assertThatThrownBy(() -> Repeater.builder().meterRegistry(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("meterRegistry");
  }
}
