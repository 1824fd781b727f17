package io.zoolander.server.settings;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/** The validated values of a {@link SettingSet}, from {@link SettingSet#parse(Map)}. */
public final class SettingValues {
  private final SettingSet set;
  private final Map<String, Object> values;

  SettingValues(SettingSet set, Map<String, Object> values) {
    this.set = set;
    this.values = Collections.unmodifiableMap(new LinkedHashMap<>(values));
  }

  /**
   * @return the value of a setting: as given, else its default, else null
   * @throws IllegalArgumentException if the setting is not one of the set's, or is a template
   */
  @SuppressWarnings("unchecked")
  public <T> T get(Setting<T> setting) {
    check(setting);
    if (setting.isTemplate()) {
      throw new IllegalArgumentException(setting.key() + " is a template: use matching()");
    }
    Object value = values.get(setting.key());
    return value != null ? (T) value : setting.defaultValue().orElse(null);
  }

  /**
   * @return whether the key of a setting was given
   */
  public boolean isSet(Setting<?> setting) {
    check(setting);
    return values.keySet().stream().anyMatch(setting::matches);
  }

  /**
   * @return the values given for a template's keys (or the setting's own key), by key, in help
   *     order
   */
  @SuppressWarnings("unchecked")
  public <T> Map<String, T> matching(Setting<T> setting) {
    check(setting);
    Map<String, T> result = new LinkedHashMap<>();
    values.forEach(
        (k, v) -> {
          if (setting.matches(k)) {
            result.put(k, (T) v);
          }
        });
    return result;
  }

  private void check(Setting<?> setting) {
    Objects.requireNonNull(setting, "setting");
    if (!set.settings().contains(setting)) {
      throw new IllegalArgumentException(setting.key() + " is not a setting of this set");
    }
  }

  @Override
  public String toString() {
    return values.toString();
  }
}
