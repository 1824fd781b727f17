package io.zoolander.server.internal.security;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;

/**
 * Counts failed TLS handshakes: placed after the {@code SslHandler}, it runs {@code onFailure} when
 * the handshake of its connection fails, and passes every event on. Internal.
 */
public final class HandshakeFailures extends ChannelInboundHandlerAdapter {
  private final Runnable onFailure;

  public HandshakeFailures(Runnable onFailure) {
    this.onFailure = onFailure;
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
    if (evt instanceof SslHandshakeCompletionEvent done && !done.isSuccess()) {
      onFailure.run();
    }
    super.userEventTriggered(ctx, evt);
  }
}
