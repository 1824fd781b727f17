package io.zoolander.server.internal.repeater;

import io.netty.channel.Channel;
import io.zoolander.wire.Message;
import io.zoolander.wire.WirePipeline;

/** Small channel helpers shared by the client and plugin sides. */
final class Channels {
  private Channels() {}

  /** Writes {@code error}, then closes the connection without destroying the ERROR in flight. */
  static void errorAndClose(Channel channel, Message.Error error) {
    WirePipeline.errorAndClose(channel, error);
  }

  /** The wire name of a message, for error messages: {@code HELLO}, {@code WRITE}, ... */
  static String name(Message m) {
    String simple = m.getClass().getSimpleName();
    return m instanceof Message.ReadReply
        ? "READ_REPLY"
        : simple.toUpperCase(java.util.Locale.ROOT);
  }
}
