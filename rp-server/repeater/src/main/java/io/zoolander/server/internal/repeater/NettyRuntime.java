package io.zoolander.server.internal.repeater;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.zoolander.server.internal.security.ConnectionGuard;
import io.zoolander.server.internal.security.ConnectionLimits;
import io.zoolander.server.internal.security.HandshakeFailures;
import io.zoolander.server.internal.security.LinkSecurity;
import io.zoolander.server.repeater.RepeaterSettings;
import io.zoolander.wire.PluginEndpoint;
import io.zoolander.wire.WirePipeline;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The repeater's Netty runtime: the <em>sequencer loop</em> (a single-threaded event loop that owns
 * the sequencing state and on which every plugin connection is registered), the bootstrap of plugin
 * connections, the client I/O threads, the client listener and the group of client channels. It
 * only creates, hands out and closes them: what runs on them is the other classes' job.
 *
 * <p>Started ({@link #startSequencer}, {@link #listen}) and closed ({@link #closeClients}, {@link
 * #shutdown}) by the thread that starts and closes the repeater; {@link #loop()}, {@link #execute}
 * and {@link #boundAddress()} may be called from any thread.
 */
final class NettyRuntime {
  private final LinkSecurity security;
  private final RepeaterMeters meters;

  private EventLoopGroup sequencerGroup;
  private volatile EventLoop loop;
  private Bootstrap pluginBootstrap;
  private EventLoopGroup clientGroup;
  private ChannelGroup clients;
  private volatile Channel serverChannel;

  NettyRuntime(LinkSecurity security, RepeaterMeters meters) {
    this.security = security;
    this.meters = meters;
  }

  /** Starts the sequencer loop and prepares the bootstrap of plugin connections on it. */
  void startSequencer() {
    sequencerGroup =
        new NioEventLoopGroup(1, new DefaultThreadFactory("zoolander-repeater-sequencer", true));
    EventLoop sequencer = sequencerGroup.next();
    pluginBootstrap =
        new Bootstrap()
            .group(sequencer)
            .channel(NioSocketChannel.class)
            .option(ChannelOption.TCP_NODELAY, true)
            .option(
                ChannelOption.CONNECT_TIMEOUT_MILLIS,
                RepeaterSettings.PLUGIN_CONNECT_TIMEOUT_MILLIS)
            .option(ChannelOption.SO_SNDBUF, RepeaterSettings.PLUGIN_SOCKET_SEND_BUFFER_BYTES)
            .option(
                ChannelOption.WRITE_BUFFER_WATER_MARK,
                new WriteBufferWaterMark(
                    RepeaterSettings.PLUGIN_WRITE_LOW_WATER_MARK_BYTES,
                    RepeaterSettings.PLUGIN_WRITE_HIGH_WATER_MARK_BYTES));
    loop = sequencer;
  }

  /** The sequencer loop; null before {@link #startSequencer}. */
  EventLoop loop() {
    return loop;
  }

  /** Whether the calling thread is the sequencer loop's. */
  boolean inLoop() {
    EventLoop l = loop;
    return l != null && l.inEventLoop();
  }

  /**
   * Runs {@code task} on the sequencer loop, later.
   *
   * @return false if the loop does not run (not started, or shut down)
   */
  boolean execute(Runnable task) {
    EventLoop l = loop;
    if (l == null) {
      return false;
    }
    try {
      l.execute(task);
      return true;
    } catch (RejectedExecutionException e) {
      return false;
    }
  }

  /**
   * Runs {@code task} on the sequencer loop and waits for it (at most {@link
   * RepeaterSettings#CLOSE_THREADS_TIMEOUT_MILLIS}); at once if called on the loop, not at all if
   * the loop is shut down.
   */
  void onLoopAndWait(Runnable task) {
    EventLoop l = loop;
    if (l.inEventLoop()) {
      task.run();
      return;
    }
    try {
      l.submit(task).awaitUninterruptibly(RepeaterSettings.CLOSE_THREADS_TIMEOUT_MILLIS);
    } catch (RejectedExecutionException e) {
      // already shut down
    }
  }

  /** A bootstrap of a plugin connection on the sequencer loop, with no handler yet. */
  Bootstrap pluginBootstrap() {
    return pluginBootstrap.clone();
  }

  /**
   * Connects to a plugin on the sequencer loop: TLS if configured, the wire pipeline, then a
   * handler from {@code handler}.
   */
  ChannelFuture connectPlugin(PluginEndpoint endpoint, Supplier<ChannelHandler> handler) {
    return pluginBootstrap()
        .handler(
            new ChannelInitializer<SocketChannel>() {
              @Override
              protected void initChannel(SocketChannel ch) {
                if (security.tls() != null) {
                  security.tls().addClientHandler(ch.pipeline(), endpoint.host(), endpoint.port());
                }
                WirePipeline.install(ch.pipeline(), RepeaterSettings.MAX_FRAME_BYTES);
                ch.pipeline().addLast(handler.get());
              }
            })
        .connect(endpoint.host(), endpoint.port());
  }

  /**
   * Starts the client I/O threads and listens for clients: each connection gets TLS if configured,
   * a {@link ConnectionGuard} enforcing {@code limits}, the wire pipeline, then a handler from
   * {@code clientHandler}.
   *
   * @param ioThreads client I/O threads; 0: the sequencer loop reads the clients itself
   * @throws IOException if the address cannot be bound
   */
  void listen(
      String host,
      int port,
      int ioThreads,
      ConnectionLimits limits,
      Supplier<ChannelHandler> clientHandler)
      throws IOException, InterruptedException {
    ConnectionGuard.Port guarded = new ConnectionGuard.Port("the repeater's client port", limits);
    // 0 threads: the sequencer loop reads the clients too, so a WRITE's handoff to the sequencer is
    // a task queued on the loop that read it rather than a wake-up of another thread.
    EventLoopGroup clientLoops = sequencerGroup;
    if (ioThreads > 0) {
      clientGroup =
          new NioEventLoopGroup(
              ioThreads, new DefaultThreadFactory("zoolander-repeater-clients", true));
      clientLoops = clientGroup;
    }
    clients = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
    ServerBootstrap server =
        new ServerBootstrap()
            .group(clientLoops)
            .channel(NioServerSocketChannel.class)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    clients.add(ch);
                    if (security.tls() != null) {
                      security.tls().addServerHandler(ch.pipeline());
                      ch.pipeline().addLast(new HandshakeFailures(meters::tlsFailure));
                    }
                    ch.pipeline().addLast(ConnectionGuard.NAME, guarded.newGuard());
                    WirePipeline.install(ch.pipeline(), RepeaterSettings.MAX_FRAME_BYTES);
                    ch.pipeline().addLast(clientHandler.get());
                  }
                });
    server.option(ChannelOption.AUTO_READ, false); // accepts nobody until acceptClients()
    ChannelFuture bound = server.bind(host, port).await();
    if (!bound.isSuccess()) {
      throw new IOException(
          "cannot listen for clients on " + host + ":" + port + ": " + bound.cause(),
          bound.cause());
    }
    serverChannel = bound.channel();
  }

  /**
   * Starts accepting the client connections {@link #listen} has held back (they wait in the
   * listener's backlog meanwhile).
   */
  void acceptClients() {
    Channel server = serverChannel;
    if (server != null) {
      server.config().setAutoRead(true);
    }
  }

  /**
   * The address clients connect to.
   *
   * @throws IllegalStateException before {@link #listen}
   */
  InetSocketAddress boundAddress() {
    Channel server = serverChannel;
    if (server == null) {
      throw new IllegalStateException("repeater not started");
    }
    return (InetSocketAddress) server.localAddress();
  }

  /** Stops listening for clients (the connections stay); waits for it if {@code await}. */
  void stopListening(boolean await) {
    Channel server = serverChannel;
    if (server == null) {
      return;
    }
    ChannelFuture closed = server.close();
    if (await) {
      closed.awaitUninterruptibly(RepeaterSettings.CLOSE_THREADS_TIMEOUT_MILLIS);
    }
  }

  /** Closes every client connection and waits for it. */
  void closeClients() {
    if (clients != null) {
      clients.close().awaitUninterruptibly(RepeaterSettings.CLOSE_THREADS_TIMEOUT_MILLIS);
    }
  }

  /** Shuts the client I/O threads and the sequencer loop down and waits for them. */
  void shutdown() {
    List<Future<?>> terminations = new ArrayList<>();
    if (clientGroup != null) {
      terminations.add(
          clientGroup.shutdownGracefully(
              0, RepeaterSettings.CLOSE_THREADS_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS));
    }
    if (sequencerGroup != null) {
      terminations.add(
          sequencerGroup.shutdownGracefully(
              0, RepeaterSettings.CLOSE_THREADS_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS));
    }
    for (Future<?> termination : terminations) {
      termination.awaitUninterruptibly(RepeaterSettings.CLOSE_THREADS_TIMEOUT_MILLIS);
    }
  }
}
