package io.zoolander.server.internal.repeater;

import io.netty.channel.Channel;
import io.netty.channel.socket.DuplexChannel;
import io.netty.util.concurrent.ScheduledFuture;
import io.zoolander.wire.Message;
import io.zoolander.wire.WireSettings;
import java.util.concurrent.TimeUnit;

/** Small channel helpers shared by the client and plugin sides. */
final class Channels {
  private Channels() {}

  /**
   * Writes {@code error}, then closes the connection without destroying the ERROR in flight (see {@link
   * #lingerClose}); closes it after twice the linger time in any case.
   */
  static void errorAndClose(Channel channel, Message.Error error) {
    // A peer that has stopped reading never lets the ERROR out: close anyway, so the frames queued before it are freed.
    ScheduledFuture<?> hardDeadline = channel.eventLoop().schedule(
        () -> channel.close(), 2 * WireSettings.ERROR_LINGER_MILLIS, TimeUnit.MILLISECONDS);
    channel.closeFuture().addListener(f -> hardDeadline.cancel(false));
    channel.writeAndFlush(error).addListener(f -> lingerClose(channel));
  }

  /**
   * Closes a connection whose peer may still be sending: closing with unread input makes the kernel reset the
   * connection, which can destroy what was just written. So half-close (FIN), keep reading (the handler discards),
   * and close when the peer does or after {@link WireSettings#ERROR_LINGER_MILLIS}. Same rule as the wire pipeline's.
   */
  static void lingerClose(Channel channel) {
    if (!(channel instanceof DuplexChannel) || !channel.isActive()) {
      channel.close();
      return;
    }
    channel.config().setAutoRead(true);
    ((DuplexChannel) channel).shutdownOutput();
    ScheduledFuture<?> deadline = channel.eventLoop().schedule(
        () -> channel.close(), WireSettings.ERROR_LINGER_MILLIS, TimeUnit.MILLISECONDS);
    channel.closeFuture().addListener(f -> deadline.cancel(false));
  }

  /** The wire name of a message, for error messages: {@code HELLO}, {@code WRITE}, ... */
  static String name(Message m) {
    String simple = m.getClass().getSimpleName();
    return m instanceof Message.ReadReply ? "READ_REPLY" : simple.toUpperCase(java.util.Locale.ROOT);
  }
}
