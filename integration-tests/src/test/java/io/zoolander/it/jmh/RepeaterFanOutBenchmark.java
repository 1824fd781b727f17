package io.zoolander.it.jmh;

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
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.zoolander.server.internal.repeater.CoreConfig;
import io.zoolander.server.internal.repeater.DuplicateSource;
import io.zoolander.server.internal.repeater.RepeaterCore;
import io.zoolander.server.repeater.LinkState;
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
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Sequenced messages per second through the real repeater ({@link RepeaterCore}: client I/O thread,
 * sequencer, retransmission log, back-pressure) fanned out to 4 in-process sinks over loopback TCP;
 * one op is one message sequenced and received by all 4 sinks.
 *
 * <p>In the measured path: clients encoding WRITEs (one setData each) and writing them over
 * loopback TCP, the repeater decoding them and handing each read burst to the sequencer, the
 * sequencer encoding one SEQUENCED frame, appending it to the log and writing it to 4 plugin
 * connections, the sinks reading the frames (checking seq order from the header, not decoding the
 * body) and acking once per read burst, and the repeater trimming its log on those acks. Not in it:
 * ZooKeeper, the plugins' apply and their REPLY to the client, and the client SDK's futures (the
 * clients are raw wire connections). Everything, including the sinks, runs in this one JVM on the
 * same cores.
 *
 * <p>Each invocation hands {@value #BATCH} WRITEs to the clients and returns once every sink has
 * received all WRITEs of the <em>previous</em> invocation: one batch is always in flight, so the
 * pipeline never drains between invocations. The secondary results are how busy each thread
 * involved was (percent of one core), which show where the time goes.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
    value = 1,
    jvmArgsPrepend = {"-Xms1g", "-Xmx1g"}) // prepend: -jvmArgsAppend on the command line keeps them
@Threads(1)
@OperationsPerInvocation(RepeaterFanOutBenchmark.BATCH)
public class RepeaterFanOutBenchmark {
  static final int BATCH = 20_000;
  private static final int SINKS = 4;
  private static final long CONNECT_TIMEOUT_MILLIS = 10_000;

  /** A batch that does not arrive within this is a failure, not a slow result. */
  private static final long BATCH_TIMEOUT_MILLIS = 30_000;

  private static final long POLL_NANOS = 50_000;
  private static final int TYPE_HELLO =
      1; // frame type bytes, see the io.zoolander.wire package table
  private static final int TYPE_SEQUENCED = 3;

  /** Client connections writing to the repeater. */
  @Param("2")
  public int clients;

  /** Size of each setData's data. */
  @Param("16")
  public int dataBytes;

  private EventLoopGroup sinkGroup;
  private EventLoopGroup clientGroup;
  private final List<Sink> sinks = new ArrayList<>();
  private final List<Generator> generators = new ArrayList<>();
  private final List<Channel> clientChannels = new ArrayList<>();
  private final AtomicLong refused = new AtomicLong();
  private RepeaterCore repeater;
  private long[] threadIds;

