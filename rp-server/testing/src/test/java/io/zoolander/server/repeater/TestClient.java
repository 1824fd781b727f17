package io.zoolander.server.repeater;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.zoolander.wire.Message;
import io.zoolander.wire.Op;
import io.zoolander.wire.Role;
import io.zoolander.wire.WirePipeline;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A test-side client of the repeater: sends HELLO (unless raw) and WRITEs, records the ERRORs it
 * gets back.
 */
final class TestClient implements AutoCloseable {
  final long clientId;
  final Channel channel;
  final List<Message.Error> errors = Collections.synchronizedList(new ArrayList<>());

  private TestClient(EventLoopGroup group, InetSocketAddress repeater, long clientId, boolean hello)
      throws InterruptedException {
    this.clientId = clientId;
    this.channel =
        new Bootstrap()
            .group(group)
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
                              protected void channelRead0(ChannelHandlerContext ctx, Message m) {
                                if (m instanceof Message.Error e) {
                                  errors.add(e);
                                }
                              }
                            });
                  }
                })
            .connect(repeater)
            .sync()
            .channel();
    if (hello) {
      channel.writeAndFlush(Message.Hello.of(Role.CLIENT, Long.toString(clientId)));
    }
  }

  static TestClient connect(EventLoopGroup group, InetSocketAddress repeater, long clientId)
      throws InterruptedException {
    return new TestClient(group, repeater, clientId, true);
  }

  /** Connects without sending HELLO. */
  static TestClient raw(EventLoopGroup group, InetSocketAddress repeater)
      throws InterruptedException {
    return new TestClient(group, repeater, 0, false);
  }

  static Message.Write write(long clientId, long requestId) {
    return new Message.Write(
        clientId,
        requestId,
        List.of(
            Op.setData(
                "/k", ("c" + clientId + "r" + requestId).getBytes(StandardCharsets.UTF_8), -1)));
  }

  void write(long requestId) {
    channel.writeAndFlush(write(clientId, requestId));
  }

  void send(Message m) {
    channel.writeAndFlush(m);
  }

  @Override
  public void close() {
    channel.close().syncUninterruptibly();
  }
}
