package io.zoolander.server.settings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SettingApplyTest {
  private static final Setting<Long> PERIOD =
      Setting.integer("x.periodMs").doc("A period.").build();
  private static final Setting<Boolean> ENABLED =
      Setting.bool("x.enabled").defaultValue(false).doc("On or off.").build();

  @Test
  void appliesAPresentValueAndNamesTheKeyOfOneTheSetterRefuses() {
    List<Long> applied = new ArrayList<>();
    PERIOD.applyIn(Map.of(), applied::add);
    assertThat(applied).isEmpty();
    PERIOD.applyIn(Map.of("x.periodMs", "250"), applied::add);
    assertThat(applied).containsExactly(250L);
    assertThatThrownBy(
            () ->
                PERIOD.applyIn(
                    Map.of("x.periodMs", "0"),
                    v -> {
                      throw new IllegalArgumentException("periodMs must be positive, was " + v);
                    }))
        .isInstanceOf(SettingException.class)
        .hasMessage("x.periodMs: periodMs must be positive, was 0");
    assertThatThrownBy(() -> PERIOD.applyIn(Map.of("x.periodMs", "soon"), applied::add))
        .isInstanceOf(SettingException.class)
        .hasMessageStartingWith("x.periodMs");
  }

  @Test
  void refusesAFeaturesKeysWhileItIsOff() {
    Setting.refuseWhileOff(Map.of("y.other", "1"), "x.", ENABLED, "the feature");
    Setting.refuseWhileOff(
        Map.of("x.enabled", "true", "x.periodMs", "5"), "x.", ENABLED, "the feature");
    assertThatThrownBy(
            () -> Setting.refuseWhileOff(Map.of("x.periodMs", "5"), "x.", ENABLED, "the feature"))
        .isInstanceOf(SettingException.class)
        .hasMessage("x.periodMs: the feature is off: set x.enabled=true or remove this line");
  }
}