  /** WRITEs handed to the clients so far. */
  private long sent;

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    sinkGroup = new NioEventLoopGroup(1, new DefaultThreadFactory("bench-sinks", true));
    clientGroup = new NioEventLoopGroup(1, new DefaultThreadFactory("bench-clients", true));
    List<DuplicateSource> sources = new ArrayList<>();
    for (int d = 1; d <= SINKS; d++) {
      Sink sink = new Sink(d);
      sink.start(sinkGroup);
      sinks.add(sink);
      sources.add(new FixedDuplicate(sink.endpoint()));
    }
    repeater =
        new RepeaterCore(
            new CoreConfig(
                RepeaterSettings.DEFAULT_CLIENT_HOST,
                0,
                RepeaterSettings.DEFAULT_LOG_CAPACITY_MESSAGES,
                CONNECT_TIMEOUT_MILLIS,
                OptionalLong.empty(),
                RepeaterSettings.DEFAULT_CLIENT_IO_THREADS,
                Znodes.defaults(),
                RepeaterSettings.DEFAULT_JUTE_MAX_BUFFER_BYTES,
                RepeaterSettings.DEFAULT_PLUGIN_ACK_TIMEOUT_MILLIS),
            sources,
            null);
    repeater.start();
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(CONNECT_TIMEOUT_MILLIS);
    while (!repeater.duplicates().stream().allMatch(v -> v.linkState() == LinkState.STREAMING)) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "the repeater did not stream to every sink: " + repeater.duplicates());
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
    }
    List<Op> ops = List.of(Op.setData("/bench/key", new byte[dataBytes], -1));
    for (int c = 0; c < clients; c++) {
      Generator generator = new Generator(1_000 + c, ops, refused);
      generators.add(generator);
      clientChannels.add(generator.connect(clientGroup, repeater.boundAddress()));
    }
    threadIds =
        new long[] {
          threadId("zoolander-repeater-clients"),
          threadId("zoolander-repeater-sequencer"),
          clientGroup.submit(() -> Thread.currentThread().getId()).get(),
          sinkGroup.submit(() -> Thread.currentThread().getId()).get()
        };
  }

  @TearDown(Level.Trial)
  public void tearDown() throws InterruptedException {
    try {
      awaitSinks(sent);
    } finally {
      for (Channel ch : clientChannels) {
        ch.close().syncUninterruptibly();
      }
      if (repeater != null) {
        repeater.close();
      }
      sinkGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
      clientGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
  }

  @Benchmark
  public long sequenceAndFanOut(CoreUsePercent cpu) throws InterruptedException {
    for (int c = 0; c < clients; c++) {
      generators.get(c).add(BATCH / clients + (c < BATCH % clients ? 1 : 0));
    }
    long previous = sent;
    sent += BATCH;
    awaitSinks(previous);
    cpu.update(this);
    return previous;
  }

  /**
   * Waits, bounded, until every sink has received {@code target} messages in seq order and none was
   * refused.
   */
  private void awaitSinks(long target) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(BATCH_TIMEOUT_MILLIS);
    for (Sink sink : sinks) {
      while (sink.received < target) {
        if (refused.get() > 0) {
          throw new IllegalStateException(refused.get() + " WRITEs refused by the repeater");
        }
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(
              "sink "
                  + sink.id
                  + " received "
                  + sink.received
                  + " of "
                  + target
                  + " messages within "
                  + BATCH_TIMEOUT_MILLIS
                  + " ms");
        }
        LockSupport.parkNanos(POLL_NANOS);
        if (Thread.interrupted()) {
          throw new InterruptedException();
        }
      }
      if (!sink.inOrder) {
        throw new IllegalStateException("sink " + sink.id + " received a seq out of order");
      }
    }
  }

  /**
   * CPU time so far of the repeater's client I/O thread, its sequencer, the clients' and the sinks'
   * loops.
   */
  private long[] cpuTimes() {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    long[] times = new long[threadIds.length];
    for (int i = 0; i < threadIds.length; i++) {
      times[i] = threads.getThreadCpuTime(threadIds[i]);
    }
    return times;
  }

  private static long threadId(String namePrefix) {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().startsWith(namePrefix))
        .findFirst()
        .orElseThrow(() -> new IllegalStateException("no thread named " + namePrefix + "*"))
        .getId();
  }

  /**
   * Per thread, the percentage of one core it used over the iteration (JMH labels these rates
   * "ops/s": its counters are rates or sums, and a sum over iterations of per-message figures would
   * mean nothing). A thread near 100 is the bottleneck; CPU time per message is {@code percent *
   * 10^7 / messages per second} ns.
   */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.OPERATIONS)
  public static class CoreUsePercent {
    private static final double NANOS_PER_PERCENT_SECOND = 1e7;

    /**
     * The repeater's client I/O thread: reading and decoding WRITEs, handing them to the sequencer.
     */
    public double repeaterClientIoPct;

    /**
     * The repeater's sequencer: SEQUENCED encoding, log, 4 socket writes and flushes, acks and
     * trimming.
     */
    public double sequencerPct;

    /** The clients' loop: building and encoding WRITEs, writing them. */
    public double clientsPct;

    /** The sinks' loop: reading 4 streams of frames, acking. */
    public double sinksPct;

    private long[] start;

    @Setup(Level.Iteration)
    public void start(RepeaterFanOutBenchmark bench) {
      start = bench.cpuTimes();
      repeaterClientIoPct = 0;
      sequencerPct = 0;
      clientsPct = 0;
      sinksPct = 0;
    }

    /** JMH divides what these hold at the end of the iteration by its duration. */
    void update(RepeaterFanOutBenchmark bench) {
      long[] now = bench.cpuTimes();
      repeaterClientIoPct = (now[0] - start[0]) / NANOS_PER_PERCENT_SECOND;
      sequencerPct = (now[1] - start[1]) / NANOS_PER_PERCENT_SECOND;
      clientsPct = (now[2] - start[2]) / NANOS_PER_PERCENT_SECOND;
      sinksPct = (now[3] - start[3]) / NANOS_PER_PERCENT_SECOND;
    }
  }

  /** A duplicate whose plugin is a sink: fresh state, a fixed endpoint, no ZooKeeper. */
  private record FixedDuplicate(PluginEndpoint endpoint) implements DuplicateSource {
    @Override
    public int duplicateId() {
      return endpoint.duplicateId();
    }

    @Override
    public String connectString() {
      return "sink:" + endpoint.address();
    }

    @Override
    public BookkeepingState readState(long timeoutMillis) {
      return BookkeepingState.INITIAL;
    }

    @Override
    public Claim claim(long epoch, long timeoutMillis) {
      return new Claim(
          new BookkeepingState(epoch, BookkeepingState.INITIAL.appliedSeq()),
          Optional.of(endpoint));
    }

    @Override
    public void watchEndpoint(Consumer<Optional<PluginEndpoint>> listener) {
      listener.accept(Optional.of(endpoint));
    }

    @Override
    public void close() {}
  }

  /** A client connection that writes its share of WRITEs as fast as the connection takes them. */
  private static final class Generator extends ChannelInboundHandlerAdapter {
    private final long clientId;
    private final List<Op> ops;
    private final AtomicLong refused;
    private volatile ChannelHandlerContext ctx;
    // On the client loop.
    private long next;
    private long total;

    Generator(long clientId, List<Op> ops, AtomicLong refused) {
      this.clientId = clientId;
      this.ops = ops;
      this.refused = refused;
    }

    Channel connect(EventLoopGroup group, InetSocketAddress address) throws InterruptedException {
      Generator self = this;
      return new Bootstrap()
          .group(group)
          .channel(NioSocketChannel.class)
          .option(ChannelOption.TCP_NODELAY, true)
          .handler(
              new ChannelInitializer<SocketChannel>() {
                @Override
                protected void initChannel(SocketChannel ch) {
                  WirePipeline.install(ch.pipeline());
                  ch.pipeline().addLast(self);
                }
              })
          .connect(address)
          .sync()
          .channel();
    }

    /** Any thread: write {@code messages} more. */
    void add(long messages) {
      ctx.executor()
          .execute(
              () -> {
                total += messages;
                pump();
              });
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
      ctx.writeAndFlush(Message.Hello.of(Role.CLIENT, Long.toString(clientId)));
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
      pump();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      refused.incrementAndGet(); // the repeater answers a WRITE only to refuse it
      ReferenceCountUtil.release(msg);
    }

    private void pump() {
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

  /**
   * A plugin stand-in: answers HELLO with STATUS, counts SEQUENCED frames without decoding them,
   * acks per burst.
   */
  private static final class Sink {
    final int id;
    volatile long received;
    volatile boolean inOrder = true;
    private Channel server;

    Sink(int id) {
      this.id = id;
    }

    void start(EventLoopGroup group) throws InterruptedException {
      server =
          new ServerBootstrap()
              .group(group)
              .channel(NioServerSocketChannel.class)
              .childOption(ChannelOption.TCP_NODELAY, true)
              .childHandler(
                  new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                      int lengthBytes = WireSettings.LENGTH_FIELD_BYTES;
                      ch.pipeline()
                          .addLast(
                              new LengthFieldBasedFrameDecoder(
                                  WireSettings.DEFAULT_MAX_FRAME_BYTES,
                                  0,
                                  lengthBytes,
                                  0,
                                  lengthBytes));
                      ch.pipeline().addLast(new LengthFieldPrepender(lengthBytes));
                      ch.pipeline()
                          .addLast(new MessageEncoder(WireSettings.DEFAULT_MAX_FRAME_BYTES));
                      ch.pipeline().addLast(new Handler());
                    }
                  })
              .bind("127.0.0.1", 0)
              .sync()
              .channel();
    }

    PluginEndpoint endpoint() {
      return new PluginEndpoint(
          id, 1, "127.0.0.1", ((InetSocketAddress) server.localAddress()).getPort());
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
          received = lastSeq;
          ctx.writeAndFlush(new Message.Ack(id, 1, lastSeq));
        }
      }
    }
  }
}
