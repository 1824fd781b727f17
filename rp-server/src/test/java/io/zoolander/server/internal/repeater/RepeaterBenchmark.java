package io.zoolander.server.internal.repeater;

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
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.codec.LengthFieldPrepender;
import io.zoolander.server.repeater.RepeaterSettings;
import io.zoolander.wire.BookkeepingState;
import io.zoolander.wire.DuplicateState;
import io.zoolander.wire.Message;
import io.zoolander.wire.Op;
import io.zoolander.wire.PluginEndpoint;
import io.zoolander.wire.Role;
import io.zoolander.wire.WirePipeline;
import io.zoolander.wire.WireSettings;
import io.zoolander.wire.Znodes;
import io.zoolander.wire.internal.MessageEncoder;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Throughput of the repeater alone: clients pump WRITEs (one 16-byte setData each) as fast as TCP takes them, the
 * repeater sequences them and fans each out to 4 in-process sinks on loopback, which count SEQUENCED frames (checking
 * seq order without decoding the body) and ack once per read burst. Reports sequenced messages per second and the
 * sequencer thread's CPU time per message. Not a test.
 *
 * <pre>mvn -o -q -pl rp-server -am test-compile dependency:build-classpath -Dmdep.outputFile=/tmp/cp.txt \
 *     -Dmdep.includeScope=test
 * java -cp rp-server/target/test-classes:rp-server/target/classes:$(cat /tmp/cp.txt) \
 *     io.zoolander.server.internal.repeater.RepeaterBenchmark [messages] [clients]</pre>
 */
public final class RepeaterBenchmark {
  private static final int SINKS = 4;
  private static final int TYPE_HELLO = 1; // frame type bytes, see the io.zoolander.wire package table
  private static final int TYPE_SEQUENCED = 3;

  private RepeaterBenchmark() {}

  public static void main(String[] args) throws Exception {
    long messages = args.length > 0 ? Long.parseLong(args[0]) : 2_000_000;
    int clients = args.length > 1 ? Integer.parseInt(args[1]) : 2;
    long warmup = Math.max(200_000, messages / 4);
    EventLoopGroup sinkGroup = new NioEventLoopGroup(1);
    EventLoopGroup clientGroup = new NioEventLoopGroup(1);
    List<Sink> sinks = new ArrayList<>();
    List<DuplicateSource> sources = new ArrayList<>();
    for (int d = 1; d <= SINKS; d++) {
      Sink sink = new Sink(d);
      sink.start(sinkGroup);
      sinks.add(sink);
      sources.add(new StaticDuplicateSource(sink.endpoint(), BookkeepingState.INITIAL));
    }
    RepeaterCore repeater = new RepeaterCore(
        new CoreConfig("127.0.0.1", 0, 65_536, 10_000, OptionalLong.empty(), 1, Znodes.defaults(),
            RepeaterSettings.DEFAULT_JUTE_MAX_BUFFER_BYTES, RepeaterSettings.DEFAULT_PLUGIN_ACK_TIMEOUT_MILLIS),
        sources, null);
    repeater.start();
    try {
      while (!repeater.duplicates().stream().allMatch(v -> v.connectionState()
          == io.zoolander.server.repeater.ConnectionState.STREAMING)) {
        Thread.sleep(5);
      }
      ThreadMXBean threads = ManagementFactory.getThreadMXBean();
      long sequencerThread = Thread.getAllStackTraces().keySet().stream()
          .filter(t -> t.getName().startsWith("zoolander-repeater-sequencer")).findFirst().orElseThrow().getId();

      System.out.printf("warm-up: %,d messages%n", warmup);
      run(repeater, clientGroup, sinks, clients, warmup, 0, 1_000);
      for (int round = 1; round <= 3; round++) {
        long cpuBefore = threads.getThreadCpuTime(sequencerThread);
        long start = System.nanoTime();
        run(repeater, clientGroup, sinks, clients, messages, warmup + (round - 1) * messages, 1_000 * (round + 1));
        long nanos = System.nanoTime() - start;
        long cpu = threads.getThreadCpuTime(sequencerThread) - cpuBefore;
        System.out.printf("round %d: %,d messages to %d sinks in %.2f s: %,.0f sequenced messages/s"
                + " (%,.0f frames/s out); sequencer thread %.2f us CPU per message%n",
            round, messages, SINKS, nanos / 1e9, messages / (nanos / 1e9), SINKS * messages / (nanos / 1e9),
            cpu / 1e3 / messages);
      }
      for (Sink sink : sinks) {
        if (!sink.inOrder) {
          throw new AssertionError("sink " + sink.id + " saw a seq out of order");
        }
      }
    } finally {
      repeater.close();
      sinkGroup.shutdownGracefully().syncUninterruptibly();
      clientGroup.shutdownGracefully().syncUninterruptibly();
    }
  }

