package io.zoolander.client.internal;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.ScheduledFuture;
import io.zoolander.client.WriteResult;
import io.zoolander.client.ZoolanderClient;
import io.zoolander.client.ZoolanderException;
import io.zoolander.wire.ErrorCode;
import io.zoolander.wire.Message;
import io.zoolander.wire.Op;
import io.zoolander.wire.PluginEndpoint;
import io.zoolander.wire.Znodes;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client implementation: one event-loop thread, a link to the repeater and one to each duplicate's active
 * plugin (followed through its endpoint znode). A write is sent to the repeater and completed by the first REPLY.
 * Internal: not part of the public API.
 */
public final class DefaultZoolanderClient implements ZoolanderClient {
  private static final Logger LOG = LoggerFactory.getLogger(DefaultZoolanderClient.class);

  private final long clientId;
  private final long requestTimeoutMs;
  private final EventLoopGroup group;
  private final PeerLink repeater;
  private final List<PeerLink> plugins = new ArrayList<>();
  private final List<EndpointWatcher> watchers = new ArrayList<>();
  private final Map<Long, Pending> pending = new ConcurrentHashMap<>();
  private final AtomicLong nextRequestId = new AtomicLong();
  private volatile boolean closed;

  private record Pending(CompletableFuture<WriteResult> future, ScheduledFuture<?> timeout) {}

  private DefaultZoolanderClient(long clientId, long requestTimeoutMs) {
    this.clientId = clientId;
    this.requestTimeoutMs = requestTimeoutMs;
    this.group = new NioEventLoopGroup(1, new DefaultThreadFactory("zoolander-client", true));
    this.repeater = new PeerLink("repeater", clientId, group, false, this::onMessage);
  }

  /** Builds and connects a client; see {@code ZoolanderClientBuilder#build()}. */
  public static DefaultZoolanderClient connect(
      long clientId,
      InetSocketAddress repeaterAddress,
      List<String> duplicates,
      Znodes znodes,
      long requestTimeoutMs,
      long connectTimeoutMs,
      int sessionTimeoutMs) {
    DefaultZoolanderClient client = new DefaultZoolanderClient(clientId, requestTimeoutMs);
    try {
      client.repeater.target(repeaterAddress);
      for (int i = 0; i < duplicates.size(); i++) {
        PeerLink link = new PeerLink("duplicate[" + i + "]", clientId, client.group, true, client::onMessage);
        client.plugins.add(link);
        EndpointWatcher watcher =
            new EndpointWatcher(
                duplicates.get(i),
                znodes,
                sessionTimeoutMs,
                endpoint -> link.target(endpoint.map(DefaultZoolanderClient::address).orElse(null)));
        client.watchers.add(watcher);
        watcher.start();
      }
      client.awaitConnected(connectTimeoutMs);
      return client;
    } catch (IOException | RuntimeException e) {
      client.close();
      if (e instanceof ZoolanderException z) {
        throw z;
      }
      throw new ZoolanderException(KeeperException.Code.CONNECTIONLOSS, null, "cannot connect: " + e, e);
    }
  }

  private static InetSocketAddress address(PluginEndpoint endpoint) {
    return InetSocketAddress.createUnresolved(endpoint.host(), endpoint.port());
  }

  private void awaitConnected(long timeoutMs) {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    while (System.nanoTime() < deadline) {
      if (repeater.isReady() && plugins.stream().allMatch(PeerLink::isReady)) {
        return;
      }
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new ZoolanderException(KeeperException.Code.CONNECTIONLOSS, null, "interrupted while connecting", e);
      }
    }
    if (!repeater.isReady()) {
      throw new ZoolanderException(KeeperException.Code.CONNECTIONLOSS, "repeater not reachable in " + timeoutMs + " ms");
    }
    if (plugins.stream().noneMatch(PeerLink::isReady)) {
      throw new ZoolanderException(KeeperException.Code.CONNECTIONLOSS, "no duplicate reachable in " + timeoutMs + " ms");
    }
    LOG.warn("connected to the repeater and some duplicates; still waiting for {}",
        plugins.stream().filter(p -> !p.isReady()).map(PeerLink::name).toList());
  }

  @Override
  public long clientId() {
    return clientId;
  }

  @Override
  public CompletableFuture<WriteResult> write(List<Op> ops) {
    CompletableFuture<WriteResult> future = new CompletableFuture<>();
    if (closed) {
      future.completeExceptionally(new ZoolanderException(KeeperException.Code.CONNECTIONLOSS, "client is closed"));
      return future;
    }
    long requestId = nextRequestId.incrementAndGet();
    Message.Write write;
    try {
      write = new Message.Write(clientId, requestId, ops);
    } catch (IllegalArgumentException | NullPointerException e) {
      future.completeExceptionally(
          new ZoolanderException(KeeperException.Code.BADARGUMENTS, null, e.getMessage(), e));
      return future;
    }
    ScheduledFuture<?> timeout =
        group.schedule(
            () -> fail(requestId, new ZoolanderException(KeeperException.Code.OPERATIONTIMEOUT,
                "write " + requestId + " not acknowledged within " + requestTimeoutMs + " ms")),
            requestTimeoutMs,
            TimeUnit.MILLISECONDS);
    pending.put(requestId, new Pending(future, timeout));
    if (!repeater.send(write)) {
      fail(requestId, new ZoolanderException(KeeperException.Code.CONNECTIONLOSS, "not connected to the repeater"));
    }
    return future;
  }

  private void onMessage(PeerLink from, Message message) {
    if (message instanceof Message.Reply reply) {
      Pending p = pending.remove(reply.requestId());
      if (p != null) {
        p.timeout().cancel(false);
        p.future().complete(new WriteResult(reply.seq(), reply.duplicateId(), reply.results()));
      }
    } else if (message instanceof Message.Error error) {
      if (error.requestId() >= 0) {
        fail(error.requestId(), new ZoolanderException(codeOf(error.code()), error.code(),
            from.name() + " refused the request: " + error.code() + ": " + error.message(), null));
      } else {
        LOG.warn("{} reported {}: {}", from.name(), error.code(), error.message());
      }
    }
  }

  private static KeeperException.Code codeOf(ErrorCode code) {
    return switch (code) {
      case INVALID_OP -> KeeperException.Code.BADARGUMENTS;
      case SHUTTING_DOWN, NOT_LEADER, STALE_EPOCH -> KeeperException.Code.CONNECTIONLOSS;
      default -> KeeperException.Code.SYSTEMERROR;
    };
  }

  private void fail(long requestId, ZoolanderException e) {
    Pending p = pending.remove(requestId);
    if (p != null) {
      p.timeout().cancel(false);
      p.future().completeExceptionally(e);
    }
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    for (EndpointWatcher w : watchers) {
      try {
        w.close();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    repeater.close();
    plugins.forEach(PeerLink::close);
    for (Long id : List.copyOf(pending.keySet())) {
      fail(id, new ZoolanderException(KeeperException.Code.CONNECTIONLOSS, "client closed"));
    }
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
  }
}
