package io.zoolander.server.internal.repeater;

import io.zoolander.wire.Znodes;
import java.util.OptionalLong;

/** The repeater-core settings these tests share: clients on 127.0.0.1, any free port. */
final class TestCoreConfigs {
  private TestCoreConfigs() {}

  /**
   * Any free port on 127.0.0.1, a log of 1,000 messages, a 10 s start and plugin-ack timeout, one
   * client I/O thread, the default base path, 1 MiB requests.
   */
  static CoreConfig loopback() {
    return new CoreConfig(
        "127.0.0.1", 0, 1_000, 10_000, OptionalLong.empty(), 1, Znodes.defaults(), 1 << 20, 10_000);
  }
}
