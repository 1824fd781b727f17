package io.zoolander.server.repeater;

import io.zoolander.server.settings.Setting;
import io.zoolander.server.settings.SettingException;
import java.util.List;
import java.util.Map;

/**
 * The {@code admission.*} keys of the repeater's properties file as {@link Setting} descriptors:
 * admission control, off unless {@code admission.enabled=true}. Each maps to an {@link
 * AdmissionSettings} builder method, which checks the value's range when the settings are built.
 */
public final class AdmissionKeys {
  private AdmissionKeys() {}

  /** The prefix of every admission key. */
  public static final String PREFIX = "admission.";

  public static final Setting<Boolean> ENABLED =
      Setting.bool("admission.enabled")
          .defaultValue(false)
          .doc(
              "true turns admission control on: WRITEs above the rate at which "
                  + "the duplicates keep the target SLA at tau are refused with ERROR OVERLOADED and a retry-after hint "
                  + "(docs/operations.md, Admission control).")
          .build();

  public static final Setting<Double> TARGET_SLA =
      Setting.decimal("admission.targetSla")
          .defaultValue(AdmissionSettings.DEFAULT_TARGET_SLA)
          .doc("Target fraction of writes first acknowledged by a duplicate within tau, in (0, 1).")
          .build();

  public static final Setting<Double> TAU_MS =
      Setting.decimal("admission.tauMs")
          .defaultValue(AdmissionSettings.DEFAULT_TAU_MS)
          .unit("ms")
          .doc("The SLA's bound, in ms, from sequencing to the first duplicate's ACK.")
          .build();

  public static final Setting<Long> CONTROL_PERIOD_MS =
      Setting.integer("admission.controlPeriodMs")
          .defaultValue(AdmissionSettings.DEFAULT_CONTROL_PERIOD_MS)
          .unit("ms")
          .doc("How often the admitted rate is adjusted, in ms.")
          .build();

  public static final Setting<Long> RATE_WINDOW_MS =
      Setting.integer("admission.rateWindowMs")
          .defaultValue(AdmissionSettings.DEFAULT_RATE_WINDOW_MS)
          .unit("ms")
          .doc("Window of the measured offered and admitted write rates, in ms.")
          .build();

  public static final Setting<Long> SLA_WINDOW_MS =
      Setting.integer("admission.slaWindowMs")
          .defaultValue(AdmissionSettings.DEFAULT_SLA_WINDOW_MS)
          .unit("ms")
          .doc("Window of the observed SLA, in ms.")
          .build();

  public static final Setting<Long> SERVICE_WINDOW_MS =
      Setting.integer("admission.serviceWindowMs")
          .defaultValue(AdmissionSettings.DEFAULT_SERVICE_WINDOW_MS)
          .unit("ms")
          .doc("Window of each duplicate's service-time distribution fed to the model, in ms.")
          .build();

  public static final Setting<Long> MIN_SERVICE_SAMPLES =
      Setting.integer("admission.minServiceSamples")
          .defaultValue((long) AdmissionSettings.DEFAULT_MIN_SERVICE_SAMPLES)
          .unit("samples")
          .doc("Service-time samples needed before the model is asked.")
          .build();

  public static final Setting<Double> INTEGRAL_GAIN =
      Setting.decimal("admission.integralGain")
          .defaultValue(AdmissionSettings.DEFAULT_INTEGRAL_GAIN)
          .doc(
              "Integral gain: per period the limit changes by gain * (observed - target SLA) of itself.")
          .build();

  public static final Setting<Double> MAX_STEP_FRACTION =
      Setting.decimal("admission.maxStepFraction")
          .defaultValue(AdmissionSettings.DEFAULT_MAX_STEP_FRACTION)
          .doc("Largest change of the limit per period, as a fraction of it.")
          .build();

  public static final Setting<Double> LIMIT_HEADROOM_FRACTION =
      Setting.decimal("admission.limitHeadroomFraction")
          .defaultValue(AdmissionSettings.DEFAULT_LIMIT_HEADROOM_FRACTION)
          .doc("Anti-windup: the limit never exceeds the offered rate times (1 + this).")
          .build();

  public static final Setting<Double> MIN_RATE_LIMIT_PER_SEC =
      Setting.decimal("admission.minRateLimitPerSec")
          .defaultValue(AdmissionSettings.DEFAULT_MIN_RATE_LIMIT_PER_SEC)
          .unit("writes/s")
          .doc("Lowest admitted rate, writes/s.")
          .build();

