package io.zoolander.wire.internal;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.zoolander.wire.ErrorCode;
import io.zoolander.wire.Message;
import io.zoolander.wire.WireException;
import io.zoolander.wire.WireSettings;

/**
 * Encodes each outbound {@link Message} into {@code [version][type][body]}; the length prepender
 * after it adds the length prefix. A message whose frame would exceed the maximum is not sent: its
 * write fails with a {@link WireException} ({@link ErrorCode#FRAME_TOO_LARGE}) and the connection
 * stays usable, since the peer would otherwise close it. Anything that is not a Message passes
 * through. Internal: not part of the public API.
 */
@ChannelHandler.Sharable
public final class MessageEncoder extends ChannelOutboundHandlerAdapter {
  private final int maxFrameBytes;

  /**
   * @param maxFrameBytes the largest frame to send, length prefix included
   */
  public MessageEncoder(int maxFrameBytes) {
    this.maxFrameBytes = maxFrameBytes;
  }

  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
    if (!(msg instanceof Message m)) {
      ctx.write(msg, promise);
      return;
    }
    ByteBuf buf = ctx.alloc().ioBuffer(Math.min(Codec.sizeHint(m), maxFrameBytes));
    try {
      Codec.encode(m, buf);
      int frameBytes = WireSettings.LENGTH_FIELD_BYTES + buf.readableBytes();
      if (frameBytes > maxFrameBytes) {
        throw new WireException(
            ErrorCode.FRAME_TOO_LARGE,
            m.getClass().getSimpleName()
                + " of "
                + frameBytes
                + " bytes exceeds the maximum frame of "
                + maxFrameBytes
                + " bytes; not sent");
      }
    } catch (RuntimeException e) {
      buf.release();
      promise.tryFailure(e);
      return;
    }
    ctx.write(buf, promise);
  }
}
