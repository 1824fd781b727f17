package io.zoolander.server.internal.security;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import io.zoolander.wire.ErrorCode;
import io.zoolander.wire.Message;
import io.zoolander.wire.WirePipeline;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Enforces a port's {@link ConnectionLimits} on one accepted connection: placed after TLS and
 * before the wire pipeline, it refuses the connection with ERROR OVERLOADED when the port already
 * has {@code maxConnections} open, refuses it with ERROR UNEXPECTED_MESSAGE when the application
 * has not called {@link #handshakeDone} within {@code handshakeTimeoutMs} of the accept, and with
 * ERROR MALFORMED_FRAME when the peer has sent part of a frame and then nothing for {@code
 * frameIdleTimeoutMs}, or has been sending one frame for longer than {@code frameTimeoutMs} (a peer
 * trickling a byte at a time never goes quiet for long, but may not pin a partial frame for ever).
 * Every refusal closes as {@link WirePipeline#errorAndClose} does, and what the peer still sends is
 * discarded here. A connection with no partial frame is never closed for being quiet, nor one the
 * application has stopped reading (back-pressure). Confined to the connection's event loop.
 * Internal.
 */
public final class ConnectionGuard extends ChannelInboundHandlerAdapter {
  private static final Logger LOG = LoggerFactory.getLogger(ConnectionGuard.class);

  /** Name of the guard in the pipeline. */
  public static final String NAME = "zoolander.connectionGuard";

  /** One listening port: its limits and its count of open connections, shared by its guards. */
  public static final class Port {
    private final String name;
    private final ConnectionLimits limits;
    private final AtomicInteger open = new AtomicInteger();

    /**
     * @param name names the port in log lines and ERROR messages (e.g. "the repeater's client
     *     port")
     */
    public Port(String name, ConnectionLimits limits) {
      this.name = name;
      this.limits = limits;
    }

    /** A guard for a connection just accepted on this port. */
    public ConnectionGuard newGuard() {
      return new ConnectionGuard(this);
    }

    /** Connections open and not refused. Any thread. */
    public int open() {
      return open.get();
    }

    public ConnectionLimits limits() {
      return limits;
    }
  }

  private final Port port;
  private boolean counted;
  private boolean refused;
  private boolean handshakeDone;
  private long lastReadNanos = System.nanoTime();
  private long frameStartNanos = NO_FRAME; // when the partial frame's first byte came
  private ScheduledFuture<?> handshakeDeadline;
  private ScheduledFuture<?> idleCheck;

  private static final long NO_FRAME = Long.MIN_VALUE;

  private ConnectionGuard(Port port) {
    this.port = port;
  }

  /**
   * The connection's peer finished its handshake (HELLO, and AUTH when its role authenticates): its
   * deadline no longer applies. Call on the connection's event loop; nothing happens if the channel
   * has no guard.
   */
  public static void handshakeDone(Channel channel) {
    ConnectionGuard guard = channel.pipeline().get(ConnectionGuard.class);
    if (guard != null) {
      guard.handshakeDone = true;
      if (guard.handshakeDeadline != null) {
        guard.handshakeDeadline.cancel(false);
        guard.handshakeDeadline = null;
      }
    }
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) throws Exception {
    ConnectionLimits limits = port.limits;
    if (port.open.incrementAndGet() > limits.maxConnections()) {
      port.open.decrementAndGet();
      refuse(
          ctx,
          ErrorCode.OVERLOADED,
          port.name
              + " has "
              + limits.maxConnections()
              + " connections open, the most it allows (maxConnections): try again later");
    } else {
      counted = true;
      handshakeDeadline =
          ctx.executor()
              .schedule(
                  () -> handshakeExpired(ctx), limits.handshakeTimeoutMs(), TimeUnit.MILLISECONDS);
      long checkMs = Math.min(limits.frameIdleTimeoutMs(), limits.frameTimeoutMs());
      idleCheck =
          ctx.executor()
              .scheduleAtFixedRate(() -> checkIdle(ctx), checkMs, checkMs, TimeUnit.MILLISECONDS);
    }
    super.channelActive(ctx);
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (refused) {
      ReferenceCountUtil.release(msg); // read only so the peer's FIN is seen while ERROR lingers
      return;
    }
    lastReadNanos = System.nanoTime();
    if (!(msg instanceof ByteBuf bytes)) {
      ctx.fireChannelRead(msg);
      return;
    }
    Channel channel = ctx.channel();
    int before = WirePipeline.bufferedFrameBytes(channel);
    int received = bytes.readableBytes();
    ctx.fireChannelRead(msg); // the frame decoder takes what completes frames
    int after = WirePipeline.bufferedFrameBytes(channel);
    if (after == 0) {
      frameStartNanos = NO_FRAME;
    } else if (frameStartNanos == NO_FRAME || after < before + received) {
      frameStartNanos = System.nanoTime(); // a new partial frame (any before it completed)
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    cancelTimers();
    if (counted) {
      counted = false;
      port.open.decrementAndGet();
    }
    super.channelInactive(ctx);
  }

  private void handshakeExpired(ChannelHandlerContext ctx) {
    handshakeDeadline = null;
    if (!handshakeDone && !refused) {
      refuse(
          ctx,
          ErrorCode.UNEXPECTED_MESSAGE,
          "no HELLO (and AUTH, if required) completed within "
              + port.limits.handshakeTimeoutMs()
              + " ms (handshakeTimeoutMs) on "
              + port.name);
    }
  }

  /** Runs every min(frameIdleTimeoutMs, frameTimeoutMs): closes a stalled or trickling frame. */
  private void checkIdle(ChannelHandlerContext ctx) {
    Channel channel = ctx.channel();
    int partial = WirePipeline.bufferedFrameBytes(channel);
    if (refused || partial == 0) {
      return;
    }
    long now = System.nanoTime();
    if (!channel.config().isAutoRead()) {
      // Back-pressure: the peer cannot finish while it is not read, so its clocks start again.
      lastReadNanos = now;
      frameStartNanos = now;
      return;
    }
    long quietMs = TimeUnit.NANOSECONDS.toMillis(now - lastReadNanos);
    long frameMs =
        frameStartNanos == NO_FRAME ? 0 : TimeUnit.NANOSECONDS.toMillis(now - frameStartNanos);
    if (quietMs >= port.limits.frameIdleTimeoutMs()) {
      refuse(
          ctx,
          ErrorCode.MALFORMED_FRAME,
          "sent "
              + partial
              + " bytes of a frame, then nothing for "
              + port.limits.frameIdleTimeoutMs()
              + " ms (frameIdleTimeoutMs) on "
              + port.name);
    } else if (frameMs > port.limits.frameTimeoutMs()) {
      refuse(
          ctx,
          ErrorCode.MALFORMED_FRAME,
          "has been sending one frame for "
              + frameMs
              + " ms ("
              + partial
              + " bytes so far), longer than "
              + port.limits.frameTimeoutMs()
              + " ms (frameTimeoutMs) on "
              + port.name);
    }
  }

  private void refuse(ChannelHandlerContext ctx, ErrorCode code, String message) {
    refused = true;
    cancelTimers();
    LOG.info("closing the connection from {}: {}", ctx.channel().remoteAddress(), message);
    WirePipeline.errorAndClose(ctx.channel(), Message.Error.of(code, message));
  }

  private void cancelTimers() {
    if (handshakeDeadline != null) {
      handshakeDeadline.cancel(false);
      handshakeDeadline = null;
    }
    if (idleCheck != null) {
      idleCheck.cancel(false);
      idleCheck = null;
    }
  }
}