  public static final Setting<Long> OPEN_AFTER_PERIODS =
      Setting.integer("admission.openAfterPeriods")
          .defaultValue((long) AdmissionSettings.DEFAULT_OPEN_AFTER_PERIODS)
          .unit("periods")
          .doc("Periods without shedding, target met, before limiting stops.")
          .build();

  public static final Setting<Long> BURST_MS =
      Setting.integer("admission.burstMs")
          .defaultValue(AdmissionSettings.DEFAULT_BURST_MS)
          .unit("ms")
          .doc("Token bucket burst, in ms of the admitted rate.")
          .build();

  public static final Setting<Long> MIN_RETRY_AFTER_MS =
      Setting.integer("admission.minRetryAfterMs")
          .defaultValue(AdmissionSettings.DEFAULT_MIN_RETRY_AFTER_MS)
          .unit("ms")
          .doc("Smallest retry-after hint of a shed write, in ms.")
          .build();

  public static final Setting<Long> MAX_RETRY_AFTER_MS =
      Setting.integer("admission.maxRetryAfterMs")
          .defaultValue(AdmissionSettings.DEFAULT_MAX_RETRY_AFTER_MS)
          .unit("ms")
          .doc("Largest retry-after hint of a shed write, in ms.")
          .build();

  /** Every admission key, in the order the help lists them. */
  public static final List<Setting<?>> ALL =
      List.of(
          ENABLED,
          TARGET_SLA,
          TAU_MS,
          CONTROL_PERIOD_MS,
          RATE_WINDOW_MS,
          SLA_WINDOW_MS,
          SERVICE_WINDOW_MS,
          MIN_SERVICE_SAMPLES,
          INTEGRAL_GAIN,
          MAX_STEP_FRACTION,
          LIMIT_HEADROOM_FRACTION,
          MIN_RATE_LIMIT_PER_SEC,
          OPEN_AFTER_PERIODS,
          BURST_MS,
          MIN_RETRY_AFTER_MS,
          MAX_RETRY_AFTER_MS);

  /**
   * The admission settings of a file's entries, or null when admission control is off.
   *
   * @param values the file's entries (keys without the prefix are ignored), values trimmed
   * @throws SettingException naming the first invalid key: a value that does not parse or that
   *     {@link AdmissionSettings.Builder} refuses, or an admission key while admission is off
   */
  public static AdmissionSettings parse(Map<String, String> values) {
    Setting.refuseWhileOff(values, PREFIX, ENABLED, "admission control");
    if (!ENABLED.valueIn(values)) {
      return null;
    }
    AdmissionSettings.Builder b = AdmissionSettings.builder();
    TARGET_SLA.applyIn(values, b::targetSla);
    TAU_MS.applyIn(values, b::tauMs);
    CONTROL_PERIOD_MS.applyIn(values, b::controlPeriodMs);
    RATE_WINDOW_MS.applyIn(values, b::rateWindowMs);
    SLA_WINDOW_MS.applyIn(values, b::slaWindowMs);
    SERVICE_WINDOW_MS.applyIn(values, b::serviceWindowMs);
    MIN_SERVICE_SAMPLES.applyIn(
        values, v -> b.minServiceSamples((int) Math.min(Integer.MAX_VALUE, v)));
    INTEGRAL_GAIN.applyIn(values, b::integralGain);
    MAX_STEP_FRACTION.applyIn(values, b::maxStepFraction);
    LIMIT_HEADROOM_FRACTION.applyIn(values, b::limitHeadroomFraction);
    MIN_RATE_LIMIT_PER_SEC.applyIn(values, b::minRateLimitPerSec);
    OPEN_AFTER_PERIODS.applyIn(
        values, v -> b.openAfterPeriods((int) Math.min(Integer.MAX_VALUE, v)));
    BURST_MS.applyIn(values, b::burstMs);
    long min = MIN_RETRY_AFTER_MS.valueIn(values);
    long max =
        values.containsKey(MAX_RETRY_AFTER_MS.key())
            ? MAX_RETRY_AFTER_MS.valueIn(values)
            : Math.max(min, AdmissionSettings.DEFAULT_MAX_RETRY_AFTER_MS);
    try {
      b.retryAfterMs(min, max);
    } catch (SettingException e) {
      throw e;
    } catch (IllegalArgumentException e) {
      throw SettingException.invalid(MAX_RETRY_AFTER_MS.key(), e.getMessage());
    }
    return b.build();
  }
}
