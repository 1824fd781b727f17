package io.zoolander.server.repeater;

import io.zoolander.server.settings.Setting;
import io.zoolander.server.settings.SettingException;
import java.util.List;
import java.util.Map;

/**
 * The {@code controller.*} keys of the repeater's properties file as {@link Setting} descriptors:
 * the controller that follows the load, off unless {@code controller.enabled=true}. Each maps to a
 * {@link ControllerSettings} builder method, which checks the value when the settings are built.
 */
public final class ControllerKeys {
  private ControllerKeys() {}

  /** The prefix of every controller key. */
  public static final String PREFIX = "controller.";

  /** The prefix of {@link #SPARE}'s keys. */
  public static final String SPARE_PREFIX = PREFIX + "spare.";

  public static final Setting<Boolean> ENABLED =
      Setting.bool("controller.enabled")
          .defaultValue(false)
          .doc(
              "true turns on the controller that follows the load: it adds a spare duplicate when the model"
                  + " predicts the target SLA is missed and retires one it added when one fewer would do"
                  + " (docs/operations.md, A controller that follows the load). Not with admission.enabled.")
          .build();

  public static final Setting<Double> TARGET_SLA =
      Setting.decimal("controller.targetSla")
          .defaultValue(ControllerSettings.DEFAULT_TARGET_SLA)
          .doc("Target fraction of writes the model predicts done within tau, in (0, 1).")
          .build();

  public static final Setting<Double> TAU_MS =
      Setting.decimal("controller.tauMs")
          .defaultValue(ControllerSettings.DEFAULT_TAU_MS)
          .unit("ms")
          .doc("The SLA's bound, in ms.")
          .build();

  public static final Setting<Long> PERIOD_MS =
      Setting.integer("controller.periodMs")
          .defaultValue(ControllerSettings.DEFAULT_PERIOD_MS)
          .unit("ms")
          .doc("How often the controller decides, in ms.")
          .build();

  public static final Setting<Long> COOLDOWN_MS =
      Setting.integer("controller.cooldownMs")
          .defaultValue(ControllerSettings.DEFAULT_COOLDOWN_MS)
          .unit("ms")
          .doc("How long after a change ends (done or failed) no other starts, in ms.")
          .build();

  public static final Setting<Double> RETIRE_MARGIN =
      Setting.decimal("controller.retireMargin")
          .defaultValue(ControllerSettings.DEFAULT_RETIRE_MARGIN)
          .doc(
              "A duplicate is retired only while one fewer is predicted at or above the target plus this, in [0, 1).")
          .build();

  public static final Setting<Long> RETIRE_PERIODS =
      Setting.integer("controller.retirePeriods")
          .defaultValue((long) ControllerSettings.DEFAULT_RETIRE_PERIODS)
          .unit("periods")
          .doc("Consecutive periods one fewer must be predicted to suffice before one is retired.")
          .build();

  public static final Setting<Long> MIN_DUPLICATES =
      Setting.integer("controller.minDuplicates")
          .defaultValue((long) ControllerSettings.DEFAULT_MIN_DUPLICATES)
          .unit("duplicates")
          .doc("Fewest duplicates the controller leaves serving.")
          .build();

  public static final Setting<Long> MAX_DUPLICATES =
      Setting.integer("controller.maxDuplicates")
          .defaultText("(the configured duplicates plus the spares)")
          .unit("duplicates")
          .doc("Most duplicates the controller lets serve: the node budget, in duplicates.")
          .build();

  public static final Setting<Long> MIN_SAMPLES =
      Setting.integer("controller.minSamples")
          .defaultValue((long) ControllerSettings.DEFAULT_MIN_SAMPLES)
          .unit("samples")
          .doc("ACK latencies the predictor must hold before the controller decides.")
          .build();

  /** {@code controller.spare.<id>}: one spare's connect string, a line per spare. */
  public static final Setting<String> SPARE =
      Setting.text(SPARE_PREFIX + "<id>")
          .defaultText("(none)")
          .doc(
              "ZooKeeper connect string of spare duplicate <id>: a provisioned ensemble whose servers run the"
                  + " plugin with zoolander.duplicateId=<id>, which the controller may add (and retire again)."
                  + " Spares are added in file order. A configured duplicate.<id> may be listed too (same connect"
                  + " string): the controller may then retire it.")
          .build();

  /** Every controller key, in the order the help lists them. */
  public static final List<Setting<?>> ALL =
      List.of(
          ENABLED,
          TARGET_SLA,
          TAU_MS,
          PERIOD_MS,
          COOLDOWN_MS,
          RETIRE_MARGIN,
          RETIRE_PERIODS,
          MIN_DUPLICATES,
          MAX_DUPLICATES,
          MIN_SAMPLES,
          SPARE);

  /**
   * The controller settings of a file's entries, or null when the controller is off.
   *
   * @param values the file's entries in file order (keys without the prefix are ignored), values
   *     trimmed
   * @throws SettingException naming the first invalid key: a value that does not parse or that
   *     {@link ControllerSettings.Builder} refuses, or a controller key while the controller is off
   */
  public static ControllerSettings parse(Map<String, String> values) {
    Setting.refuseWhileOff(values, PREFIX, ENABLED, "the controller");
    if (!ENABLED.valueIn(values)) {
      return null;
    }
    ControllerSettings.Builder b = ControllerSettings.builder();
    TARGET_SLA.applyIn(values, b::targetSla);
    TAU_MS.applyIn(values, b::tauMs);
    PERIOD_MS.applyIn(values, b::periodMs);
    COOLDOWN_MS.applyIn(values, b::cooldownMs);
    RETIRE_MARGIN.applyIn(values, b::retireMargin);
    RETIRE_PERIODS.applyIn(values, v -> b.retirePeriods(intValue(v)));
    MIN_DUPLICATES.applyIn(values, v -> b.minDuplicates(intValue(v)));
    MAX_DUPLICATES.applyIn(values, v -> b.maxDuplicates(intValue(v)));
    MIN_SAMPLES.applyIn(values, v -> b.minSamples(intValue(v)));
    for (Map.Entry<String, String> e : values.entrySet()) {
      if (SPARE.matches(e.getKey())) {
        try {
          b.spare(spareId(e.getKey()), e.getValue());
        } catch (SettingException x) {
          throw x;
        } catch (IllegalArgumentException x) {
          throw SettingException.invalid(e.getKey(), x.getMessage());
        }
      }
    }
    try {
      return b.build();
    } catch (IllegalArgumentException e) {
      // What the settings refuse together (a budget below the minimum) is named by its larger end.
      throw SettingException.invalid(
          values.containsKey(MAX_DUPLICATES.key()) ? MAX_DUPLICATES.key() : MIN_DUPLICATES.key(),
          e.getMessage());
    }
  }

  /** Clamps a parsed count to an int; the builder's range check then names it. */
  private static int intValue(long value) {
    return (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, value));
  }

  private static int spareId(String key) {
    String id = key.substring(SPARE_PREFIX.length());
    try {
      return Integer.parseInt(id);
    } catch (NumberFormatException e) {
      throw SettingException.invalid(
          key,
          "the duplicate id '"
              + id
              + "' is not an integer (write "
              + SPARE_PREFIX
              + "<id>=<connect string>, <id> as the ensemble's zoolander.duplicateId)");
    }
  }
}
