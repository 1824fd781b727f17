package io.zoolander.server.settings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/** Descriptors: building them, parsing values against them, and telling unknown keys. */
class SettingSetTest {

  private static final Setting<Long> PORT =
      Setting.integer("zoolander.plugin.port")
          .defaultValue(0L)
          .range(0L, 65_535L)
          .doc("Port the plugin binds; 0 picks a free one.")
          .build();

  private static final Setting<Long> SESSION_TIMEOUT_MS =
      Setting.integer("zoolander.plugin.sessionTimeoutMs")
          .defaultValue(6_000L)
          .range(1L, 3_600_000L)
          .unit("ms")
          .doc("Session timeout of the plugin's client.")
          .build();

  private static final Setting<Boolean> ENABLED =
      Setting.bool("zoolander.tls.enabled").defaultValue(false).doc("TLS on.").build();

  private static final Setting<Double> SLA =
      Setting.decimal("zoolander.targetSla").defaultValue(0.95).doc("Target SLA.").build();

  private static final Setting<String> DUPLICATE =
      Setting.text("zoolander.duplicate.<id>")
          .defaultText("(required)")
          .doc("A duplicate's connect string.")
          .build();

  private static final SettingSet SET =
      SettingSet.of("zoolander.", List.of(PORT, SESSION_TIMEOUT_MS, ENABLED, SLA, DUPLICATE));

  @Test
  void aDescriptorSaysEverythingAboutItsKey() {
    assertThat(SESSION_TIMEOUT_MS.key()).isEqualTo("zoolander.plugin.sessionTimeoutMs");
    assertThat(SESSION_TIMEOUT_MS.type()).isEqualTo("integer");
    assertThat(SESSION_TIMEOUT_MS.defaultValue()).contains(6_000L);
    assertThat(SESSION_TIMEOUT_MS.defaultText()).isEqualTo("6000");
    assertThat(SESSION_TIMEOUT_MS.min()).contains(1L);
    assertThat(SESSION_TIMEOUT_MS.max()).contains(3_600_000L);
    assertThat(SESSION_TIMEOUT_MS.rangeText()).isEqualTo("1..3600000");
    assertThat(SESSION_TIMEOUT_MS.unit()).isEqualTo("ms");
    assertThat(SESSION_TIMEOUT_MS.doc()).isEqualTo("Session timeout of the plugin's client.");
    assertThat(SESSION_TIMEOUT_MS)
        .hasToString("zoolander.plugin.sessionTimeoutMs (integer 1..3600000 ms, default 6000)");
    assertThat(DUPLICATE.isTemplate()).isTrue();
    assertThat(DUPLICATE.defaultValue()).isEmpty();
    assertThat(DUPLICATE.defaultText()).isEqualTo("(required)");
    assertThat(DUPLICATE.matches("zoolander.duplicate.3")).isTrue();
    assertThat(PORT.matches("zoolander.plugin.port")).isTrue();
    assertThat(PORT.matches("zoolander.plugin.ports")).isFalse();
    Setting<Long> repeaterPort = PORT.withPrefix("x.");
    assertThat(repeaterPort.key()).isEqualTo("x.zoolander.plugin.port");
    assertThat(repeaterPort.defaultText()).isEqualTo("0");
    assertThat(repeaterPort.rangeText()).isEqualTo("0..65535");
    assertThat(repeaterPort.doc()).isEqualTo(PORT.doc());
  }

  @Test
  void everyValueIsParsedAndCheckedWithAMessageNamingTheKey() {
    assertThat(PORT.parse("7001")).isEqualTo(7001L);
    assertThat(ENABLED.parse("true")).isTrue();
    assertThat(SLA.parse("0.99")).isEqualTo(0.99);
    assertThatThrownBy(() -> PORT.parse("x"))
        .isInstanceOf(SettingException.class)
        .hasMessage("zoolander.plugin.port: not an integer: 'x'");
    assertThatThrownBy(() -> PORT.parse("70000"))
        .isInstanceOf(SettingException.class)
        .hasMessage("zoolander.plugin.port: must be in 0..65535, was 70000")
        .satisfies(
            e -> {
              SettingException s = (SettingException) e;
              assertThat(s.key()).isEqualTo("zoolander.plugin.port");
              assertThat(s.problem()).isEqualTo("must be in 0..65535, was 70000");
              assertThat(s.unknownKeys()).isEmpty();
            });
    assertThatThrownBy(() -> ENABLED.parse("yes"))
        .hasMessage("zoolander.tls.enabled: must be true or false, was 'yes'");
    assertThatThrownBy(() -> SLA.parse("most"))
        .hasMessage("zoolander.targetSla: not a number: 'most'");
    assertThat(PORT.valueIn(Map.of())).isZero();
    assertThat(PORT.valueIn(Map.of("zoolander.plugin.port", "9"))).isEqualTo(9L);
  }

