package io.zoolander.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;
import static org.assertj.core.api.Assertions.withinPercentage;

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
  void theEnginesCapacityIsTheExactEdgeForOneDuplicate() {
    // M/M/1 (service mean 1 ms): P(T <= 6 ms) = 1 - exp(-(1 - rho) 6) >= 0.99 up to rho = 1 -
    // ln(100) / 6, i.e. 232.5 writes/s.
    Admission one = Admission.builder().engine().targetSla(0.99).tauMs(6).build();
    assertThat(one.usesEngine()).isTrue();
    double exact = (1 - Math.log(100) / 6) * 1000;
    Admission.Decision light = one.decide(SERVICE, 100);
    assertThat(light.admit()).isTrue();
    assertThat(light.expected().sla()).isCloseTo(1 - Math.exp(-0.9 * 6), within(1e-4));
    assertThat(light.maxArrivalRatePerSec()).isCloseTo(exact, withinPercentage(1.5));
    assertThat(one.decide(SERVICE, exact * 1.05).admit()).isFalse();
    // Two duplicates, every write applied by both: the first reply sustains more.
    Admission two = Admission.builder().engine().targetSla(0.99).tauMs(6).duplicates(2).build();
    assertThat(two.decide(SERVICE, 100).maxArrivalRatePerSec()).isGreaterThan(exact * 1.2);
    assertThat(two.decide(SERVICE, 100).expected().onTime()[0])
        .isCloseTo(light.expected().sla(), within(1e-4));
  }

  @Test
  void theEngineAdmitsAHeavyTailTheThesisBaselineSheds() {
    // 0.5% anomalies of ~100 ms: at 5% utilisation the mean M/G/1 wait is 1.8 ms of tau's 3 ms.
    LatencyDistribution writes = TradeOff.thesisLikeWrites();
    Admission.Builder b = Admission.builder().targetSla(0.95).tauMs(3);
    Admission.Decision thesis = b.build().decide(writes, 33);
    Admission.Decision engine = b.engine().build().decide(writes, 33);
    assertThat(thesis.admit()).isFalse();
    assertThat(thesis.expected().sla()).isLessThan(0.8);
    assertThat(engine.admit()).isTrue();
    assertThat(engine.expected().sla()).isGreaterThan(0.97);
    assertThat(engine.maxArrivalRatePerSec()).isGreaterThan(33);
    assertThat(b.model(ThesisModel.create()).build().usesEngine()).isFalse();
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
    assertThatThrownBy(() -> Admission.builder().engine(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("template");
    assertThatThrownBy(() -> admission().decide(SERVICE, Double.NaN))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("recentArrivalRatePerSec");
  }
}
