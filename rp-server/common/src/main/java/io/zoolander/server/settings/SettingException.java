package io.zoolander.server.settings;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * A setting that is invalid or unknown. The message names the key: {@code clientPort: must be in
 * 0..65535, was 70000}, or for unknown keys {@code unknown key clientport (did you mean
 * clientPort?)}. {@link #key()}, {@link #problem()} and {@link #unknownKeys()} give the parts, for
 * a caller that says where the key was written (a file and a line).
 */
public final class SettingException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  private final String key;
  private final String problem;
  private final transient Map<String, Optional<String>> unknown;

  private SettingException(
      String message, String key, String problem, Map<String, Optional<String>> unknown) {
    super(message);
    this.key = key;
    this.problem = problem;
    this.unknown = unknown;
  }

  /**
   * An invalid value.
   *
   * @param key the key as written
   * @param problem what is wrong, without the key
   */
  public static SettingException invalid(String key, String problem) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(problem, "problem");
    return new SettingException(key + ": " + problem, key, problem, Map.of());
  }

  /**
   * Keys that no setting has.
   *
   * @param unknown every unknown key, in the order to report them, each with the nearest known key
   *     if one is near
   */
  public static SettingException unknown(Map<String, Optional<String>> unknown) {
    if (unknown == null || unknown.isEmpty()) {
      throw new IllegalArgumentException("unknown must name at least one key");
    }
    Map<String, Optional<String>> copy = Collections.unmodifiableMap(new LinkedHashMap<>(unknown));
    String first = copy.keySet().iterator().next();
    String list =
        copy.entrySet().stream()
            .map(e -> e.getKey() + e.getValue().map(s -> " (did you mean " + s + "?)").orElse(""))
            .collect(Collectors.joining(", "));
    String problem = copy.size() == 1 ? "unknown key" : "unknown keys";
    return new SettingException(problem + " " + list, first, problem, copy);
  }

  /**
   * @return the key at fault (the first one, for unknown keys)
   */
  public String key() {
    return key;
  }

  /**
   * @return what is wrong, without the key: {@code must be in 0..65535, was 70000}, {@code unknown
   *     key}
   */
  public String problem() {
    return problem;
  }

  /**
   * @return every unknown key with the nearest known key, if one is near; empty for an invalid
   *     value
   */
  public Map<String, Optional<String>> unknownKeys() {
    return unknown == null ? Map.of() : unknown;
  }

  /**
   * @return the nearest known key of the first unknown key, if one is near
   */
  public Optional<String> suggestion() {
    return unknownKeys().getOrDefault(key, Optional.empty());
  }
}