  @Test
  void aWholeMapIsParsedWithDefaultsForAbsentKeys() {
    Map<String, String> file = new LinkedHashMap<>();
    file.put("zoolander.plugin.port", " 7001 ");
    file.put("zoolander.tls.enabled", "true");
    file.put("zoolander.duplicate.1", "zk-a:2181");
    file.put("zoolander.duplicate.2", "zk-b:2181");
    file.put("tickTime", "2000"); // not the component's: ignored
    SettingValues values = SET.parse(file);
    assertThat(values.get(PORT)).isEqualTo(7001L);
    assertThat(values.get(SESSION_TIMEOUT_MS)).isEqualTo(6_000L);
    assertThat(values.isSet(SESSION_TIMEOUT_MS)).isFalse();
    assertThat(values.get(ENABLED)).isTrue();
    assertThat(values.matching(DUPLICATE))
        .containsExactly(
            Map.entry("zoolander.duplicate.1", "zk-a:2181"),
            Map.entry("zoolander.duplicate.2", "zk-b:2181"));
    Properties properties = new Properties();
    properties.setProperty("zoolander.plugin.sessionTimeoutMs", "0");
    assertThatThrownBy(() -> SET.parse(properties))
        .isInstanceOf(SettingException.class)
        .hasMessage("zoolander.plugin.sessionTimeoutMs: must be in 1..3600000, was 0");
    Setting<Long> other = Setting.integer("zoolander.other").doc("Not in the set.").build();
    assertThatThrownBy(() -> values.get(other))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("zoolander.other is not a setting of this set");
  }

  @Test
  void aMisspelledKeyIsRefusedWithTheNearestKnownKey() {
    assertThat(SET.nearestKey("zoolander.plugin.prot")).contains("zoolander.plugin.port");
    assertThat(SET.nearestKey("zoolander.plugin.sessiontimeoutms"))
        .contains("zoolander.plugin.sessionTimeoutMs");
    assertThat(SET.nearestKey("zoolander.duplcate.4")).contains("zoolander.duplicate.4");
    assertThat(SET.nearestKey("zoolander.somethingElseEntirely")).isEmpty();
    assertThat(SET.isKnown("zoolander.plugin.port")).isTrue();
    assertThat(SET.isKnown("zoolander.duplicate.7")).isTrue();

    assertThatThrownBy(() -> SET.parse(Map.of("zoolander.plugin.prot", "7001", "tickTime", "1")))
        .isInstanceOf(SettingException.class)
        .hasMessage("unknown key zoolander.plugin.prot (did you mean zoolander.plugin.port?)")
        .satisfies(
            e -> {
              SettingException s = (SettingException) e;
              assertThat(s.key()).isEqualTo("zoolander.plugin.prot");
              assertThat(s.suggestion()).contains("zoolander.plugin.port");
            });
    Map<String, Optional<String>> unknown =
        SET.unknownKeys(List.of("zoolander.tls.enable", "zoolander.zzz", "zoolander.plugin.port"));
    assertThat(unknown)
        .containsExactly(
            Map.entry("zoolander.tls.enable", Optional.of("zoolander.tls.enabled")),
            Map.entry("zoolander.zzz", Optional.empty()));
    assertThatThrownBy(() -> SET.checkKeys(unknown.keySet()))
        .hasMessage(
            "unknown keys zoolander.tls.enable (did you mean zoolander.tls.enabled?), zoolander.zzz");
    assertThat(SettingSet.distance("port", "prot")).isEqualTo(1);
    assertThat(SettingSet.distance("kitten", "sitting")).isEqualTo(3);
  }

  @Test
  void everyArgumentIsCheckedAndNamed() {
    assertThatThrownBy(() -> Setting.integer(" "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("key must not be blank");
    assertThatThrownBy(() -> Setting.integer("a key"))
        .hasMessageContaining("key must not contain whitespace");
    assertThatThrownBy(() -> Setting.integer("k").build()).hasMessage("k: doc is required");
    assertThatThrownBy(() -> Setting.integer("k").doc("two\nlines"))
        .hasMessage("k: doc must be one line");
    assertThatThrownBy(() -> Setting.integer("k").range(5L, 1L))
        .hasMessage("k: range min must be <= max, was 5..1");
    assertThatThrownBy(() -> Setting.integer("k").range(1L, 5L).defaultValue(9L).doc("d").build())
        .hasMessage("k: defaultValue 9 is outside the range 1..5");
    assertThatThrownBy(() -> Setting.text("k").range("a", "b"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("k: a text setting has no range");
    assertThatThrownBy(() -> Setting.integer("k").unit(" ms"))
        .hasMessageContaining("k: unit must be a word");
    assertThatThrownBy(() -> Setting.of("k", "thing", null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("k: parser");
    assertThatThrownBy(
            () -> SettingSet.of("zoolander.", List.of(Setting.text("x").doc("d").build())))
        .hasMessage("settings: x does not start with the prefix 'zoolander.'");
    assertThatThrownBy(() -> SettingSet.of("zoolander.", List.of(PORT, PORT)))
        .hasMessage("settings: zoolander.plugin.port is listed twice");
    assertThat(SET.and(List.of(PORT)).settings()).hasSameSizeAs(SET.settings());
  }
}
