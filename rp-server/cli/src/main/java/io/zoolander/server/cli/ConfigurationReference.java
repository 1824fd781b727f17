package io.zoolander.server.cli;

import java.util.List;

/**
 * Every key of the two files the operator's commands read, with its default and meaning, as {@code
 * zoolander server --help} and {@code zoolander repeater --help} print them. The documentation
 * check compares {@code docs/operations.md} against this list.
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

  /** The {@code zoolander.*} keys of a server's {@code zoo.cfg}, security keys included. */
  public static List<Key> serverKeys() {
    return ServerCommand.ZOOLANDER_SETTINGS.stream()
        .map(e -> new Key("zoo.cfg", e.key(), e.defaultValue(), e.meaning()))
        .toList();
  }

  /** The keys of the repeater's {@code repeater.properties}. */
  public static List<Key> repeaterKeys() {
    return RepeaterConfig.SETTINGS.stream()
        .map(s -> new Key("repeater.properties", s.key(), s.defaultValue(), s.meaning()))
        .toList();
  }
}
