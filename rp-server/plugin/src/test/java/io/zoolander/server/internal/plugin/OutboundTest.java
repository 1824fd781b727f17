package io.zoolander.server.internal.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.zoolander.wire.BookkeepingState;
import io.zoolander.wire.Message;
import io.zoolander.wire.Op;
import io.zoolander.wire.OpResult;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A batch's REPLYs leave in one task and one flush per client connection, in seq order, each with
 * its own write's results; a client without a connection gets nothing and costs the others nothing.
 */
class OutboundTest {

  /** Counts the flushes that reach the channel. */
  private static final class FlushCounter extends ChannelOutboundHandlerAdapter {
    int flushes;

    @Override
    public void flush(ChannelHandlerContext ctx) {
      flushes++;
      ctx.flush();
    }
  }

  /** Duplicate 3's outbound messages to {@code peers}. */
  private static Outbound outbound(Peers peers) {
    return new Outbound(
        3,
        peers,
        new ApplierState(
            new ApplierThread("outbound-test"),
            new GapTracker(16, 0),
            new BookkeepingState(1, 0),
            0));
  }

  private static Message.Sequenced write(long seq, long clientId, long requestId) {
    return new Message.Sequenced(1, seq, clientId, requestId, List.of(Op.delete("/k" + seq, -1)));
  }

  @Test
  void aBatchsRepliesGoInOneFlushPerClientInSeqOrder() {
    FlushCounter aFlushes = new FlushCounter();
    FlushCounter bFlushes = new FlushCounter();
    EmbeddedChannel a = new EmbeddedChannel(aFlushes);
    EmbeddedChannel b = new EmbeddedChannel(bFlushes);
    Peers peers = new Peers();
    peers.addClient(10, a);
    peers.addClient(20, b);
    Outbound out = outbound(peers);
    List<Message.Sequenced> writes =
        List.of(write(5, 10, 1), write(6, 20, 1), write(7, 10, 2), write(8, 30, 1));
    List<List<OpResult>> results = new ArrayList<>();
    for (int i = 0; i < writes.size(); i++) {
      results.add(List.of(new OpResult.Failed(org.apache.zookeeper.KeeperException.Code.NONODE)));
    }
    results.set(0, List.of(new OpResult.Deleted()));

    out.sendReplies(writes, results);
    a.runPendingTasks();
    b.runPendingTasks();

    Message.Reply first = a.readOutbound();
    Message.Reply second = a.readOutbound();
    assertThat(first).isEqualTo(new Message.Reply(10, 1, 5, 3, List.of(new OpResult.Deleted())));
    assertThat(second).isEqualTo(new Message.Reply(10, 2, 7, 3, results.get(2)));
    assertThat((Object) a.readOutbound()).isNull();
    assertThat(aFlushes.flushes).as("one flush for both of client 10's replies").isEqualTo(1);

    assertThat((Message.Reply) b.readOutbound())
        .isEqualTo(new Message.Reply(20, 1, 6, 3, results.get(1)));
    assertThat((Object) b.readOutbound()).isNull();
    assertThat(bFlushes.flushes).isEqualTo(1);
  }

  @Test
  void repliesToAConnectionWhoseEventLoopIsShuttingDownAreDropped() throws Exception {
    io.netty.channel.DefaultEventLoop stopped = new io.netty.channel.DefaultEventLoop();
    stopped.shutdownGracefully(0, 0, java.util.concurrent.TimeUnit.SECONDS).sync();
    EmbeddedChannel closing =
        new EmbeddedChannel() {
          @Override
          public io.netty.channel.EventLoop eventLoop() {
            return stopped; // as when the plugin closes while ZooKeeper's thread replies
          }
        };
    Peers peers = new Peers();
    peers.addClient(10, closing);
    Outbound out = outbound(peers);

    out.sendReplies(List.of(write(5, 10, 1)), List.of(List.of(new OpResult.Deleted())));

    assertThat((Object) closing.readOutbound()).isNull();
  }
}