  /** Pumps {@code messages} WRITEs over {@code clients} connections and waits until every sink has them all. */
  private static void run(RepeaterCore repeater, EventLoopGroup group, List<Sink> sinks, int clients, long messages,
      long before, long firstClientId) throws InterruptedException {
    List<Channel> channels = new ArrayList<>();
    AtomicLong refused = new AtomicLong();
    for (int c = 0; c < clients; c++) {
      long share = messages / clients + (c < messages % clients ? 1 : 0);
      channels.add(Generator.connect(group, repeater.boundAddress(), firstClientId + c, share, refused));
    }
    long target = before + messages;
    for (Sink sink : sinks) {
      while (sink.count.get() < target) {
        if (refused.get() > 0) {
          throw new AssertionError(refused.get() + " writes refused");
        }
        Thread.sleep(1);
      }
    }
    for (Channel ch : channels) {
      ch.close().syncUninterruptibly();
    }
  }

  /** A client that writes as fast as its connection is writable. */
  private static final class Generator extends ChannelInboundHandlerAdapter {
    private final long clientId;
    private final long total;
    private final AtomicLong refused;
    private final List<Op> ops = List.of(Op.setData("/bench/key", new byte[16], -1));
    private long next;

    private Generator(long clientId, long total, AtomicLong refused) {
      this.clientId = clientId;
      this.total = total;
      this.refused = refused;
    }

    static Channel connect(EventLoopGroup group, InetSocketAddress address, long clientId, long total,
        AtomicLong refused) throws InterruptedException {
      return new Bootstrap()
          .group(group)
          .channel(NioSocketChannel.class)
          .option(ChannelOption.TCP_NODELAY, true)
          .handler(new ChannelInitializer<SocketChannel>() {
            @Override
            protected void initChannel(SocketChannel ch) {
              WirePipeline.install(ch.pipeline());
              ch.pipeline().addLast(new Generator(clientId, total, refused));
            }
          })
          .connect(address).sync().channel();
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
      ctx.write(Message.Hello.of(Role.CLIENT, Long.toString(clientId)));
      pump(ctx);
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
      pump(ctx);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      refused.incrementAndGet();
      System.err.println("refused: " + msg);
    }

    private void pump(ChannelHandlerContext ctx) {
      Channel ch = ctx.channel();
      while (ch.isWritable() && next < total) {
        ctx.write(new Message.Write(clientId, next++, ops), ctx.voidPromise());
        if ((next & 63) == 0) {
          ctx.flush();
        }
      }
      ctx.flush();
    }
  }

  /** A plugin stand-in that counts SEQUENCED frames without decoding them. */
  private static final class Sink {
    final int id;
    final AtomicLong count = new AtomicLong();
    volatile boolean inOrder = true;
    private Channel server;

    Sink(int id) {
      this.id = id;
    }

    void start(EventLoopGroup group) throws InterruptedException {
      server = new ServerBootstrap()
          .group(group)
          .channel(NioServerSocketChannel.class)
          .childOption(ChannelOption.TCP_NODELAY, true)
          .childHandler(new ChannelInitializer<SocketChannel>() {
            @Override
            protected void initChannel(SocketChannel ch) {
              int lengthBytes = WireSettings.LENGTH_FIELD_BYTES;
              ch.pipeline().addLast(new LengthFieldBasedFrameDecoder(WireSettings.DEFAULT_MAX_FRAME_BYTES, 0,
                  lengthBytes, 0, lengthBytes));
              ch.pipeline().addLast(new LengthFieldPrepender(lengthBytes));
              ch.pipeline().addLast(new MessageEncoder(WireSettings.DEFAULT_MAX_FRAME_BYTES));
              ch.pipeline().addLast(new Handler());
            }
          })
          .bind("127.0.0.1", 0).sync().channel();
    }

    PluginEndpoint endpoint() {
      return new PluginEndpoint(id, 1, "127.0.0.1", ((InetSocketAddress) server.localAddress()).getPort());
    }

    private final class Handler extends ChannelInboundHandlerAdapter {
      private long lastSeq;
      private long ackedSeq;

      @Override
      public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf frame = (ByteBuf) msg;
        try {
          int type = frame.getByte(frame.readerIndex() + 1);
          if (type == TYPE_SEQUENCED) {
            long seq = frame.getLong(frame.readerIndex() + 2 + 8); // [version][type][epoch][seq]
            if (seq != lastSeq + 1) {
              inOrder = false;
            }
            lastSeq = seq;
            count.incrementAndGet();
          } else if (type == TYPE_HELLO) {
            ctx.writeAndFlush(new Message.Status(id, 0, lastSeq, DuplicateState.ACTIVE));
          }
        } finally {
          frame.release();
        }
      }

      @Override
      public void channelReadComplete(ChannelHandlerContext ctx) {
        if (lastSeq > ackedSeq) {
          ackedSeq = lastSeq;
          ctx.writeAndFlush(new Message.Ack(id, 1, lastSeq));
        }
      }
    }
  }
}
