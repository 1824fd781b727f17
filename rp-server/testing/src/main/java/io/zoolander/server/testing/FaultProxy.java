package io.zoolander.server.testing;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP proxy on 127.0.0.1 that injects network faults between two peers, for tests: put it in
 * front of a plugin (the plugin advertises the proxy's port, {@code
 * zoolander.plugin.advertisedPort}) or point a client at it, then switch its {@link Mode} while
 * traffic flows. Part of the testing artifact.
 *
 * <pre>{@code
 * try (FaultProxy proxy = FaultProxy.builder().listenPort(advertised).target("127.0.0.1", pluginPort).start()) {
 *   proxy.drop();                       // the duplicate is cut off: nothing passes, TCP keeps the bytes
 *   ...
 *   proxy.pass();                       // healed
 * }
 * }</pre>
 *
 * <p>Every mode applies to the connections open when it is set and to those opened later. Mode
 * changes and counters are thread-safe.
 */
public final class FaultProxy implements AutoCloseable {

  /** What the proxy does with a connection's bytes. */
  public enum Mode {
    /** Forwards both ways. */
    PASS,
    /**
     * Forwards nothing, both ways, and reads nothing: the bytes wait in the sockets (TCP pushes
     * back on the senders), as in a partition during which TCP keeps retransmitting; they are
     * delivered once healed, if the peers have not given up on the connection meanwhile. New
     * connections are accepted and wait too.
     */
    DROP,
    /**
     * Forwards both ways, each chunk after a delay. Bytes stay in order: after healing (or a
     * shorter delay) new bytes wait behind those still delayed, as TCP would deliver them.
     */
    DELAY,
    /** Resets every connection (RST), and every new one at once, until healed. */
    RESET,
    /**
     * Closes the target's side of every connection (the target sees an orderly close) but leaves
     * the initiator's side open and silent: what it sends goes nowhere and nothing comes back, as
     * when a peer dies without a goodbye. New connections are accepted and left silent. Healing
     * resets the connections left this way.
     */
    HALF_OPEN
  }

  private final InetSocketAddress target;
  private final EventLoopGroup group;
  private final EventLoop loop;
  private final Channel server;
  private final AtomicLong forwardedBytes = new AtomicLong();
  private final AtomicLong acceptedConnections = new AtomicLong();
  // Confined to the loop.
  private final List<Pair> pairs = new ArrayList<>();
  private volatile Mode mode = Mode.PASS;
  private volatile long delayMillis;

