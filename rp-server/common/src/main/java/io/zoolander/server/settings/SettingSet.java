package io.zoolander.server.settings;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeSet;

/**
 * The settings of one component: an ordered list of {@link Setting}s whose keys share the
 * component's prefix ({@code zoolander.} in a server's zoo.cfg, none in the repeater's file). It
 * tells a known key from an unknown one, suggests the nearest known key for a misspelled one, and
 * parses a whole map of entries into {@link SettingValues}.
 *
 * <p>Keys that do not start with the prefix belong to someone else (ZooKeeper's own entries in
 * zoo.cfg) and are ignored.
 */
public final class SettingSet {

  private final String prefix;
  private final List<Setting<?>> settings;

  private SettingSet(String prefix, List<Setting<?>> settings) {
    this.prefix = prefix;
    this.settings = settings;
  }

  /**
   * @param prefix the prefix every key of the component has, empty for none
   * @param settings the settings, in the order the help lists them
   * @throws IllegalArgumentException if a key lacks the prefix or two settings have the same key
   */
  public static SettingSet of(String prefix, List<? extends Setting<?>> settings) {
    Objects.requireNonNull(prefix, "prefix");
    Objects.requireNonNull(settings, "settings");
    List<Setting<?>> copy = new ArrayList<>();
    for (Setting<?> s : settings) {
      Objects.requireNonNull(s, "settings must not contain null");
      if (!s.key().startsWith(prefix)) {
        throw new IllegalArgumentException(
            "settings: " + s.key() + " does not start with the prefix '" + prefix + "'");
      }
      if (copy.stream().anyMatch(c -> c.key().equals(s.key()))) {
        throw new IllegalArgumentException("settings: " + s.key() + " is listed twice");
      }
      copy.add(s);
    }
    return new SettingSet(prefix, List.copyOf(copy));
  }

  /**
   * These settings followed by those of {@code more} whose key is not here yet (the first
   * descriptor of a key wins).
   *
   * @throws IllegalArgumentException if a key of {@code more} lacks this set's prefix
   */
  public SettingSet and(List<? extends Setting<?>> more) {
    List<Setting<?>> all = new ArrayList<>(settings);
    for (Setting<?> s : more) {
      if (all.stream().noneMatch(c -> c.key().equals(s.key()))) {
        all.add(s);
      }
    }
    return of(prefix, all);
  }

  /**
   * @return the prefix of every key, empty for none
   */
  public String prefix() {
    return prefix;
  }

  /**
   * @return every setting, in help order
   */
  public List<Setting<?>> settings() {
    return settings;
  }

  /**
   * @return the setting of a key (a template's setting for one of its keys), empty if unknown
   */
  public Optional<Setting<?>> find(String key) {
    Objects.requireNonNull(key, "key");
    return settings.stream().filter(s -> s.matches(key)).findFirst();
  }

  /**
   * @return whether a setting has this key
   */
  public boolean isKnown(String key) {
    return find(key).isPresent();
  }

  /**
   * The keys among {@code keys} that start with the prefix but that no setting has, each with the
   * nearest known key if one is near.
   *
   * @return in alphabetical order, empty if all are known
   */
  public Map<String, Optional<String>> unknownKeys(Collection<String> keys) {
    Map<String, Optional<String>> unknown = new LinkedHashMap<>();
    for (String key : new TreeSet<>(keys)) {
      if (key.startsWith(prefix) && !isKnown(key)) {
        unknown.put(key, nearestKey(key));
      }
    }
    return unknown;
  }

  /**
   * @throws SettingException naming every unknown key among {@code keys}, with suggestions
   */
  public void checkKeys(Collection<String> keys) {
    Map<String, Optional<String>> unknown = unknownKeys(keys);
    if (!unknown.isEmpty()) {
      throw SettingException.unknown(unknown);
    }
  }

  /**
   * The known key nearest to {@code key}, by edit distance (ignoring case, a swap of two neighbours
   * counting as one edit), if it is near enough to be a likely misspelling: at most 2 edits, or a
   * quarter of the key's length for a long key. A template is compared as if the misspelled key's
   * last part were its placeholder ({@code duplcate.1} is near {@code duplicate.1}).
   */
  public Optional<String> nearestKey(String key) {
    Objects.requireNonNull(key, "key");
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (Setting<?> s : settings) {
      String candidate = s.key();
      if (s.isTemplate()) {
        int dot = key.lastIndexOf('.');
        candidate = s.templateStem() + (dot < 0 ? "" : key.substring(dot + 1));
      }
      int d = distance(key.toLowerCase(Locale.ROOT), candidate.toLowerCase(Locale.ROOT));
      if (d < bestDistance) {
        best = candidate;
        bestDistance = d;
      }
    }
    if (best == null || best.equals(key) || bestDistance > Math.max(2, key.length() / 4)) {
      return Optional.empty();
    }
    return Optional.of(best);
  }

  /**
   * Checks every key and parses every value present (trimmed), in help order.
   *
   * @param values the entries of a file; keys without the prefix are ignored
   * @return the values, with the defaults of absent keys
   * @throws SettingException for the unknown keys, else for the first invalid value
   */
  public SettingValues parse(Map<String, String> values) {
    Objects.requireNonNull(values, "values");
    checkKeys(values.keySet());
    Map<String, Object> parsed = new LinkedHashMap<>();
    for (Setting<?> s : settings) {
      for (Map.Entry<String, String> e : values.entrySet()) {
        if (s.matches(e.getKey()) && e.getValue() != null) {
          parsed.put(e.getKey(), s.parse(e.getKey(), e.getValue().strip()));
        }
      }
    }
    return new SettingValues(this, parsed);
  }

  /** As {@link #parse(Map)}, from {@link Properties} (a file read with {@link Properties#load}). */
  public SettingValues parse(Properties properties) {
    Objects.requireNonNull(properties, "properties");
    Map<String, String> values = new LinkedHashMap<>();
    for (String key : properties.stringPropertyNames()) {
      values.put(key, properties.getProperty(key));
    }
    return parse(values);
  }

  /** Optimal string alignment distance: insertions, deletions, substitutions, adjacent swaps. */
  static int distance(String a, String b) {
    int[][] d = new int[a.length() + 1][b.length() + 1];
    for (int i = 0; i <= a.length(); i++) {
      d[i][0] = i;
    }
    for (int j = 0; j <= b.length(); j++) {
      d[0][j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
        if (i > 1
            && j > 1
            && a.charAt(i - 1) == b.charAt(j - 2)
            && a.charAt(i - 2) == b.charAt(j - 1)) {
          d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
        }
      }
    }
    return d[a.length()][b.length()];
  }

  @Override
  public String toString() {
    return "SettingSet[prefix=" + prefix + ", " + settings.size() + " settings]";
  }
}
