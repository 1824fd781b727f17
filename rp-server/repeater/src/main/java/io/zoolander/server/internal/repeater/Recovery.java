package io.zoolander.server.internal.repeater;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.SocketChannel;
import io.zoolander.server.internal.security.LinkSecurity;
import io.zoolander.server.repeater.RepeaterSettings;
import io.zoolander.wire.Credential;
import io.zoolander.wire.Message;
import io.zoolander.wire.PluginEndpoint;
import io.zoolander.wire.Role;
import io.zoolander.wire.WirePipeline;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a repeater taking over does between claiming its epoch and sequencing: the writes that the
 * most advanced duplicates applied and the others did not (sent by the old repeater, whose log died
 * with it) are fetched from the most advanced duplicates' plugins, which keep the writes they
 * applied recently, so that the new repeater can stream them to the lagging duplicates again.
 *
 * <p>The recovered run is contiguous and ends at the highest applied seq. A lagging duplicate that
 * needs a write before the run (no duplicate holds it any more, or its plugin could not be reached)
 * is fenced when it connects, like any duplicate that needs a write the log does not hold.
 */
final class Recovery {
  private static final Logger LOG = LoggerFactory.getLogger(Recovery.class);

  /**
   * Fetches the writes a duplicate applied in {@code fromSeq..toSeq} that its plugin still holds,
   * in seq order.
   */
  @FunctionalInterface
  interface Fetcher {
    List<Message.Sequenced> fetch(int duplicateId, long fromSeq, long toSeq)
        throws InterruptedException;
  }

  private Recovery() {}

  /**
   * Plans and runs the recovery: the most advanced duplicate is asked for everything some duplicate
   * lacks (at most {@code capacity} writes, the newest), then, if it no longer held the oldest of
   * them, the next most advanced for the rest, and so on while a duplicate has applied what is
   * still missing.
   *
   * @param applied each duplicate's applied seq, as claimed
   * @param capacity most writes to recover (the log's capacity)
   * @return the recovered writes: a contiguous run ending at the highest applied seq, empty if none
   *     is needed or none could be fetched
   */
  static List<Message.Sequenced> recover(Map<Integer, Long> applied, int capacity, Fetcher fetcher)
      throws InterruptedException {
    if (applied.isEmpty()) {
      return List.of();
    }
    long highest = applied.values().stream().mapToLong(Long::longValue).max().orElseThrow();
    long lowest = applied.values().stream().mapToLong(Long::longValue).min().orElseThrow();
    long from = Math.max(lowest + 1, highest - capacity + 1);
    List<Map.Entry<Integer, Long>> byProgress = new ArrayList<>(applied.entrySet());
    byProgress.sort(Map.Entry.<Integer, Long>comparingByValue(Comparator.reverseOrder()));
    List<List<Message.Sequenced>> runs = new ArrayList<>(); // newest first
    long top = highest; // everything after top is recovered
    for (Map.Entry<Integer, Long> duplicate : byProgress) {
      if (top < from || duplicate.getValue() < top) {
        break; // nothing missing, or no duplicate left that applied what is
      }
      List<Message.Sequenced> run = endingAt(fetcher.fetch(duplicate.getKey(), from, top), top);
      if (!run.isEmpty()) {
        LOG.info(
            "recovered writes {}..{} from duplicate {}", run.get(0).seq(), top, duplicate.getKey());
        runs.add(run);
        top = run.get(0).seq() - 1;
      }
    }
    List<Message.Sequenced> recovered = new ArrayList<>();
    for (int i = runs.size() - 1; i >= 0; i--) {
      recovered.addAll(runs.get(i));
    }
    return recovered;
  }

  /**
   * The longest contiguous suffix of {@code writes} that ends at {@code top}; empty if it does not
   * end there.
   */
  static List<Message.Sequenced> endingAt(List<Message.Sequenced> writes, long top) {
    int end = writes.size() - 1;
    if (end < 0 || writes.get(end).seq() != top) {
      return List.of();
    }
    int start = end;
    while (start > 0 && writes.get(start - 1).seq() == writes.get(start).seq() - 1) {
      start--;
    }
    return List.copyOf(writes.subList(start, end + 1));
  }