  private FaultProxy(Builder builder) throws IOException, InterruptedException {
    this.target = new InetSocketAddress(builder.targetHost, builder.targetPort);
    this.group = new NioEventLoopGroup(1, new DefaultThreadFactory("zoolander-fault-proxy", true));
    this.loop = group.next();
    ChannelFuture bound =
        new ServerBootstrap()
            .group(loop)
            .channel(NioServerSocketChannel.class)
            .childOption(ChannelOption.AUTO_READ, false)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    ch.pipeline().addLast(new Accepted());
                  }
                })
            .bind("127.0.0.1", builder.listenPort)
            .await();
    if (!bound.isSuccess()) {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
      throw new IOException(
          "cannot listen on 127.0.0.1:" + builder.listenPort + ": " + bound.cause(), bound.cause());
    }
    this.server = bound.channel();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The port the proxy listens on. */
  public int port() {
    return ((InetSocketAddress) server.localAddress()).getPort();
  }

  public Mode mode() {
    return mode;
  }

  /** Heals: forwards both ways again (connections left half-open are reset). */
  public void pass() {
    setMode(Mode.PASS, 0);
  }

  /** See {@link Mode#DROP}. */
  public void drop() {
    setMode(Mode.DROP, 0);
  }

  /** See {@link Mode#DELAY}. */
  public void delay(Duration delay) {
    Objects.requireNonNull(delay, "delay must not be null");
    if (delay.isNegative()) {
      throw new IllegalArgumentException("delay must not be negative, was " + delay);
    }
    setMode(Mode.DELAY, delay.toMillis());
  }

  /** See {@link Mode#RESET}. */
  public void reset() {
    setMode(Mode.RESET, 0);
  }

  /** See {@link Mode#HALF_OPEN}. */
  public void halfOpen() {
    setMode(Mode.HALF_OPEN, 0);
  }

  /** Bytes forwarded so far, both ways. */
  public long forwardedBytes() {
    return forwardedBytes.get();
  }

  /** Connections accepted so far. */
  public long acceptedConnections() {
    return acceptedConnections.get();
  }

  /** Connections open now (each an initiator's and, unless half-open, the target's). */
  public int openConnections() {
    return onLoop(pairs::size);
  }

  @Override
  public void close() {
    onLoop(
        () -> {
          new ArrayList<>(pairs).forEach(p -> p.close(false));
          return null;
        });
    server.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
  }

  @Override
  public String toString() {
    return "FaultProxy[127.0.0.1:" + port() + " -> " + target + ", " + mode + "]";
  }

  private void setMode(Mode next, long delay) {
    onLoop(
        () -> {
          delayMillis = delay;
          mode = next;
          for (Pair pair : new ArrayList<>(pairs)) {
            pair.apply(next);
          }
          return null;
        });
  }

  private <T> T onLoop(Callable<T> task) {
    try {
      return loop.submit(task).get(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("fault proxy: " + e, e);
    }
  }

  private static void resetClose(Channel channel) {
    if (channel.isOpen()) {
      channel.config().setOption(ChannelOption.SO_LINGER, 0);
      channel.close();
    }
  }

  /** One proxied connection: the initiator's channel and the target's. Confined to the loop. */
  private final class Pair {
    final Channel front;
    Channel back; // null until connected, and once half-open
    boolean halfOpen;
    // Chunks held back by DELAY (and any that arrive while some still wait), per direction.
    final ArrayDeque<Delayed> toBack = new ArrayDeque<>();
    final ArrayDeque<Delayed> toFront = new ArrayDeque<>();

    Pair(Channel front) {
      this.front = front;
    }

    void connected(Channel back) {
      this.back = back;
      if (mode == Mode.PASS || mode == Mode.DELAY) {
        front.config().setAutoRead(true);
        back.config().setAutoRead(true);
      } else {
        apply(mode);
      }
    }

    void apply(Mode next) {
      switch (next) {
        case PASS, DELAY -> {
          if (halfOpen) {
            close(true);
          } else if (back != null) {
            front.config().setAutoRead(true);
            back.config().setAutoRead(true);
          }
        }
        case DROP -> {
          front.config().setAutoRead(false);
          if (back != null) {
            back.config().setAutoRead(false);
          }
        }
        case RESET -> close(true);
        case HALF_OPEN -> {
          halfOpen = true;
          front.config().setAutoRead(false);
          if (back != null) {
            Channel b = back;
            back = null;
            b.close();
          }
        }
      }
    }

    void forward(Channel from, Object msg) {
      Channel to = from == front ? back : front;
      if (to == null || !to.isActive()) {
        ReferenceCountUtil.release(msg);
        return;
      }
      if (msg instanceof io.netty.buffer.ByteBuf buf) {
        forwardedBytes.addAndGet(buf.readableBytes());
      }
      long delay = mode == Mode.DELAY ? delayMillis : 0;
      ArrayDeque<Delayed> waiting = from == front ? toBack : toFront;
      if (delay > 0 || !waiting.isEmpty()) {
        // Behind whatever still waits for this direction, even once healed: a TCP stream is never
        // reordered, and a reordered one would reach the peer as corrupted frames.
        long due = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(delay);
        if (!waiting.isEmpty()) {
          due = Math.max(due, waiting.peekLast().dueNanos);
        }
        waiting.addLast(new Delayed(msg, due));
        if (waiting.size() == 1) {
          scheduleRelease(to, waiting);
        }
      } else {
        to.writeAndFlush(msg, to.voidPromise());
      }
      if (!to.isWritable()) {
        from.config().setAutoRead(false); // resumed when it drains
      }
    }

    private void scheduleRelease(Channel to, ArrayDeque<Delayed> waiting) {
      long wait = Math.max(0, waiting.peekFirst().dueNanos - System.nanoTime());
      loop.schedule(() -> release(to, waiting), wait, TimeUnit.NANOSECONDS);
    }

    /** Writes the waiting chunks that are due, in order; reschedules for the rest. */
    private void release(Channel to, ArrayDeque<Delayed> waiting) {
      long now = System.nanoTime();
      while (!waiting.isEmpty() && waiting.peekFirst().dueNanos <= now) {
        Object msg = waiting.pollFirst().msg;
        if (to.isActive()) {
          to.writeAndFlush(msg, to.voidPromise());
        } else {
          ReferenceCountUtil.release(msg);
        }
      }
      if (!waiting.isEmpty()) {
        scheduleRelease(to, waiting);
      }
    }

    void writable(Channel channel) {
      Channel other = channel == front ? back : front;
      if (other != null && channel.isWritable() && (mode == Mode.PASS || mode == Mode.DELAY)) {
        other.config().setAutoRead(true);
      }
    }

    /** One side closed: close the other (unless it is an initiator left half-open on purpose). */
    void closed(Channel channel) {
      if (channel == front) {
        close(false);
      } else if (channel == back && !halfOpen) {
        close(false);
      }
    }

    void close(boolean reset) {
      pairs.remove(this);
      for (ArrayDeque<Delayed> waiting : List.of(toBack, toFront)) {
        waiting.forEach(d -> ReferenceCountUtil.release(d.msg));
        waiting.clear();
      }
      if (reset) {
        resetClose(front);
        if (back != null) {
          resetClose(back);
        }
      } else {
        front.close();
        if (back != null) {
          back.close();
        }
      }
    }
  }

  /** A chunk held back until {@code dueNanos} ({@link System#nanoTime()}). */
  private record Delayed(Object msg, long dueNanos) {}

  /** The initiator's side. */
  private final class Accepted extends ChannelInboundHandlerAdapter {
    private Pair pair;

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
      acceptedConnections.incrementAndGet();
      Channel front = ctx.channel();
      if (mode == Mode.RESET) {
        resetClose(front);
        return;
      }
      pair = new Pair(front);
      pairs.add(pair);
      if (mode == Mode.HALF_OPEN) {
        pair.halfOpen = true; // accepted, and silent
        return;
      }
      Pair p = pair;
      new Bootstrap()
          .group(loop)
          .channel(NioSocketChannel.class)
          .option(ChannelOption.AUTO_READ, false)
          .option(ChannelOption.TCP_NODELAY, true)
          .handler(new Target(p))
          .connect(target)
          .addListener(
              (ChannelFuture f) -> {
                if (!f.isSuccess()) {
                  p.close(true); // the target refuses: so does the proxy
                } else if (!pairs.contains(p) || p.halfOpen) {
                  f.channel().close();
                } else {
                  p.connected(f.channel());
                }
              });
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      if (pair == null) {
        ReferenceCountUtil.release(msg);
      } else {
        pair.forward(ctx.channel(), msg);
      }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
      if (pair != null) {
        pair.writable(ctx.channel());
      }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      if (pair != null) {
        pair.closed(ctx.channel());
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ctx.close();
    }
  }

  /** The target's side. */
  private static final class Target extends ChannelInboundHandlerAdapter {
    private final Pair pair;

    Target(Pair pair) {
      this.pair = pair;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      pair.forward(ctx.channel(), msg);
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
      pair.writable(ctx.channel());
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      pair.closed(ctx.channel());
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ctx.close();
    }
  }

  /** Configures a {@link FaultProxy}; every setter validates its argument. */
  public static final class Builder {
    private int listenPort;
    private String targetHost;
    private int targetPort;

    private Builder() {}

    /**
     * The port to listen on, 0..65535 (default 0: any free port, see {@link FaultProxy#port()}).
     */
    public Builder listenPort(int port) {
      if (port < 0 || port > 65535) {
        throw new IllegalArgumentException("listenPort must be in 0..65535, was " + port);
      }
      this.listenPort = port;
      return this;
    }

    /** Where connections are forwarded (required). */
    public Builder target(String host, int port) {
      Objects.requireNonNull(host, "host must not be null");
      if (port < 1 || port > 65535) {
        throw new IllegalArgumentException("target port must be in 1..65535, was " + port);
      }
      this.targetHost = host;
      this.targetPort = port;
      return this;
    }

    /**
     * Starts the proxy in {@link Mode#PASS}.
     *
     * @throws IllegalStateException if no target is set
     * @throws IOException if it cannot listen
     */
    public FaultProxy start() throws IOException, InterruptedException {
      if (targetHost == null) {
        throw new IllegalStateException("a fault proxy needs a target");
      }
      return new FaultProxy(this);
    }
  }
}
