package io.zoolander.server.bench;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.HdrHistogram.Histogram;

/**
 * The floor of one extra hop: the round trip of a small frame between a trivial Netty client and a
 * Netty echo server on 127.0.0.1, each on its own NIO event loop (as the repeater, the plugin and
 * the client are), with TCP_NODELAY, timed from a frame's send to its echo. Two ways:
 *
 * <ul>
 *   <li>{@link #measure}: a closed loop with a few frames outstanding, each echo sending the next:
 *       both threads stay busy, so this is the hop's cost on threads that are already running;
 *   <li>{@link #measurePaced}: frames sent at a fixed rate (open loop), as the bench's accesses
 *       arrive: between two frames both threads go to sleep, so each hop also pays for waking the
 *       receiving thread, as every hop of a write does at the bench's rate.
 * </ul>
 *
 * Bounded in time and count.
 */
public final class LoopbackRoundTrip {
  public static final int DEFAULT_OUTSTANDING = 1;
  public static final int DEFAULT_FRAME_BYTES = 64;

  /**
   * What was measured.
   *
   * @param roundTrips round trips recorded (warm-up excluded)
   * @param outstanding frames in flight at once (closed loop); 0 when paced
   * @param ratePerSec frames sent per second when paced; 0 for the closed loop
   * @param frameBytes bytes per frame
   * @param seconds measured seconds
   * @param warmupSeconds discarded seconds before
   * @param histogram round-trip times in nanoseconds
   */
  public record Result(
      long roundTrips,
      int outstanding,
      double ratePerSec,
      int frameBytes,
      double seconds,
      double warmupSeconds,
      Histogram histogram) {

    /** The round trip at {@code percentile}, in ms; NaN if none was recorded. */
    public double ms(double percentile) {
      return histogram.getTotalCount() == 0
          ? Double.NaN
          : histogram.getValueAtPercentile(percentile) / 1e6;
    }

    public double meanMs() {
      return histogram.getTotalCount() == 0 ? Double.NaN : histogram.getMean() / 1e6;
    }
  }

  private LoopbackRoundTrip() {}

  /**
   * The closed loop: measures for {@code duration} after a discarded {@code warmup}, stopping early
   * after {@code maxRoundTrips} recorded round trips.
   */
  public static Result measure(
      Duration warmup, Duration duration, long maxRoundTrips, int outstanding, int frameBytes)
      throws InterruptedException, ExecutionException, TimeoutException {
    if (outstanding < 1 || outstanding > 1_000) {
      throw new IllegalArgumentException("outstanding must be in 1..1000, was " + outstanding);
    }
    return run(warmup, duration, maxRoundTrips, outstanding, 0, frameBytes);
  }

  /**
   * Paced: sends {@code ratePerSec} frames a second, whether the echoes are back or not, for {@code
   * duration} after a discarded {@code warmup}, stopping early after {@code maxRoundTrips} recorded
   * round trips.
   */
  public static Result measurePaced(
      Duration warmup, Duration duration, long maxRoundTrips, double ratePerSec, int frameBytes)
      throws InterruptedException, ExecutionException, TimeoutException {
    if (!(ratePerSec >= 1 && ratePerSec <= 100_000)) {
      throw new IllegalArgumentException("ratePerSec must be in 1..100000, was " + ratePerSec);
    }
    return run(warmup, duration, maxRoundTrips, 0, ratePerSec, frameBytes);
  }