  /**
   * Asks the plugin at {@code endpoint}, on a connection of its own, for the writes it applied in
   * {@code fromSeq..toSeq}: HELLO(REPEATER), then RETRANSMIT once the plugin answers STATUS; the
   * plugin sends the SEQUENCED writes it holds in the range, then a STATUS. The connection is
   * secured as the repeater's own plugin connections are: TLS if on, and a CHALLENGE answered with
   * the repeater's credential (the plugin serves RETRANSMIT only to an authenticated REPEATER).
   *
   * @param security the repeater's TLS and credential
   * @param epoch the repeater's new epoch, sent in the RETRANSMIT
   * @throws IOException if the plugin cannot be reached or answers otherwise
   * @throws TimeoutException if the answer does not end within {@code timeoutMillis}
   */
  static List<Message.Sequenced> fetch(
      Bootstrap bootstrap,
      LinkSecurity security,
      PluginEndpoint endpoint,
      long epoch,
      long fromSeq,
      long toSeq,
      long timeoutMillis)
      throws IOException, InterruptedException, TimeoutException {
    CompletableFuture<List<Message.Sequenced>> answer = new CompletableFuture<>();
    ChannelFuture connecting =
        bootstrap
            .clone()
            .handler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    if (security.tls() != null) {
                      security
                          .tls()
                          .addClientHandler(ch.pipeline(), endpoint.host(), endpoint.port());
                    }
                    WirePipeline.install(ch.pipeline(), RepeaterSettings.MAX_FRAME_BYTES);
                    ch.pipeline()
                        .addLast(
                            new FetchHandler(
                                endpoint.duplicateId(),
                                epoch,
                                fromSeq,
                                toSeq,
                                security.credential(),
                                answer));
                  }
                })
            .connect(endpoint.host(), endpoint.port());
    Channel channel = connecting.channel();
    connecting.addListener(
        f -> {
          if (!f.isSuccess()) {
            answer.completeExceptionally(f.cause());
          }
        });
    try {
      return answer.get(timeoutMillis, TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw new IOException(
          "duplicate " + endpoint.duplicateId() + " at " + endpoint.address() + ": " + e.getCause(),
          e.getCause());
    } catch (java.util.concurrent.TimeoutException e) {
      throw new TimeoutException(
          "duplicate "
              + endpoint.duplicateId()
              + " at "
              + endpoint.address()
              + " did not send its recent writes within "
              + timeoutMillis
              + " ms");
    } finally {
      channel.close();
    }
  }

  /**
   * HELLO (and AUTH if challenged), then RETRANSMIT after the first STATUS; collects SEQUENCED
   * until the second STATUS.
   */
  private static final class FetchHandler extends SimpleChannelInboundHandler<Message> {
    private final int duplicateId;
    private final long epoch;
    private final long fromSeq;
    private final long toSeq;
    private final Credential credential;
    private final CompletableFuture<List<Message.Sequenced>> answer;
    private final List<Message.Sequenced> writes = new ArrayList<>();
    private boolean asked;

    FetchHandler(
        int duplicateId,
        long epoch,
        long fromSeq,
        long toSeq,
        Credential credential,
        CompletableFuture<List<Message.Sequenced>> answer) {
      this.credential = credential;
      this.duplicateId = duplicateId;
      this.epoch = epoch;
      this.fromSeq = fromSeq;
      this.toSeq = toSeq;
      this.answer = answer;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
      ctx.writeAndFlush(Message.Hello.of(Role.REPEATER, RepeaterSettings.HELLO_ID));
      ctx.fireChannelActive();
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, Message m) {
      if (m instanceof Message.Status) {
        if (!asked) {
          asked = true;
          ctx.writeAndFlush(new Message.Retransmit(duplicateId, epoch, fromSeq, toSeq));
        } else {
          answer.complete(writes);
        }
      } else if (m instanceof Message.Challenge c && !asked) {
        if (credential == null) {
          answer.completeExceptionally(
              new IOException(
                  "the plugin requires authentication, but this repeater has" + " no credential"));
          ctx.close();
        } else {
          try {
            ctx.writeAndFlush(
                credential.answer(
                    Role.REPEATER,
                    RepeaterSettings.HELLO_ID,
                    Credential.duplicate(duplicateId),
                    c));
          } catch (IllegalArgumentException e) {
            answer.completeExceptionally(new IOException(e.getMessage()));
            ctx.close();
          }
        }
      } else if (m instanceof Message.Sequenced s) {
        writes.add(s);
      } else if (m instanceof Message.Error e) {
        answer.completeExceptionally(new IOException("ERROR " + e.code() + ": " + e.message()));
      }
      // an ACK (sent to every repeater connection) is no part of the answer
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      answer.completeExceptionally(
          new IOException("the connection closed before the answer ended"));
      ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      answer.completeExceptionally(cause);
      ctx.close();
    }
  }
}
