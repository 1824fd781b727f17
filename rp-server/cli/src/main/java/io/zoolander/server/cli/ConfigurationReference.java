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
}
