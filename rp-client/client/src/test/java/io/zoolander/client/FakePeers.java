package io.zoolander.client;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.zoolander.wire.DuplicateState;
import io.zoolander.wire.Message;
import io.zoolander.wire.WirePipeline;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

/**
 * Test-side peers speaking the real wire protocol over real sockets on 127.0.0.1: a repeater that
 * records WRITEs, and plugins whose answers the test scripts. The component under test is the real
 * client.
 */
final class FakePeers implements AutoCloseable {
  private final EventLoopGroup group = new NioEventLoopGroup(1);
  private final List<AutoCloseable> servers = new CopyOnWriteArrayList<>();

  /** A peer: records what it received and lets the test answer on the last client connection. */
  final class Peer implements AutoCloseable {
    final List<Message> received = new CopyOnWriteArrayList<>();
    final int duplicateId;
    volatile Channel client;
    volatile BiConsumer<Peer, Message> onMessage = (p, m) -> {};
    private final Channel server;
    volatile long appliedSeq;

    Peer(int duplicateId) throws InterruptedException {
      this.duplicateId = duplicateId;
      this.server =
          new ServerBootstrap()
              .group(group)
              .channel(NioServerSocketChannel.class)
              .childHandler(
                  new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                      WirePipeline.install(ch.pipeline())
                          .addLast(
                              new SimpleChannelInboundHandler<Message>() {
                                @Override
                                protected void channelRead0(
                                    ChannelHandlerContext ctx, Message msg) {
                                  received.add(msg);
                                  if (msg instanceof Message.Hello) {
                                    client = ctx.channel();
                                    if (Peer.this.duplicateId >= 0) {
                                      ctx.writeAndFlush(
                                          new Message.Status(
                                              Peer.this.duplicateId,
                                              1,
                                              appliedSeq,
                                              DuplicateState.ACTIVE));
                                    }
                                  } else {
                                    onMessage.accept(Peer.this, msg);
                                  }
                                }
                              });
                    }
                  })
              .bind("127.0.0.1", 0)
              .sync()
              .channel();
      servers.add(this);
    }

    int port() {
      return ((java.net.InetSocketAddress) server.localAddress()).getPort();
    }

    void send(Message m) {
      client.writeAndFlush(m);
    }

    void sendLater(Message m, long delayMs) {
      group.schedule(() -> send(m), delayMs, TimeUnit.MILLISECONDS);
    }

    <T extends Message> List<T> received(Class<T> type) {
      return received.stream().filter(type::isInstance).map(type::cast).toList();
    }

    /** Drops the client connection (the client reconnects). */
    void dropClient() {
      client.close();
    }

    @Override
    public void close() throws InterruptedException {
      server.close().sync();
      if (client != null) {
        client.close().sync();
      }
    }
  }

  /** A fake repeater: answers nothing on HELLO (the real one does not either). */
  Peer repeater() throws InterruptedException {
    return new Peer(-1);
  }

  Peer plugin(int duplicateId) throws InterruptedException {
    return new Peer(duplicateId);
  }

  @Override
  public void close() throws Exception {
    for (AutoCloseable s : servers) {
      s.close();
    }
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
  }
}