  private static Result run(
      Duration warmup,
      Duration duration,
      long maxRoundTrips,
      int outstanding,
      double ratePerSec,
      int frameBytes)
      throws InterruptedException, ExecutionException, TimeoutException {
    if (frameBytes < 8 || frameBytes > 65_536) {
      throw new IllegalArgumentException("frame bytes must be in 8..65536, was " + frameBytes);
    }
    EventLoopGroup server =
        new NioEventLoopGroup(1, new DefaultThreadFactory("bench-loopback-server", true));
    EventLoopGroup client =
        new NioEventLoopGroup(1, new DefaultThreadFactory("bench-loopback-client", true));
    try {
      Channel listening =
          new ServerBootstrap()
              .group(server)
              .channel(NioServerSocketChannel.class)
              .childOption(ChannelOption.TCP_NODELAY, true)
              .childHandler(
                  new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                      ch.pipeline().addLast(new Echo());
                    }
                  })
              .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
              .sync()
              .channel();
      long start = System.nanoTime();
      Pinger pinger =
          new Pinger(
              start + warmup.toNanos(),
              warmup.toMillis() / 1e3,
              start + warmup.toNanos() + duration.toNanos(),
              maxRoundTrips,
              outstanding,
              ratePerSec,
              frameBytes);
      Channel ch =
          new Bootstrap()
              .group(client)
              .channel(NioSocketChannel.class)
              .option(ChannelOption.TCP_NODELAY, true)
              .handler(pinger)
              .connect(listening.localAddress())
              .sync()
              .channel();
      Result r = pinger.done.get(warmup.plus(duration).toMillis() + 30_000, TimeUnit.MILLISECONDS);
      ch.close().sync();
      listening.close().sync();
      return r;
    } finally {
      client.shutdownGracefully(0, 1, TimeUnit.SECONDS);
      server.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }
  }

  /** Sends back whatever arrives. */
  private static final class Echo extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      ctx.writeAndFlush(msg);
    }
  }

  /**
   * Keeps {@code outstanding} frames in flight, or sends one every {@code 1 / ratePerSec} s; every
   * field is used by the client's event loop.
   */
  private static final class Pinger extends ChannelInboundHandlerAdapter {
    final CompletableFuture<Result> done = new CompletableFuture<>();
    private final long recordFrom;
    private final double warmupSeconds;
    private final long stopAt;
    private final long maxRoundTrips;
    private final int outstanding;
    private final double ratePerSec;
    private final int frameBytes;
    private final Histogram histogram = new Histogram(3);
    private final ArrayDeque<Long> sentAt = new ArrayDeque<>();
    private long received;
    private long sequence;
    private long firstRecorded;
    private long lastRecorded;
    private boolean stopping;
    private ScheduledFuture<?> pacer;

    Pinger(
        long recordFrom,
        double warmupSeconds,
        long stopAt,
        long maxRoundTrips,
        int outstanding,
        double ratePerSec,
        int frameBytes) {
      this.recordFrom = recordFrom;
      this.warmupSeconds = warmupSeconds;
      this.stopAt = stopAt;
      this.maxRoundTrips = maxRoundTrips;
      this.outstanding = outstanding;
      this.ratePerSec = ratePerSec;
      this.frameBytes = frameBytes;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
      if (ratePerSec > 0) {
        long periodNanos = Math.max(1, Math.round(1e9 / ratePerSec));
        pacer =
            ctx.executor()
                .scheduleAtFixedRate(() -> pace(ctx), 0, periodNanos, TimeUnit.NANOSECONDS);
        return;
      }
      for (int i = 0; i < outstanding; i++) {
        send(ctx);
      }
    }

    /** Paced: the next frame, or the end once the time or the count is reached. */
    private void pace(ChannelHandlerContext ctx) {
      if (System.nanoTime() - stopAt >= 0) {
        stopping = true;
      }
      if (stopping) {
        pacer.cancel(false);
        if (sentAt.isEmpty()) {
          finish();
        }
        return;
      }
      send(ctx);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      ByteBuf buf = (ByteBuf) msg;
      received += buf.readableBytes();
      buf.release();
      while (received >= frameBytes) {
        received -= frameBytes;
        long now = System.nanoTime();
        Long sent = sentAt.poll();
        if (sent != null && sent - recordFrom >= 0 && !stopping) {
          if (histogram.getTotalCount() == 0) {
            firstRecorded = sent;
          }
          histogram.recordValue(Math.max(0, now - sent));
          lastRecorded = now;
        }
        if (now - stopAt >= 0 || histogram.getTotalCount() >= maxRoundTrips) {
          stopping = true;
        }
        if (!stopping) {
          if (pacer == null) {
            send(ctx);
          }
        } else if (sentAt.isEmpty()) {
          finish();
        }
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      done.completeExceptionally(cause);
      ctx.close();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      if (!done.isDone()) {
        done.completeExceptionally(new IllegalStateException("loopback connection closed early"));
      }
    }

    private void send(ChannelHandlerContext ctx) {
      ByteBuf frame = ctx.alloc().buffer(frameBytes);
      frame.writeLong(sequence++);
      frame.writeZero(frameBytes - Long.BYTES);
      sentAt.add(System.nanoTime());
      ctx.writeAndFlush(frame);
    }

    private void finish() {
      if (done.isDone()) {
        return;
      }
      if (pacer != null) {
        pacer.cancel(false);
      }
      double seconds = histogram.getTotalCount() == 0 ? 0 : (lastRecorded - firstRecorded) / 1e9;
      done.complete(
          new Result(
              histogram.getTotalCount(),
              outstanding,
              ratePerSec,
              frameBytes,
              seconds,
              warmupSeconds,
              histogram));
    }
  }
}
