package io.zoolander.client.internal.balance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zoolander.client.balance.BalancerSettings;
import io.zoolander.client.balance.PartitionLoad;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The balancer's settings and loads refuse what makes no sense, naming it. */
class BalancerSettingsTest {
  @Test
  void settingsValidateEachFieldAndTheMarksTogether() {
    BalancerSettings.Builder b = BalancerSettings.builder();
    assertThatThrownBy(() -> b.highMark(0)).hasMessageContaining("highMark");
    assertThatThrownBy(() -> b.highMark(1.1)).hasMessageContaining("highMark");
    assertThatThrownBy(() -> b.lowMark(Double.NaN)).hasMessageContaining("lowMark");
    assertThatThrownBy(() -> b.periodMs(0)).hasMessageContaining("periodMs");
    assertThatThrownBy(() -> b.cooldownMs(-1)).hasMessageContaining("cooldownMs");
    assertThatThrownBy(() -> b.cooldownMs(BalancerSettings.MAX_MS + 1))
        .hasMessageContaining("cooldownMs");
    assertThatThrownBy(() -> b.consolidatePeriods(0)).hasMessageContaining("consolidatePeriods");
    assertThatThrownBy(() -> b.maxServingPartitions(0))
        .hasMessageContaining("maxServingPartitions");
    assertThatThrownBy(() -> BalancerSettings.builder().highMark(0.4).lowMark(0.5).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("lowMark (0.5) must be below highMark (0.4)");
    BalancerSettings d = BalancerSettings.defaults();
    assertThat(d.highMark()).isEqualTo(BalancerSettings.DEFAULT_HIGH_MARK);
    assertThat(d.lowMark()).isEqualTo(BalancerSettings.DEFAULT_LOW_MARK);
    assertThat(d.cooldownMs()).isEqualTo(BalancerSettings.DEFAULT_COOLDOWN_MS);
  }

  @Test
  void aLoadRefusesNegativeOrInfiniteNumbersAndIsACopy() {
    assertThatThrownBy(() -> new PartitionLoad(Map.of("a", -1.0), 10))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'a'");
    assertThatThrownBy(() -> new PartitionLoad(Map.of("a", Double.NaN), 10))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new PartitionLoad(Map.of(), Double.POSITIVE_INFINITY))
        .hasMessageContaining("capacityPerSec");
    assertThatThrownBy(() -> new PartitionLoad(null, 1)).isInstanceOf(NullPointerException.class);
    Map<String, Double> rates = new HashMap<>(Map.of("a", 2.0, "b", 3.5));
    PartitionLoad load = new PartitionLoad(rates, Double.NaN);
    rates.put("c", 100.0);
    assertThat(load.ratePerSec()).isEqualTo(5.5);
    assertThat(load.capacityKnown()).isFalse();
  }
}
