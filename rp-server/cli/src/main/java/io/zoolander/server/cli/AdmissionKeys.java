package io.zoolander.server.cli;

import io.zoolander.server.repeater.AdmissionSettings;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;

/**
 * The {@code admission.*} keys of {@code zoolander repeater}'s properties file: admission control,
 * off unless {@code admission.enabled=true}. Each maps to an {@link AdmissionSettings} builder
 * method.
 */
final class AdmissionKeys {
  static final String PREFIX = "admission.";
  static final String ENABLED = "admission.enabled";
  static final String TARGET_SLA = "admission.targetSla";
  static final String TAU_MS = "admission.tauMs";
  static final String CONTROL_PERIOD_MS = "admission.controlPeriodMs";
  static final String RATE_WINDOW_MS = "admission.rateWindowMs";
  static final String SLA_WINDOW_MS = "admission.slaWindowMs";
  static final String SERVICE_WINDOW_MS = "admission.serviceWindowMs";
  static final String MIN_SERVICE_SAMPLES = "admission.minServiceSamples";
  static final String INTEGRAL_GAIN = "admission.integralGain";
  static final String MAX_STEP_FRACTION = "admission.maxStepFraction";
  static final String LIMIT_HEADROOM_FRACTION = "admission.limitHeadroomFraction";
  static final String MIN_RATE_LIMIT_PER_SEC = "admission.minRateLimitPerSec";
  static final String OPEN_AFTER_PERIODS = "admission.openAfterPeriods";
  static final String BURST_MS = "admission.burstMs";
  static final String MIN_RETRY_AFTER_MS = "admission.minRetryAfterMs";
  static final String MAX_RETRY_AFTER_MS = "admission.maxRetryAfterMs";

  private AdmissionKeys() {}

  static final List<RepeaterConfig.Setting> SETTINGS =
      List.of(
          new RepeaterConfig.Setting(
              ENABLED,
              "false",
              "true turns admission control on: WRITEs above the rate at which "
                  + "the duplicates keep the target SLA at tau are refused with ERROR OVERLOADED and a retry-after hint "
                  + "(docs/operations.md, Admission control)."),
          new RepeaterConfig.Setting(
              TARGET_SLA,
              Double.toString(AdmissionSettings.DEFAULT_TARGET_SLA),
              "Target fraction of writes first acknowledged by a duplicate within tau, in (0, 1)."),
          new RepeaterConfig.Setting(
              TAU_MS,
              Double.toString(AdmissionSettings.DEFAULT_TAU_MS),
              "The SLA's bound, in ms, from sequencing to the first duplicate's ACK."),
          new RepeaterConfig.Setting(
              CONTROL_PERIOD_MS,
              Long.toString(AdmissionSettings.DEFAULT_CONTROL_PERIOD_MS),
              "How often the admitted rate is adjusted, in ms."),
          new RepeaterConfig.Setting(
              RATE_WINDOW_MS,
              Long.toString(AdmissionSettings.DEFAULT_RATE_WINDOW_MS),
              "Window of the measured offered and admitted write rates, in ms."),
          new RepeaterConfig.Setting(
              SLA_WINDOW_MS,
              Long.toString(AdmissionSettings.DEFAULT_SLA_WINDOW_MS),
              "Window of the observed SLA, in ms."),
          new RepeaterConfig.Setting(
              SERVICE_WINDOW_MS,
              Long.toString(AdmissionSettings.DEFAULT_SERVICE_WINDOW_MS),
              "Window of each duplicate's service-time distribution fed to the model, in ms."),
          new RepeaterConfig.Setting(
              MIN_SERVICE_SAMPLES,
              Integer.toString(AdmissionSettings.DEFAULT_MIN_SERVICE_SAMPLES),
              "Service-time samples needed before the model is asked."),
          new RepeaterConfig.Setting(
              INTEGRAL_GAIN,
              Double.toString(AdmissionSettings.DEFAULT_INTEGRAL_GAIN),
              "Integral gain: per period the limit changes by gain * (observed - target SLA) of itself."),
          new RepeaterConfig.Setting(
              MAX_STEP_FRACTION,
              Double.toString(AdmissionSettings.DEFAULT_MAX_STEP_FRACTION),
              "Largest change of the limit per period, as a fraction of it."),
          new RepeaterConfig.Setting(
              LIMIT_HEADROOM_FRACTION,
              Double.toString(AdmissionSettings.DEFAULT_LIMIT_HEADROOM_FRACTION),
              "Anti-windup: the limit never exceeds the offered rate times (1 + this)."),
          new RepeaterConfig.Setting(
              MIN_RATE_LIMIT_PER_SEC,
              Double.toString(AdmissionSettings.DEFAULT_MIN_RATE_LIMIT_PER_SEC),
              "Lowest admitted rate, writes/s."),
          new RepeaterConfig.Setting(
              OPEN_AFTER_PERIODS,
              Integer.toString(AdmissionSettings.DEFAULT_OPEN_AFTER_PERIODS),
              "Periods without shedding, target met, before limiting stops."),
          new RepeaterConfig.Setting(
              BURST_MS,
              Long.toString(AdmissionSettings.DEFAULT_BURST_MS),
              "Token bucket burst, in ms of the admitted rate."),
          new RepeaterConfig.Setting(
              MIN_RETRY_AFTER_MS,
              Long.toString(AdmissionSettings.DEFAULT_MIN_RETRY_AFTER_MS),
              "Smallest retry-after hint of a shed write, in ms."),
          new RepeaterConfig.Setting(
              MAX_RETRY_AFTER_MS,
              Long.toString(AdmissionSettings.DEFAULT_MAX_RETRY_AFTER_MS),
              "Largest retry-after hint of a shed write, in ms."));

