package io.zoolander.server.cli;

import io.zoolander.server.repeater.RepeaterKeys;
import io.zoolander.server.settings.Setting;
import java.util.List;

/**
 * Every key of the two files the operator's commands read, as the descriptors of the components
 * that own them ({@link io.zoolander.server.settings.Setting}), which {@code zoolander server
 * --help} and {@code zoolander repeater --help} print. The documentation check compares {@code
 * docs/operations.md} against them.
 */
public final class ConfigurationReference {

  /**
   * One accepted key.
   *
   * @param file {@code zoo.cfg} or {@code repeater.properties}
   * @param key the key
   * @param defaultValue its default, or null when it has none
   * @param meaning one line of documentation
   */
  public record Key(String file, String key, String defaultValue, String meaning) {}

  private ConfigurationReference() {}

  /**
   * The descriptors of a server's {@code zoo.cfg} {@code zoolander.*} keys: the plugin's, the
   * launcher's and the security keys.
   */
  public static List<Setting<?>> serverSettings() {
    return ServerCommand.ZOOLANDER_SETTINGS;
  }

  /** The descriptors of the repeater's {@code repeater.properties} keys. */
  public static List<Setting<?>> repeaterSettings() {
    return RepeaterKeys.ALL.settings();
  }

  /** The {@code zoolander.*} keys of a server's {@code zoo.cfg}, security keys included. */
  public static List<Key> serverKeys() {
    return serverSettings().stream()
        .map(s -> new Key("zoo.cfg", s.key(), s.defaultText(), s.doc()))
        .toList();
  }

  /** The keys of the repeater's {@code repeater.properties}. */
  public static List<Key> repeaterKeys() {
    return repeaterSettings().stream()
        .map(s -> new Key("repeater.properties", s.key(), s.defaultText(), s.doc()))
        .toList();
  }
}
