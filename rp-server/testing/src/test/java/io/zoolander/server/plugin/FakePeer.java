package io.zoolander.server.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.zoolander.wire.Message;
import io.zoolander.wire.PluginEndpoint;
import io.zoolander.wire.Role;
import io.zoolander.wire.WirePipeline;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A test-side peer of the plugin (a fake repeater or client): a real TCP connection with the wire
 * pipeline, whose received messages queue up for the test to take, each wait bounded.
 */
final class FakePeer implements AutoCloseable {

  static final Duration WAIT = Duration.ofSeconds(10);

  private static final EventLoopGroup GROUP =
      new NioEventLoopGroup(1, new DefaultThreadFactory("fake-peer", true));

  private final Channel channel;
  private final BlockingQueue<Message> received = new LinkedBlockingQueue<>();

  private FakePeer(PluginEndpoint endpoint) throws InterruptedException {
    ChannelFuture connected =
        new Bootstrap()
            .group(GROUP)
            .channel(NioSocketChannel.class)
            .option(ChannelOption.TCP_NODELAY, true)
            .handler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    WirePipeline.install(ch.pipeline());
                    ch.pipeline()
                        .addLast(
                            new SimpleChannelInboundHandler<Message>() {
                              @Override
                              protected void channelRead0(ChannelHandlerContext ctx, Message msg) {
                                received.add(msg);
                              }
                            });
                  }
                })
            .connect(endpoint.host(), endpoint.port());
    assertThat(connected.await(WAIT.toMillis())).as("connected to %s", endpoint.address()).isTrue();
    assertThat(connected.isSuccess())
        .as("connected to %s: %s", endpoint.address(), connected.cause())
        .isTrue();
    channel = connected.channel();
  }

  /** Connects without saying anything. */
  static FakePeer connect(PluginEndpoint endpoint) throws InterruptedException {
    return new FakePeer(endpoint);
  }

  /** Connects, says HELLO and checks the STATUS answer's duplicate id. */
  static FakePeer hello(PluginEndpoint endpoint, Role role, String id) throws InterruptedException {
    FakePeer peer = new FakePeer(endpoint);
    peer.send(Message.Hello.of(role, id));
    Message.Status status = peer.next(Message.Status.class);
    assertThat(status.duplicateId()).isEqualTo(endpoint.duplicateId());
    peer.lastStatus = status;
    return peer;
  }

  private Message.Status lastStatus;

  /**
   * @return the STATUS that answered this peer's HELLO
   */
  Message.Status status() {
    return lastStatus;
  }

  void send(Message message) {
    channel.writeAndFlush(message).syncUninterruptibly();
  }

  /**
   * Sends {@code messages} with one flush, as the repeater sends a handoff's frames: one buffer,
   * one read.
   */
  void sendTogether(List<? extends Message> messages) {
    for (Message message : messages) {
      channel.write(message, channel.voidPromise());
    }
    channel.flush();
  }

  /**
   * @return bytes written to this connection that have not yet gone to the socket (the peer stopped
   *     reading)
   */
  long pendingWriteBytes() {
    ChannelOutboundBuffer buffer = channel.unsafe().outboundBuffer();
    return buffer == null ? 0 : buffer.totalPendingWriteBytes();
  }

  /**
   * @return the next message received, which must be of {@code type}, waiting at most {@link #WAIT}
   */
  <T extends Message> T next(Class<T> type) throws InterruptedException {
    Message message = received.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    assertThat(message).as("a %s within %s", type.getSimpleName(), WAIT).isNotNull();
    assertThat(message).as("the next message").isInstanceOf(type);
    return type.cast(message);
  }

  /**
   * @return the next message of {@code type}, skipping others, waiting at most {@link #WAIT} in all
   */
  <T extends Message> T nextOf(Class<T> type) throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (true) {
      long left = deadline - System.nanoTime();
      Message message = received.poll(Math.max(0, left), TimeUnit.NANOSECONDS);
      assertThat(message).as("a %s within %s", type.getSimpleName(), WAIT).isNotNull();
      if (type.isInstance(message)) {
        return type.cast(message);
      }
    }
  }

  /** Asserts that nothing arrives for {@code quiet}. */
  void expectNothing(Duration quiet) throws InterruptedException {
    Message message = received.poll(quiet.toMillis(), TimeUnit.MILLISECONDS);
    assertThat(message).as("nothing received within %s", quiet).isNull();
  }

  /**
   * @return whether the plugin closed the connection within {@link #WAIT}
   */
  boolean awaitClosed() throws InterruptedException {
    return channel.closeFuture().await(WAIT.toMillis());
  }

  @Override
  public void close() {
    channel.close().awaitUninterruptibly(WAIT.toMillis());
  }
}
