package io.zoolander.server.internal.plugin;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.zoolander.server.internal.security.ConnectionGuard;
import io.zoolander.server.internal.security.ConnectionLimits;
import io.zoolander.server.internal.security.HandshakeFailures;
import io.zoolander.server.internal.security.LinkSecurity;
import io.zoolander.server.internal.security.ServerAuth;
import io.zoolander.server.plugin.ZoolanderPluginView.Snapshot;
import io.zoolander.wire.Credential;
import io.zoolander.wire.WirePipeline;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The plugin's TCP server: one Netty event loop thread, TLS if configured, the wire pipeline and a
 * {@link ConnectionHandler}.
 */
final class PluginServer implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(PluginServer.class);

  private final EventLoopGroup group;
  private final ChannelGroup channels;
  private final Channel serverChannel;

  private PluginServer(EventLoopGroup group, ChannelGroup channels, Channel serverChannel) {
    this.group = group;
    this.channels = channels;
    this.serverChannel = serverChannel;
  }

  /**
   * Binds {@code host:port} (0: any free port).
   *
   * @throws IOException if the address cannot be bound
   * @throws InterruptedException if interrupted while binding
   */
  static PluginServer start(
      String host,
      int port,
      int duplicateId,
      Supplier<Snapshot> status,
      Applier applier,
      Peers peers)
      throws IOException, InterruptedException {
    return start(
        host,
        port,
        duplicateId,
        status,
        applier,
        peers,
        LinkSecurity.NONE,
        PluginMeters.none(),
        ConnectionLimits.DEFAULTS);
  }

  /**
   * As {@link #start(String, int, int, Supplier, Applier, Peers)}, with TLS and access control;
   * refused TLS handshakes and authentications are counted in {@code meters}. Every connection is
   * held to {@code limits} by a {@link ConnectionGuard}: this port is inside the ZooKeeper leader's
   * JVM.
   */
  static PluginServer start(
      String host,
      int port,
      int duplicateId,
      Supplier<Snapshot> status,
      Applier applier,
      Peers peers,
      LinkSecurity security,
      PluginMeters meters,
      ConnectionLimits limits)
      throws IOException, InterruptedException {
    EventLoopGroup group =
        new NioEventLoopGroup(
            1, new DefaultThreadFactory("zoolander-plugin-io-" + duplicateId, true));
    ChannelGroup channels =
        new DefaultChannelGroup("zoolander-plugin-" + duplicateId, GlobalEventExecutor.INSTANCE);
    ConnectionGuard.Port guarded =
        new ConnectionGuard.Port("the plugin's port of duplicate " + duplicateId, limits);
    try {
      ChannelFuture bound =
          new ServerBootstrap()
              .group(group)
              .channel(NioServerSocketChannel.class)
              .childOption(ChannelOption.TCP_NODELAY, true)
              .childHandler(
                  new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                      channels.add(ch);
                      if (security.tls() != null) {
                        security.tls().addServerHandler(ch.pipeline());
                        ch.pipeline().addLast(new HandshakeFailures(meters::tlsFailure));
                      }
                      ch.pipeline().addLast(ConnectionGuard.NAME, guarded.newGuard());
                      WirePipeline.install(ch.pipeline());
                      ch.pipeline()
                          .addLast(
                              new ConnectionHandler(
                                  duplicateId,
                                  status,
                                  applier,
                                  peers,
                                  new ServerAuth(
                                      security.access(),
                                      Credential.duplicate(duplicateId),
                                      meters::authFailure)));
                    }
                  })
              .bind(host, port)
              .await();
      if (!bound.isSuccess()) {
        throw new IOException(
            "cannot listen on " + host + ":" + port + ": " + bound.cause(), bound.cause());
      }
      Channel server = bound.channel();
      channels.add(server);
      LOG.info("Duplicate {}: plugin listening on {}", duplicateId, server.localAddress());
      return new PluginServer(group, channels, server);
    } catch (IOException | InterruptedException | RuntimeException e) {
      group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
      throw e;
    }
  }

  /**
   * @return the bound address
   */
  InetSocketAddress localAddress() {
    return (InetSocketAddress) serverChannel.localAddress();
  }

  /** Closes the listening socket and every connection, waiting at most {@code timeoutMs}. */
  void close(long timeoutMs) {
    try {
      channels.close().await(timeoutMs, TimeUnit.MILLISECONDS);
      group
          .shutdownGracefully(0, timeoutMs, TimeUnit.MILLISECONDS)
          .await(timeoutMs, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    close(1_000);
  }
}
