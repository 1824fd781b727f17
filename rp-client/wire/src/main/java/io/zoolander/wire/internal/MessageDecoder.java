package io.zoolander.wire.internal;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.TooLongFrameException;
import io.zoolander.wire.ErrorCode;
import io.zoolander.wire.Message;
import io.zoolander.wire.WireException;
import io.zoolander.wire.WirePipeline;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decodes each frame (a {@link ByteBuf} without its length prefix) into a {@link Message}, and
 * turns every decoding failure, its own or the frame decoder's before it, into the protocol's
 * answer: write an ERROR frame with the failure's code, close the connection once the ERROR is
 * flushed (lingering on sockets, see {@link WirePipeline#errorAndClose}), and fire the {@link
 * WireException} down the pipeline for logging. Every frame after a failure is dropped, and later
 * decoding failures are ignored. Internal: not part of the public API.
 *
 * <p>A request the codec refuses (an application code naming the request: an invalid path or op in
 * a WRITE or READ) is answered with an ERROR for that request and decoding goes on; nothing is
 * fired. The ERROR is written only while the channel is writable: a peer that keeps sending refused
 * requests without reading the answers cannot make this side queue an unbounded number of them (the
 * later ones are dropped and logged).
 *
 * <p>Must sit after the message encoder in the pipeline, so the ERROR it writes is encoded. One
 * instance per channel.
 */
public final class MessageDecoder extends ChannelInboundHandlerAdapter {
  private static final Logger LOG = LoggerFactory.getLogger(MessageDecoder.class);

  private boolean failed;

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!(msg instanceof ByteBuf frame)) {
      ctx.fireChannelRead(msg);
      return;
    }
    if (failed) {
      frame.release();
      return;
    }
    Message decoded;
    try {
      decoded = Codec.decode(frame);
    } catch (WireException e) {
      if (e.code().closesConnection()) {
        fail(ctx, e);
      } else {
        refuse(ctx, e);
      }
      return;
    } catch (RuntimeException e) { // a codec bug; the peer still gets an answer
      fail(ctx, new WireException(ErrorCode.MALFORMED_FRAME, "undecodable frame: " + e, e));
      return;
    } finally {
      frame.release();
    }
    ctx.fireChannelRead(decoded);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    WireException wire = translate(cause);
    if (wire == null) {
      ctx.fireExceptionCaught(cause);
    } else if (!failed) {
      fail(ctx, wire);
    }
  }

  /**
   * The frame decoder's failures as WireExceptions; null for anything that is not a decoding
   * failure.
   */
  private static WireException translate(Throwable cause) {
    if (cause instanceof WireException wire) {
      return wire;
    }
    if (cause instanceof TooLongFrameException) {
      return new WireException(
          ErrorCode.FRAME_TOO_LARGE, "frame too large: " + cause.getMessage(), cause);
    }
    if (cause instanceof DecoderException) { // e.g. CorruptedFrameException
      return new WireException(
          ErrorCode.MALFORMED_FRAME, "malformed frame: " + cause.getMessage(), cause);
    }
    return null;
  }

  private static void refuse(ChannelHandlerContext ctx, WireException e) {
    if (ctx.channel().isWritable()) {
      LOG.debug("{}: refused: {}", ctx.channel(), e.getMessage());
      ctx.writeAndFlush(Message.Error.forRequest(e.code(), e.requestId(), e.getMessage()));
    } else {
      LOG.debug(
          "{}: refused, and not answered since the peer does not read its answers: {}",
          ctx.channel(),
          e.getMessage());
    }
  }

  private void fail(ChannelHandlerContext ctx, WireException e) {
    if (failed) {
      return;
    }
    failed = true;
    WirePipeline.errorAndClose(ctx.channel(), Message.Error.of(e.code(), e.getMessage()));
    ctx.fireExceptionCaught(e);
  }
}
