package io.zoolander.server.repeater;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.zoolander.wire.DuplicateState;
import io.zoolander.wire.ErrorCode;
import io.zoolander.wire.Message;
import io.zoolander.wire.PluginEndpoint;
import io.zoolander.wire.Role;
import io.zoolander.wire.WirePipeline;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A test-side plugin speaking the wire protocol: answers the repeater's HELLO with STATUS,
 * "applies" SEQUENCED messages in seq order (recording every one it receives, replays and
 * retransmissions included), acks once per read burst, and can be told to send RETRANSMIT or ERROR,
 * refuse with STALE_EPOCH, or stop reading.
 *
 * <p>Not a {@code ScriptedPeer} (zoolander-test-support): it is a behavioural model of a plugin,
 * not a script. It keeps a duplicate's durable state across successive plugins ({@link Durable}),
 * applies in seq order, acks once per read burst ({@code channelReadComplete}, which the repeater's
 * batching tests depend on), serves RETRANSMIT and state transfers from what it applied, and stalls
 * by turning its connection's auto-read off; a scripted peer answers message by message and always
 * reads.
 */
final class FakePlugin implements AutoCloseable {

  /**
   * What survives a plugin: the duplicate's applied state, shared by successive plugins (leaders)
   * of a duplicate.
   */
  static final class Durable {
    final AtomicLong appliedSeq = new AtomicLong();
    volatile long epoch;
    final List<Message.Sequenced> applied = Collections.synchronizedList(new ArrayList<>());

    Durable() {}

    Durable(long epoch, long appliedSeq) {
      this.epoch = epoch;
      this.appliedSeq.set(appliedSeq);
    }
  }

  final int duplicateId;
  final long serverId;
  final Durable durable;
  final List<Message.Sequenced> received = Collections.synchronizedList(new ArrayList<>());
  final List<Message.Error> errors = Collections.synchronizedList(new ArrayList<>());
  final AtomicInteger hellos = new AtomicInteger();
  volatile boolean autoAck = true;
  volatile boolean refuseWithStaleEpoch;

  /** How many of the next HELLOs to answer with an ACK instead of STATUS (a protocol violation). */
  final AtomicInteger misbehave = new AtomicInteger();

  /**
   * Apply nothing beyond this seq (a duplicate falling behind; what it receives is recorded all the
   * same).
   */
  volatile long applyUpTo = Long.MAX_VALUE;

  /** TRANSFER_REQUESTs received (this plugin as the source of a state transfer). */
  final List<Message.TransferRequest> transferRequests =
      Collections.synchronizedList(new ArrayList<>());

  /** TRANSFER_CHUNKs received (this plugin rejoining). */
  final List<Message.TransferChunk> chunks = Collections.synchronizedList(new ArrayList<>());

  /** Answer TRANSFER_REQUEST with ERROR(TRANSFER_TOO_LARGE) instead of a snapshot. */
  volatile boolean refuseTransfer;

  /** When set, the last chunk of a snapshot goes only once this completes (a slow transfer). */
  volatile CompletableFuture<Void> holdLastChunk;

  /** Stop reading the connection after this many SEQUENCED messages (a stalled duplicate). */
  volatile int stopReadingAfter = Integer.MAX_VALUE;

  private final EventLoopGroup group;
  private Channel server;
  private volatile Channel current;

  FakePlugin(EventLoopGroup group, int duplicateId, long serverId, Durable durable) {
    this.group = group;
    this.duplicateId = duplicateId;
    this.serverId = serverId;
    this.durable = durable;
  }

