package io.zoolander.server.settings;

import java.util.Comparator;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The descriptor of one setting: its key, its type (how a value is parsed), its default, its
 * allowed range, its unit and a one-line doc. Immutable; built with {@link #integer(String)},
 * {@link #decimal(String)}, {@link #bool(String)}, {@link #text(String)} or {@link #of(String,
 * String, Parser)}, every argument checked by {@link Builder#build()}.
 *
 * <p>A key ending with a {@code <name>} placeholder, such as {@code duplicate.<id>}, is a
 * <em>template</em>: it stands for every key that starts with the part before the placeholder.
 *
 * @param <T> the type of a parsed value
 */
public final class Setting<T> {

  /**
   * Turns the text of a value into a value.
   *
   * @param <T> the type of a value
   */
  @FunctionalInterface
  public interface Parser<T> {
    /**
     * Parses one value.
     *
     * @param text the value as written, never null
     * @return the value, never null
     * @throws IllegalArgumentException whose message says what is wrong, without the key (for
     *     example {@code not an integer: 'x'})
     */
    T parse(String text);
  }

  private final String key;
  private final String type;
  private final Parser<T> parser;
  private final Comparator<? super T> order;
  private final T defaultValue;
  private final String defaultText;
  private final T min;
  private final T max;
  private final String unit;
  private final String doc;

  private Setting(Builder<T> b, String key) {
    this.key = key;
    this.type = b.type;
    this.parser = b.parser;
    this.order = b.order;
    this.defaultValue = b.defaultValue;
    this.defaultText =
        b.defaultText != null
            ? b.defaultText
            : b.defaultValue != null ? String.valueOf(b.defaultValue) : "(none)";
    this.min = b.min;
    this.max = b.max;
    this.unit = b.unit;
    this.doc = b.doc;
  }

  /**
   * An integer setting ({@link Long#parseLong(String)}); a problem reads {@code not an integer:
   * 'x'}.
   */
  public static Builder<Long> integer(String key) {
    return new Builder<>(
        key,
        "integer",
        text -> {
          try {
            return Long.parseLong(text);
          } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not an integer: '" + text + "'");
          }
        },
        Comparator.naturalOrder());
  }

  /**
   * A decimal setting ({@link Double#parseDouble(String)}); a problem reads {@code not a number:
   * 'x'}.
   */
  public static Builder<Double> decimal(String key) {
    return new Builder<>(
        key,
        "decimal",
        text -> {
          try {
            return Double.parseDouble(text);
          } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a number: '" + text + "'");
          }
        },
        Comparator.naturalOrder());
  }

  /**
   * A boolean setting: exactly {@code true} or {@code false}; a problem reads {@code must be true
   * or false, was 'x'}.
   */
  public static Builder<Boolean> bool(String key) {
    return new Builder<>(
        key,
        "boolean",
        text -> {
          if (text.equals("true") || text.equals("false")) {
            return Boolean.valueOf(text);
          }
          throw new IllegalArgumentException("must be true or false, was '" + text + "'");
        },
        null);
  }

  /** A text setting: any value, as written. */
  public static Builder<String> text(String key) {
    return new Builder<>(key, "text", text -> text, null);
  }

  /**
   * A setting of any type.
   *
   * @param type what a value is, in a word or two (for help and messages)
   * @param parser how a value is parsed; it throws {@link IllegalArgumentException} with the
   *     problem
   */
  public static <T> Builder<T> of(String key, String type, Parser<T> parser) {
    return new Builder<>(key, type, parser, null);
  }

  /**
   * @return the key, as written in the file (a template ends with {@code <name>})
   */
  public String key() {
    return key;
  }

  /**
   * @return what a value is: {@code integer}, {@code decimal}, {@code boolean}, {@code text} or the
   *     type given to {@link #of(String, String, Parser)}
   */
  public String type() {
    return type;
  }

  /**
   * @return the value used when the key is absent, empty if there is none (the setting is then
   *     required, or its absence means something that {@link #defaultText()} says)
   */
  public Optional<T> defaultValue() {
    return Optional.ofNullable(defaultValue);
  }

  /**
   * @return the default as the help and the documentation show it
   */
  public String defaultText() {
    return defaultText;
  }

  /**
   * @return the smallest accepted value, empty if unbounded
   */
  public Optional<T> min() {
    return Optional.ofNullable(min);
  }

  /**
   * @return the largest accepted value, empty if unbounded
   */
  public Optional<T> max() {
    return Optional.ofNullable(max);
  }

  /**
   * @return the unit of a value ({@code ms}, {@code bytes}, {@code messages}...), empty for none
   */
  public String unit() {
    return unit;
  }

  /**
   * @return what the setting means, one line
   */
  public String doc() {
    return doc;
  }

  /**
   * @return whether the key is a template such as {@code duplicate.<id>}
   */
  public boolean isTemplate() {
    return key.endsWith(">") && key.indexOf('<') > 0;
  }

  /**
   * @return whether {@code candidate} is this setting's key, or for a template whether it starts
   *     with the part before the placeholder (the rest is the value's business: the owner checks
   *     it)
   */
  public boolean matches(String candidate) {
    if (isTemplate()) {
      return candidate.startsWith(templateStem());
    }
    return key.equals(candidate);
  }

  /** The part of a template key before its placeholder. */
  String templateStem() {
    return key.substring(0, key.indexOf('<'));
  }

  /**
   * Parses a value and checks its range.
   *
   * @param text the value as written (not trimmed here)
   * @return the value
   * @throws SettingException naming this key, with the problem ({@code must be in 1..64, was 65})
   */
  public T parse(String text) {
    Objects.requireNonNull(text, "text");
    return parse(key, text);
  }

  /**
   * Parses the value of one of a template's keys (or of this key) and checks its range.
   *
   * @param actualKey the key as written, named by a failure
   * @throws SettingException naming {@code actualKey}
   */
  public T parse(String actualKey, String text) {
    T value;
    try {
      value = Objects.requireNonNull(parser.parse(text), "the parser returned null");
    } catch (IllegalArgumentException e) {
      throw SettingException.invalid(actualKey, e.getMessage());
    }
    if ((min != null && order.compare(value, min) < 0)
        || (max != null && order.compare(value, max) > 0)) {
      throw SettingException.invalid(actualKey, "must be in " + rangeText() + ", was " + value);
    }
    return value;
  }

  /**
   * The value of this key in {@code values}, parsed; the default when absent.
   *
   * @return the value, or null when absent without a default
   * @throws SettingException if the value is invalid
   */
  public T valueIn(Map<String, String> values) {
    String text = values.get(key);
    return text == null ? defaultValue : parse(text);
  }

  /**
   * If {@code values} holds this key, hands its parsed value to {@code apply} (a builder's setter);
   * a value {@code apply} refuses with an {@link IllegalArgumentException} becomes a {@link
   * SettingException} naming this key.
   *
   * @throws SettingException if the value does not parse or {@code apply} refuses it
   */
  public void applyIn(Map<String, String> values, Consumer<T> apply) {
    String text = values.get(key);
    if (text == null) {
      return;
    }
    T value = parse(text);
    try {
      apply.accept(value);
    } catch (SettingException e) {
      throw e;
    } catch (IllegalArgumentException e) {
      throw SettingException.invalid(key, e.getMessage());
    }
  }

  /**
   * Refuses the keys under {@code prefix} of a feature that {@code enabled} turns off: a file that
   * sets them while it is off has a mistake in it.
   *
   * @param feature what is off, for the message ("admission control")
   * @throws SettingException naming the first such key
   */
  public static void refuseWhileOff(
      Map<String, String> values, String prefix, Setting<Boolean> enabled, String feature) {
    if (Boolean.TRUE.equals(enabled.valueIn(values))) {
      return;
    }
    for (String k : values.keySet()) {
      if (k.startsWith(prefix) && !k.equals(enabled.key())) {
        throw SettingException.invalid(
            k, feature + " is off: set " + enabled.key() + "=true or remove this line");
      }
    }
  }

  /**
   * @return {@code min..max} (an open end shown as {@code ..}), empty for an unbounded setting
   */
  public String rangeText() {
    if (min == null && max == null) {
      return "";
    }
    return (min == null ? "" : String.valueOf(min)) + ".." + (max == null ? "" : max);
  }

  /**
   * The same setting under {@code prefix + key()}, as when a file shares keys with another under a
   * prefix ({@code zoolander.tls.enabled} in zoo.cfg, {@code tls.enabled} in the repeater's file).
   */
  public Setting<T> withPrefix(String prefix) {
    Objects.requireNonNull(prefix, "prefix");
    return new Setting<>(
        new Builder<>(prefix + key, type, parser, order).copyFrom(this), prefix + key);
  }

  @Override
  public String toString() {
    return key
        + " ("
        + type
        + (rangeText().isEmpty() ? "" : " " + rangeText())
        + (unit.isEmpty() ? "" : " " + unit)
        + ", default "
        + defaultText
        + ")";
  }

  /**
   * Builds a {@link Setting}; every argument is checked, and a problem names the key and the field.
   *
   * @param <T> the type of a value
   */
  public static final class Builder<T> {
    private final String key;
    private final String type;
    private final Parser<T> parser;
    private final Comparator<? super T> order;
    private T defaultValue;
    private String defaultText;
    private T min;
    private T max;
    private String unit = "";
    private String doc;

    private Builder(String key, String type, Parser<T> parser, Comparator<? super T> order) {
      if (key == null || key.isBlank()) {
        throw new IllegalArgumentException("key must not be blank, was '" + key + "'");
      }
      if (key.chars().anyMatch(c -> Character.isWhitespace(c) || c == '=' || c == ':')) {
        throw new IllegalArgumentException(
            "key must not contain whitespace, '=' or ':', was '" + key + "'");
      }
      if (type == null || type.isBlank()) {
        throw new IllegalArgumentException(key + ": type must not be blank");
      }
      this.key = key;
      this.type = type;
      this.parser = Objects.requireNonNull(parser, key + ": parser");
      this.order = order;
    }

    private Builder<T> copyFrom(Setting<T> s) {
      defaultValue = s.defaultValue;
      defaultText = s.defaultText;
      min = s.min;
      max = s.max;
      unit = s.unit;
      doc = s.doc;
      return this;
    }

    /** The value used when the key is absent; its text is the default shown, unless given. */
    public Builder<T> defaultValue(T value) {
      this.defaultValue = Objects.requireNonNull(value, key + ": defaultValue");
      return this;
    }

    /**
     * The default as shown in the help and the documentation, when it is not the default value's
     * text (for example {@code (the highest epoch found plus one)}); {@code (none)} when there is
     * neither.
     */
    public Builder<T> defaultText(String text) {
      if (text == null || text.isBlank()) {
        throw new IllegalArgumentException(key + ": defaultText must not be blank");
      }
      this.defaultText = text;
      return this;
    }

    /**
     * The accepted values, both ends included.
     *
     * @throws IllegalStateException for a type without an order (boolean, text, custom)
     */
    public Builder<T> range(T min, T max) {
      if (order == null) {
        throw new IllegalStateException(key + ": a " + type + " setting has no range");
      }
      Objects.requireNonNull(min, key + ": min");
      Objects.requireNonNull(max, key + ": max");
      if (order.compare(min, max) > 0) {
        throw new IllegalArgumentException(
            key + ": range min must be <= max, was " + min + ".." + max);
      }
      this.min = min;
      this.max = max;
      return this;
    }

    /** The unit of a value, such as {@code ms} or {@code bytes}; none by default. */
    public Builder<T> unit(String unit) {
      Objects.requireNonNull(unit, key + ": unit");
      if (unit.isBlank() || !unit.strip().equals(unit)) {
        throw new IllegalArgumentException(
            key + ": unit must be a word without surrounding spaces, was '" + unit + "'");
      }
      this.unit = unit;
      return this;
    }

    /** What the setting means: required, one line. */
    public Builder<T> doc(String doc) {
      if (doc == null || doc.isBlank()) {
        throw new IllegalArgumentException(key + ": doc must not be blank");
      }
      if (doc.contains("\n") || doc.contains("\r")) {
        throw new IllegalArgumentException(key + ": doc must be one line");
      }
      this.doc = doc;
      return this;
    }

    /**
     * @return the descriptor
     * @throws IllegalArgumentException if the doc is missing or the default is out of range
     */
    public Setting<T> build() {
      if (doc == null) {
        throw new IllegalArgumentException(key + ": doc is required");
      }
      if (defaultValue != null
          && ((min != null && order.compare(defaultValue, min) < 0)
              || (max != null && order.compare(defaultValue, max) > 0))) {
        throw new IllegalArgumentException(
            key + ": defaultValue " + defaultValue + " is outside the range " + min + ".." + max);
      }
      return new Setting<>(this, key);
    }
  }
}
