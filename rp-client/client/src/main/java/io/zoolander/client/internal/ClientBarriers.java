package io.zoolander.client.internal;

import io.netty.channel.EventLoop;
import io.netty.util.concurrent.ScheduledFuture;
import io.zoolander.client.ZoolanderException;
import io.zoolander.wire.ErrorCode;
import io.zoolander.wire.Message;
import io.zoolander.wire.ReadKind;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.zookeeper.KeeperException;

/**
 * The client's barriers waiting ({@link io.zoolander.client.ZoolanderClient#barrier}): each asks
 * every connected duplicate that is read from for an EXISTS of the data root that the plugin
 * answers only once it has applied the barrier's seq, and completes when each has answered or is
 * gone (a barrier waits for live duplicates only), or fails at the request timeout.
 *
 * <p>Confined to the client's event loop, like the rest of the client's request state; {@link
 * #submit} is the one method called from other threads.
 */
final class ClientBarriers {
  private final ClientSettings settings;
  private final EventLoop loop;
  private final List<PeerLink> plugins;
  private final MemberTable members;
  private final AtomicLong nextRequestId;
  private final RequestHost host;
  private final Map<Long, Barrier> barriers = new HashMap<>();

  /**
   * @param plugins the links to the duplicates, by builder index
   * @param members which links are read from (and so waited for)
   * @param nextRequestId the client's request ids, shared with its writes and reads
   */
  ClientBarriers(
      ClientSettings settings,
      EventLoop loop,
      List<PeerLink> plugins,
      MemberTable members,
      AtomicLong nextRequestId,
      RequestHost host) {
    this.settings = settings;
    this.loop = loop;
    this.plugins = plugins;
    this.members = members;
    this.nextRequestId = nextRequestId;
    this.host = host;
  }

  /**
   * Waits until every live duplicate read from has applied {@code seq} ({@code >= 0}). Any thread.
   */
  CompletableFuture<Void> submit(long seq) {
    CompletableFuture<Void> future = new CompletableFuture<>();
    Barrier barrier = new Barrier(nextRequestId.incrementAndGet(), seq, future);
    loop.execute(() -> start(barrier));
    return future;
  }

  private static final class Barrier {
    final long requestId;
    final long seq;
    final CompletableFuture<Void> future;
    final Set<Integer> waitingFor = new HashSet<>();
    ScheduledFuture<?> deadline;

    Barrier(long requestId, long seq, CompletableFuture<Void> future) {
      this.requestId = requestId;
      this.seq = seq;
      this.future = future;
    }
  }

  private void start(Barrier b) {
    if (host.closed()) {
      b.future.completeExceptionally(DefaultZoolanderClient.closedException());
      return;
    }
    for (int i = 0; i < plugins.size(); i++) {
      if (plugins.get(i).isReady() && members.counted(i)) { // not joining, not retired
        b.waitingFor.add(i);
      }
    }
    if (b.waitingFor.isEmpty()) {
      b.future.completeExceptionally(
          new ZoolanderException(KeeperException.Code.CONNECTIONLOSS, "no duplicate is connected"));
      return;
    }
    barriers.put(b.requestId, b);
    b.deadline =
        loop.schedule(
            () -> {
              if (barriers.remove(b.requestId) == b) {
                b.future.completeExceptionally(
                    new ZoolanderException(
                        KeeperException.Code.OPERATIONTIMEOUT,
                        "duplicates "
                            + b.waitingFor
                            + " did not apply seq "
                            + b.seq
                            + " within "
                            + settings.requestTimeoutMs()
                            + " ms"));
              }
            },
            settings.requestTimeoutMs(),
            TimeUnit.MILLISECONDS);
    b.waitingFor.forEach(i -> send(b, i));
  }

  private void send(Barrier b, int index) {
    if (barriers.get(b.requestId) != b || !b.waitingFor.contains(index)) {
      return;
    }
    // An EXISTS of the data root that the plugin answers only once it has applied b.seq.
    if (!plugins
        .get(index)
        .send(new Message.Read(settings.clientId(), b.requestId, ReadKind.EXISTS, "/", b.seq))) {
      duplicateGone(b, index); // not live any more: a barrier waits for live duplicates only
    }
  }

  /**
   * A READ_REPLY: handled if it answers a barrier.
   *
   * @return whether it was a barrier's
   */
  boolean onReply(Message.ReadReply reply) {
    Barrier b = barriers.get(reply.requestId());
    if (b == null) {
      return false;
    }
    int index = host.indexOf(reply.duplicateId());
    if (index >= 0 && reply.appliedSeq() >= b.seq && b.waitingFor.remove(index)) {
      host.advanceSeen(reply.appliedSeq());
      maybeComplete(b);
    }
    return true;
  }

  /**
   * An ERROR from {@code from}: handled if it names a barrier. A duplicate that sheds load is asked
   * again after the delay it gives; any other refusal means it is not a live duplicate, which a
   * barrier does not wait for.
   *
   * @return whether it was about a barrier
   */
  boolean onError(PeerLink from, Message.Error error) {
    Barrier b = barriers.get(error.requestId());
    if (b == null) {
      return false;
    }
    int index = plugins.indexOf(from);
    if (index >= 0) {
      if (error.code() == ErrorCode.OVERLOADED) {
        loop.schedule(
            () -> send(b, index), DefaultZoolanderClient.retryAfter(error), TimeUnit.MILLISECONDS);
      } else {
        duplicateGone(b, index); // fenced or not serving: not a live duplicate
      }
    }
    return true;
  }

  /** Duplicate {@code index} is gone, or not read from: no barrier waits for it any more. */
  void duplicateGone(int index) {
    List.copyOf(barriers.values()).forEach(b -> duplicateGone(b, index));
  }

  /** Fails every barrier waiting with {@code e} (the client closes). */
  void failAll(ZoolanderException e) {
    for (Barrier b : List.copyOf(barriers.values())) {
      barriers.remove(b.requestId);
      b.deadline.cancel(false);
      b.future.completeExceptionally(e);
    }
  }

  /** Barriers waiting. */
  int pending() {
    return barriers.size();
  }

  private void duplicateGone(Barrier b, int index) {
    if (b.waitingFor.remove(index)) {
      maybeComplete(b);
    }
  }

  private void maybeComplete(Barrier b) {
    if (b.waitingFor.isEmpty() && barriers.remove(b.requestId) == b) {
      b.deadline.cancel(false);
      b.future.complete(null);
    }
  }
}