  PluginEndpoint start() throws InterruptedException {
    server =
        new ServerBootstrap()
            .group(group)
            .channel(NioServerSocketChannel.class)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    WirePipeline.install(ch.pipeline());
                    ch.pipeline().addLast(new Handler());
                  }
                })
            .bind("127.0.0.1", 0)
            .sync()
            .channel();
    return endpoint();
  }

  PluginEndpoint endpoint() {
    return new PluginEndpoint(
        duplicateId, serverId, "127.0.0.1", ((InetSocketAddress) server.localAddress()).getPort());
  }

  /** Sends a message on the current repeater connection. */
  void send(Message m) {
    current.writeAndFlush(m);
  }

  /** Drops the repeater's connection, as a plugin restart would. */
  void dropConnection() {
    current.close().syncUninterruptibly();
  }

  boolean connected() {
    Channel c = current;
    return c != null && c.isActive();
  }

  List<Long> receivedSeqs() {
    synchronized (received) {
      return received.stream().map(Message.Sequenced::seq).toList();
    }
  }

  List<Long> appliedSeqs() {
    synchronized (durable.applied) {
      return durable.applied.stream().map(Message.Sequenced::seq).toList();
    }
  }

  @Override
  public void close() {
    Channel c = current;
    if (c != null) {
      c.close().syncUninterruptibly();
    }
    if (server != null) {
      server.close().syncUninterruptibly();
    }
  }

  @Override
  public String toString() {
    return "FakePlugin[duplicate "
        + duplicateId
        + ", server "
        + serverId
        + ", applied "
        + durable.appliedSeq
        + ", received "
        + received.size()
        + ", errors "
        + errors
        + "]";
  }

  private final class Handler extends ChannelInboundHandlerAdapter {
    private boolean ackDue;
    private int sequencedSeen;

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      Message m = (Message) msg;
      if (m instanceof Message.Hello h && h.role() == Role.REPEATER) {
        current = ctx.channel();
        hellos.incrementAndGet();
        if (misbehave.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
          ctx.writeAndFlush(new Message.Ack(duplicateId, durable.epoch, durable.appliedSeq.get()));
          return;
        }
        ctx.writeAndFlush(
            new Message.Status(
                duplicateId, durable.epoch, durable.appliedSeq.get(), DuplicateState.ACTIVE));
      } else if (m instanceof Message.Sequenced s) {
        received.add(s);
        if (++sequencedSeen >= stopReadingAfter) {
          ctx.channel().config().setAutoRead(false);
        }
        if (refuseWithStaleEpoch) {
          ctx.writeAndFlush(
              Message.Error.of(ErrorCode.STALE_EPOCH, "a newer repeater has written here"));
        } else if (s.seq() == durable.appliedSeq.get() + 1
            && s.epoch() >= durable.epoch
            && s.seq() <= applyUpTo) {
          durable.applied.add(s);
          durable.epoch = s.epoch();
          durable.appliedSeq.set(s.seq());
          ackDue = true;
        }
      } else if (m instanceof Message.Retransmit r) {
        // A repeater taking over asks for what this duplicate applied: send what it holds, then
        // STATUS.
        synchronized (durable.applied) {
          durable.applied.stream()
              .filter(s -> s.seq() >= r.fromSeq() && s.seq() <= r.toSeq())
              .forEach(ctx::write);
        }
        ctx.writeAndFlush(
            new Message.Status(
                duplicateId, durable.epoch, durable.appliedSeq.get(), DuplicateState.ACTIVE));
      } else if (m instanceof Message.TransferRequest t) {
        transferRequests.add(t);
        if (refuseTransfer) {
          ctx.writeAndFlush(
              Message.Error.forRequest(ErrorCode.TRANSFER_TOO_LARGE, t.transferId(), "too large"));
          return;
        }
        // A snapshot in two chunks: the state at this duplicate's applied seq.
        long seq = durable.appliedSeq.get();
        ctx.write(
            new Message.TransferChunk(
                t.transferId(),
                duplicateId,
                durable.epoch,
                seq,
                seq,
                0,
                2,
                List.of(new Message.TransferChunk.Node("/zoolander/data", new byte[0], 0, 1))));
        ctx.flush();
        Message.TransferChunk lastChunk =
            new Message.TransferChunk(
                t.transferId(),
                duplicateId,
                durable.epoch,
                seq,
                seq,
                1,
                2,
                List.of(
                    new Message.TransferChunk.Node(
                        "/zoolander/data/a", new byte[] {1, 2, 3}, 4, 0)));
        CompletableFuture<Void> hold = holdLastChunk;
        if (hold == null) {
          ctx.writeAndFlush(lastChunk);
        } else {
          hold.thenRun(() -> ctx.writeAndFlush(lastChunk));
        }
      } else if (m instanceof Message.TransferChunk c) {
        chunks.add(c);
        if (c.last()) { // installed: the duplicate is now at the snapshot's seq
          synchronized (durable.applied) {
            durable.applied.clear();
          }
          durable.epoch = Math.max(durable.epoch, c.epoch());
          durable.appliedSeq.set(c.appliedSeq());
          ctx.writeAndFlush(
              new Message.Status(
                  duplicateId, durable.epoch, c.appliedSeq(), DuplicateState.CATCHING_UP));
        }
      } else if (m instanceof Message.Error e) {
        errors.add(e);
      }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
      if (ackDue && autoAck) {
        ackDue = false;
        ctx.writeAndFlush(new Message.Ack(duplicateId, durable.epoch, durable.appliedSeq.get()));
      }
    }
  }
}
