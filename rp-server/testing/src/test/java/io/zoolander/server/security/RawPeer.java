package io.zoolander.server.security;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.zoolander.wire.Message;
import io.zoolander.wire.TlsSettings;
import io.zoolander.wire.WirePipeline;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** A hand-driven wire peer, plaintext or TLS, that records what it receives. */
final class RawPeer implements AutoCloseable {
  static final Duration WAIT = Duration.ofSeconds(15);

  private static final EventLoopGroup GROUP =
      new NioEventLoopGroup(1, new DefaultThreadFactory("raw-peer", true));

  private final Channel channel;
  private final BlockingQueue<Message> received = new LinkedBlockingQueue<>();

  /**
   * @param tls null for plaintext
   */
  RawPeer(String host, int port, TlsSettings tls) throws InterruptedException {
    ChannelFuture connected =
        new Bootstrap()
            .group(GROUP)
            .channel(NioSocketChannel.class)
            .handler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    if (tls != null) {
                      tls.addClientHandler(ch.pipeline(), host, port);
                    }
                    WirePipeline.install(ch.pipeline());
                    ch.pipeline()
                        .addLast(
                            new SimpleChannelInboundHandler<Message>() {
                              @Override
                              protected void channelRead0(ChannelHandlerContext ctx, Message msg) {
                                received.add(msg);
                              }

                              @Override
                              public void exceptionCaught(
                                  ChannelHandlerContext ctx, Throwable cause) {
                                ctx.close(); // a failed handshake or a bad frame: the test looks
                                // at what arrived and the close
                              }
                            });
                  }
                })
            .connect(host, port);
    assertThat(connected.await(WAIT.toMillis())).isTrue();
    assertThat(connected.isSuccess())
        .as("TCP connect to %s:%s: %s", host, port, connected.cause())
        .isTrue();
    channel = connected.channel();
  }

  /** Sends without waiting: the write may fail if the server has closed the connection. */
  void send(Message m) {
    channel.writeAndFlush(m);
  }

  /** The next message, which must be of {@code type}, within {@link #WAIT}. */
  <T extends Message> T next(Class<T> type) throws InterruptedException {
    Message m = received.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    assertThat(m).as("a %s within %s", type.getSimpleName(), WAIT).isNotNull();
    assertThat(m).isInstanceOf(type);
    return type.cast(m);
  }

  /** Waits until the server closes the connection; fails after {@link #WAIT}. */
  void awaitClosed() throws InterruptedException {
    assertThat(channel.closeFuture().await(WAIT.toMillis()))
        .as("the server closed the connection")
        .isTrue();
  }

  /** Every message received so far. */
  BlockingQueue<Message> received() {
    return received;
  }

  @Override
  public void close() {
    channel.close().awaitUninterruptibly(WAIT.toMillis());
  }
}