  /**
   * The admission settings, or null when admission control is off.
   *
   * @param error makes the exception for a key and its problem
   */
  static AdmissionSettings parse(
      Map<String, String> values, BiFunction<String, String, CliException> error) {
    String enabled = values.getOrDefault(ENABLED, "false");
    if (!enabled.equals("true") && !enabled.equals("false")) {
      throw error.apply(ENABLED, "must be true or false, was '" + enabled + "'");
    }
    if (enabled.equals("false")) {
      for (String key : values.keySet()) {
        if (key.startsWith(PREFIX) && !key.equals(ENABLED)) {
          throw error.apply(
              key, "admission control is off: set " + ENABLED + "=true or remove this line");
        }
      }
      return null;
    }
    AdmissionSettings.Builder b = AdmissionSettings.builder();
    String key = null;
    try {
      key = TARGET_SLA;
      if (values.containsKey(key)) {
        b.targetSla(number(values, key, error));
      }
      key = TAU_MS;
      if (values.containsKey(key)) {
        b.tauMs(number(values, key, error));
      }
      key = CONTROL_PERIOD_MS;
      if (values.containsKey(key)) {
        b.controlPeriodMs(integer(values, key, error));
      }
      key = RATE_WINDOW_MS;
      if (values.containsKey(key)) {
        b.rateWindowMs(integer(values, key, error));
      }
      key = SLA_WINDOW_MS;
      if (values.containsKey(key)) {
        b.slaWindowMs(integer(values, key, error));
      }
      key = SERVICE_WINDOW_MS;
      if (values.containsKey(key)) {
        b.serviceWindowMs(integer(values, key, error));
      }
      key = MIN_SERVICE_SAMPLES;
      if (values.containsKey(key)) {
        b.minServiceSamples((int) Math.min(Integer.MAX_VALUE, integer(values, key, error)));
      }
      key = INTEGRAL_GAIN;
      if (values.containsKey(key)) {
        b.integralGain(number(values, key, error));
      }
      key = MAX_STEP_FRACTION;
      if (values.containsKey(key)) {
        b.maxStepFraction(number(values, key, error));
      }
      key = LIMIT_HEADROOM_FRACTION;
      if (values.containsKey(key)) {
        b.limitHeadroomFraction(number(values, key, error));
      }
      key = MIN_RATE_LIMIT_PER_SEC;
      if (values.containsKey(key)) {
        b.minRateLimitPerSec(number(values, key, error));
      }
      key = OPEN_AFTER_PERIODS;
      if (values.containsKey(key)) {
        b.openAfterPeriods((int) Math.min(Integer.MAX_VALUE, integer(values, key, error)));
      }
      key = BURST_MS;
      if (values.containsKey(key)) {
        b.burstMs(integer(values, key, error));
      }
      key = MAX_RETRY_AFTER_MS;
      long min =
          values.containsKey(MIN_RETRY_AFTER_MS)
              ? integer(values, MIN_RETRY_AFTER_MS, error)
              : AdmissionSettings.DEFAULT_MIN_RETRY_AFTER_MS;
      long max =
          values.containsKey(MAX_RETRY_AFTER_MS)
              ? integer(values, MAX_RETRY_AFTER_MS, error)
              : Math.max(min, AdmissionSettings.DEFAULT_MAX_RETRY_AFTER_MS);
      b.retryAfterMs(min, max);
    } catch (IllegalArgumentException e) {
      throw error.apply(key, e.getMessage());
    }
    return b.build();
  }

  private static double number(
      Map<String, String> values, String key, BiFunction<String, String, CliException> error) {
    try {
      return Double.parseDouble(values.get(key));
    } catch (NumberFormatException e) {
      throw error.apply(key, "not a number: '" + values.get(key) + "'");
    }
  }

  private static long integer(
      Map<String, String> values, String key, BiFunction<String, String, CliException> error) {
    try {
      return Long.parseLong(values.get(key));
    } catch (NumberFormatException e) {
      throw error.apply(key, "not an integer: '" + values.get(key) + "'");
    }
  }
}
