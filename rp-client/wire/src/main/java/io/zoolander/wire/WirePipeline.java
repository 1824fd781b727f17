package io.zoolander.wire;

import io.netty.channel.Channel;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.socket.DuplexChannel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.codec.LengthFieldPrepender;
import io.netty.util.AttributeKey;
import io.netty.util.concurrent.ScheduledFuture;
import io.zoolander.wire.internal.MessageDecoder;
import io.zoolander.wire.internal.MessageEncoder;
import java.util.concurrent.TimeUnit;

/**
 * Installs the wire protocol on a Netty pipeline: after it, the channel reads and writes {@link
 * Message}s.
 *
 * <p>Handlers added, in order: a {@link LengthFieldBasedFrameDecoder} that rejects an oversized
 * frame from its length prefix alone, without buffering the body ({@code failFast}); a {@link
 * LengthFieldPrepender}; the message encoder; the message decoder. Add application handlers after
 * them ({@code addLast}).
 *
 * <p>When an inbound frame is oversized, truncated, malformed, of an unknown type or an unsupported
 * version, the pipeline writes an {@link Message.Error} with the matching protocol {@link
 * ErrorCode}, decodes nothing more from that connection and closes it, and fires a {@link
 * WireException} through {@code exceptionCaught} for the application to log. On TCP the close
 * lingers: output is shut down right after the ERROR, input is read and discarded, and the channel
 * closes when the peer does or after {@link WireSettings#ERROR_LINGER_MILLIS} (after twice that in
 * any case), so that a connection reset cannot destroy the ERROR before the peer reads it ({@link
 * #errorAndClose}). Other connections are unaffected. A client request that parses but is invalid
 * (a bad path or op) is answered with an ERROR naming it and the connection stays open (see {@link
 * ErrorCode}). An outbound message too large for a frame fails its write with a {@link
 * WireException} and is not sent.
 */
public final class WirePipeline {
  private WirePipeline() {}

  /** Name of the frame decoder in the pipeline. */
  public static final String FRAME_DECODER = "zoolander.frameDecoder";

  /** Name of the length prepender in the pipeline. */
  public static final String FRAME_ENCODER = "zoolander.frameEncoder";

  /** Name of the message encoder in the pipeline. */
  public static final String MESSAGE_ENCODER = "zoolander.messageEncoder";

  /** Name of the message decoder in the pipeline. */
  public static final String MESSAGE_DECODER = "zoolander.messageDecoder";

  /**
   * Writes {@code error} and closes the connection as the pipeline does after a protocol error, so
   * the peer can read the ERROR even while it is still sending: on TCP, output is shut down once
   * the ERROR is written, input is read (the application must discard what it still receives) and
   * the channel closes when the peer closes or after {@link WireSettings#ERROR_LINGER_MILLIS}; in
   * any case after twice that, even if a peer that does not read never lets the ERROR out. Other
   * channels close once the ERROR is written. Only the first call on a channel acts. Any thread.
   */
  public static void errorAndClose(Channel channel, Message.Error error) {
    if (channel.attr(CLOSING).getAndSet(Boolean.TRUE) != null) {
      return;
    }
    ScheduledFuture<?> hardDeadline =
        channel
            .eventLoop()
            .schedule(
                () -> channel.close(), 2 * WireSettings.ERROR_LINGER_MILLIS, TimeUnit.MILLISECONDS);
    channel.closeFuture().addListener(f -> hardDeadline.cancel(false));
    channel.writeAndFlush(error).addListener(f -> lingerClose(channel));
  }

  private static final AttributeKey<Boolean> CLOSING =
      AttributeKey.valueOf(WirePipeline.class, "closing");

  /**
   * Closing a TCP socket while the peer's bytes are still unread makes the kernel send a reset,
   * which can destroy the ERROR before the peer reads it: so half-close (FIN), keep reading, close
   * when the peer does or after the linger.
   */
  private static void lingerClose(Channel channel) {
    if (!(channel instanceof DuplexChannel duplex) || !channel.isActive()) {
      channel.close();
      return;
    }
    channel
        .config()
        .setAutoRead(true); // the application may have paused reading; the peer's FIN must be seen
    duplex.shutdownOutput();
    ScheduledFuture<?> deadline =
        channel
            .eventLoop()
            .schedule(
                () -> channel.close(), WireSettings.ERROR_LINGER_MILLIS, TimeUnit.MILLISECONDS);
    channel.closeFuture().addListener(f -> deadline.cancel(false));
  }

  /**
   * How many bytes of an incomplete frame the channel's frame decoder holds: the part of a frame
   * the peer has sent so far. 0 without the wire pipeline. Call on the channel's event loop.
   */
  public static int bufferedFrameBytes(Channel channel) {
    return channel.pipeline().get(FRAME_DECODER) instanceof FrameDecoder decoder
        ? decoder.bufferedBytes()
        : 0;
  }

  /** The frame decoder, which can tell how much of a frame it holds. */
  private static final class FrameDecoder extends LengthFieldBasedFrameDecoder {
    FrameDecoder(int maxFrameBytes, int lengthBytes) {
      super(maxFrameBytes, 0, lengthBytes, 0, lengthBytes, true);
    }

    int bufferedBytes() {
      return actualReadableBytes();
    }
  }

  /** Installs the protocol with {@link WireSettings#DEFAULT_MAX_FRAME_BYTES}. */
  public static ChannelPipeline install(ChannelPipeline pipeline) {
    return install(pipeline, WireSettings.DEFAULT_MAX_FRAME_BYTES);
  }

  /**
   * Installs the protocol at the end of {@code pipeline}.
   *
   * @param maxFrameBytes the largest frame accepted and sent, length prefix included; at least
   *     {@link WireSettings#MIN_MAX_FRAME_BYTES}
   * @return {@code pipeline}
   * @throws IllegalArgumentException if {@code maxFrameBytes} is below the minimum
   */
  public static ChannelPipeline install(ChannelPipeline pipeline, int maxFrameBytes) {
    if (pipeline == null) {
      throw new IllegalArgumentException("pipeline: must not be null");
    }
    if (maxFrameBytes < WireSettings.MIN_MAX_FRAME_BYTES) {
      throw new IllegalArgumentException(
          "maxFrameBytes: must be >= "
              + WireSettings.MIN_MAX_FRAME_BYTES
              + ", was "
              + maxFrameBytes);
    }
    int lengthBytes = WireSettings.LENGTH_FIELD_BYTES;
    pipeline.addLast(FRAME_DECODER, new FrameDecoder(maxFrameBytes, lengthBytes));
    pipeline.addLast(FRAME_ENCODER, new LengthFieldPrepender(lengthBytes));
    pipeline.addLast(MESSAGE_ENCODER, new MessageEncoder(maxFrameBytes));
    pipeline.addLast(MESSAGE_DECODER, new MessageDecoder());
    return pipeline;
  }
}
