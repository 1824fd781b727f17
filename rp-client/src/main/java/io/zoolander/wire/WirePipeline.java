package io.zoolander.wire;

import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.codec.LengthFieldPrepender;
import io.zoolander.wire.internal.MessageDecoder;
import io.zoolander.wire.internal.MessageEncoder;

/**
 * Installs the wire protocol on a Netty pipeline: after it, the channel reads and writes {@link Message}s.
 *
 * <p>Handlers added, in order: a {@link LengthFieldBasedFrameDecoder} that rejects an oversized frame from its length
 * prefix alone, without buffering the body ({@code failFast}); a {@link LengthFieldPrepender}; the message encoder;
 * the message decoder. Add application handlers after them ({@code addLast}).
 *
 * <p>When an inbound frame is oversized, truncated, malformed, of an unknown type or an unsupported version, the
 * pipeline writes an {@link Message.Error} with the matching protocol {@link ErrorCode}, decodes nothing more from
 * that connection and closes it, and fires a {@link WireException} through {@code exceptionCaught} for the
 * application to log. On TCP the close lingers: output is shut down right after the ERROR, input is read and
 * discarded, and the channel closes when the peer does or after {@link WireSettings#ERROR_LINGER_MILLIS}, so that a
 * connection reset cannot destroy the ERROR before the peer reads it. Other connections are unaffected. An outbound message too large for a frame fails its write
 * with a {@link WireException} and is not sent.
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

  /** Installs the protocol with {@link WireSettings#DEFAULT_MAX_FRAME_BYTES}. */
  public static ChannelPipeline install(ChannelPipeline pipeline) {
    return install(pipeline, WireSettings.DEFAULT_MAX_FRAME_BYTES);
  }

  /**
   * Installs the protocol at the end of {@code pipeline}.
   *
   * @param maxFrameBytes the largest frame accepted and sent, length prefix included; at least {@link
   *     WireSettings#MIN_MAX_FRAME_BYTES}
   * @return {@code pipeline}
   * @throws IllegalArgumentException if {@code maxFrameBytes} is below the minimum
   */
  public static ChannelPipeline install(ChannelPipeline pipeline, int maxFrameBytes) {
    if (pipeline == null) {
      throw new IllegalArgumentException("pipeline: must not be null");
    }
    if (maxFrameBytes < WireSettings.MIN_MAX_FRAME_BYTES) {
      throw new IllegalArgumentException("maxFrameBytes: must be >= " + WireSettings.MIN_MAX_FRAME_BYTES + ", was "
          + maxFrameBytes);
    }
    int lengthBytes = WireSettings.LENGTH_FIELD_BYTES;
    pipeline.addLast(FRAME_DECODER, new LengthFieldBasedFrameDecoder(maxFrameBytes, 0, lengthBytes, 0, lengthBytes,
        true));
    pipeline.addLast(FRAME_ENCODER, new LengthFieldPrepender(lengthBytes));
    pipeline.addLast(MESSAGE_ENCODER, new MessageEncoder(maxFrameBytes));
    pipeline.addLast(MESSAGE_DECODER, new MessageDecoder());
    return pipeline;
  }
}
