package io.zoolander.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class AdmissionTest {
  private static final LatencyDistribution SERVICE = LatencyDistributions.exponential(1);

  private static Admission admission() {
    return Admission.builder().targetSla(0.99).tauMs(6).duplicates(2).build();
  }

  @Test
  void admitsBelowCapacityAndShedsAbove() {
    Admission.Decision light = admission().decide(SERVICE, 50);
    assertThat(light.admit()).isTrue();
    assertThat(light.expected().sla()).isGreaterThanOrEqualTo(0.99);
    double capacity = light.maxArrivalRatePerSec();
    assertThat(capacity).isGreaterThan(50).isLessThan(1000);
    assertThat(light.headroomPerSec(50)).isEqualTo(capacity - 50);

    Admission.Decision heavy = admission().decide(SERVICE, capacity * 1.05);
    assertThat(heavy.admit()).isFalse();
    assertThat(heavy.expected().sla()).isLessThan(0.99);
    assertThat(heavy.headroomPerSec(capacity * 1.05)).isNegative();
  }

  @Test
  void slowerLiveServiceShrinksCapacity() {
    double fast = admission().decide(SERVICE, 10).maxArrivalRatePerSec();
    double slow =
        admission().decide(LatencyDistributions.exponential(1.5), 10).maxArrivalRatePerSec();
    assertThat(slow).isLessThan(fast);
  }

  @Test
  void overloadIsUnstableNotNaN() {
    Admission.Decision decision = admission().decide(SERVICE, 2000);
    assertThat(decision.admit()).isFalse();
    assertThat(decision.expected().status()).isEqualTo(SlaPrediction.Status.UNSTABLE);
    assertThat(decision.expected().sla()).isZero();
  }

  @Test
  void badInputNamesTheParameter() {
    assertThatThrownBy(() -> Admission.builder().targetSla(1.2))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("targetSla");
    assertThatThrownBy(() -> Admission.builder().duplicates(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("duplicates");
    assertThatThrownBy(() -> Admission.builder().tauMs(1).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("targetSla");
    assertThatThrownBy(() -> admission().decide(null, 1))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("liveServiceTime");
    assertThatThrownBy(() -> admission().decide(SERVICE, Double.NaN))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("recentArrivalRatePerSec");
  }
}
