package io.zoolander.client.internal;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.zoolander.client.ConnectionState;
import io.zoolander.wire.Credential;
import io.zoolander.wire.Message;
import io.zoolander.wire.Role;
import io.zoolander.wire.TlsSettings;
import io.zoolander.wire.WirePipeline;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection to a peer (the repeater or a duplicate's plugin) whose address may change:
 * says HELLO as a client, is ready once the peer answers STATUS, and reconnects with bounded
 * backoff while it has an address. With TLS settings every connection starts with a TLS handshake;
 * with a credential the link answers the peer's CHALLENGE with AUTH, and a link that does not wait
 * for STATUS (the repeater's) is ready only once it has. Internal: not part of the public API.
 */
final class PeerLink {
  private static final Logger LOG = LoggerFactory.getLogger(PeerLink.class);
  private static final long MIN_BACKOFF_MS = 50;
  private static final long MAX_BACKOFF_MS = 2_000;

  private final String name;
  private final long clientId;
  private final EventLoopGroup group;
  private final BiConsumer<PeerLink, Message> inbound;
  private final BiConsumer<PeerLink, ConnectionState> states;
  private final long lostAfterMs;
  private final boolean awaitStatus;
  private final TlsSettings tls;
  private final Credential credential;
  private boolean everReady;
  private ConnectionState state;
  private volatile int duplicateId = -1;

  /** The server a CHALLENGE must name to be answered (see Credential#answer). */
  private volatile String expectedServer;

  private final Object lock = new Object();
  private InetSocketAddress address;
  private List<InetSocketAddress> alternates = List.of();
  private Channel channel;
  private volatile boolean ready;
  private long backoffMs = MIN_BACKOFF_MS;
  private boolean closed;

  /**
   * @param awaitStatus whether the link is ready only once the peer answers HELLO with STATUS
   *     (plugins do); otherwise it is ready as soon as HELLO is written (the repeater answers
   *     clients only to refuse a write), or, with a credential, once AUTH is written in answer to
   *     the CHALLENGE
   * @param tls TLS for the connections, null for plaintext
   * @param credential answers a CHALLENGE, null for none
   * @param expectedServer the server a CHALLENGE must name to be answered (see {@link
   *     #expectServer})
   */
  PeerLink(
      String name,
      long clientId,
      EventLoopGroup group,
      boolean awaitStatus,
      long lostAfterMs,
      BiConsumer<PeerLink, Message> inbound,
      BiConsumer<PeerLink, ConnectionState> states,
      TlsSettings tls,
      Credential credential,
      String expectedServer) {
    this.expectedServer = expectedServer;
    this.tls = tls;
    this.credential = credential;
    this.name = name;
    this.lostAfterMs = lostAfterMs;
    this.states = states;
    this.awaitStatus = awaitStatus;
    this.clientId = clientId;
    this.group = group;
    this.inbound = inbound;
  }

  String name() {
    return name;
  }

  /**
   * The server a CHALLENGE on this link must name for the link to answer it: {@link
   * Credential#REPEATER}, {@link Credential#duplicate} when discovery says which duplicate the
   * address is, {@link Credential#ANY_DUPLICATE} for a fixed address. Any thread.
   */
  void expectServer(String server) {
    this.expectedServer = server;
  }

  /** Whether the peer has answered our HELLO on the current connection. */
  boolean isReady() {
    return ready;
  }

  /**
   * Connects to the first of several addresses, moving to the next whenever a connection fails or
   * drops.
   */
  void targets(List<InetSocketAddress> addresses) {
    synchronized (lock) {
      alternates = List.copyOf(addresses);
    }
    target(addresses.isEmpty() ? null : addresses.get(0)); // none yet: discovery will say
  }

  /** Points the link at a new address (null: none, e.g. no active plugin) and connects there. */
  void target(InetSocketAddress newAddress) {
    Channel old;
    synchronized (lock) {
      if (closed || (newAddress != null && newAddress.equals(address))) {
        return;
      }
      address = newAddress;
      old = channel;
      channel = null;
      ready = false;
      backoffMs = MIN_BACKOFF_MS;
    }
    if (old != null) {
      old.close();
    }
    suspend();
    if (newAddress != null) {
      connect(newAddress);
    }
  }

  /** Sends a message if the link is ready; returns whether it was handed to the connection. */
  boolean send(Message message) {
    Channel c = channel;
    if (c == null || !ready || !c.isActive()) {
      return false;
    }
    c.writeAndFlush(message, c.voidPromise());
    return true;
  }

  /**
   * Drops the current connection as if it had closed: the link connects again after its backoff, to
   * the next of its addresses if it has several. For a connection that looks ready but carries
   * nothing (half-open).
   */
  void reconnect() {
    Channel c;
    synchronized (lock) {
      c = channel;
    }
    if (c != null) {
      c.close(); // onClosed moves on
    }
  }

  /** Whether {@link #close()} was called: the link never connects again. Any thread. */
  boolean isClosed() {
    synchronized (lock) {
      return closed;
    }
  }

  void close() {
    Channel c;
    synchronized (lock) {
      closed = true;
      c = channel;
      channel = null;
      ready = false;
    }
    if (c != null) {
      c.close();
    }
  }

  private void connect(InetSocketAddress target) {
    Bootstrap bootstrap =
        new Bootstrap()
            .group(group)
            .channel(NioSocketChannel.class)
            .option(ChannelOption.TCP_NODELAY, true)
            .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 5_000)
            .handler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    if (tls != null) {
                      tls.addClientHandler(ch.pipeline(), target.getHostString(), target.getPort());
                    }
                    WirePipeline.install(ch.pipeline()).addLast(new Handler());
                  }
                });
    ChannelFuture future =
        bootstrap.connect(new InetSocketAddress(target.getHostString(), target.getPort()));
    Channel c = future.channel();
    synchronized (lock) {
      if (closed || !target.equals(address)) {
        c.close();
        return;
      }
      channel = c;
    }
    future.addListener(
        f -> {
          if (f.isSuccess()) {
            c.writeAndFlush(
                Message.Hello.of(Role.CLIENT, Long.toString(clientId)), c.voidPromise());
            if (!awaitStatus && credential == null) {
              markReady(c);
            }
          } else {
            LOG.debug("{}: cannot connect to {}: {}", name, target, f.cause().toString());
          }
        });
    c.closeFuture().addListener(f -> onClosed(c, target));
  }

  private void onClosed(Channel c, InetSocketAddress target) {
    long delay;
    synchronized (lock) {
      if (channel != c) {
        return; // retargeted or closed meanwhile
      }
      channel = null;
      ready = false;
      if (closed || !target.equals(address)) {
        return;
      }
      delay = backoffMs;
      int next = (alternates.indexOf(target) + 1) % Math.max(1, alternates.size());
      if (alternates.size() > 1) {
        // Several addresses (a repeater and its standbys): try the next one. The backoff grows once
        // per round of
        // the list, so a standby that comes up is tried soon, not after a pause grown on the dead
        // one.
        address = alternates.get(next);
      }
      if (next == 0) {
        backoffMs = Math.min(MAX_BACKOFF_MS, backoffMs * 2);
      }
    }
    suspend();
    InetSocketAddress next;
    synchronized (lock) {
      next = address;
    }
    group.schedule(
        () -> {
          synchronized (lock) {
            if (closed || !next.equals(address) || channel != null) {
              return;
            }
          }
          connect(next);
        },
        delay,
        TimeUnit.MILLISECONDS);
  }

  private void markReady(Channel c) {
    ConnectionState next;
    synchronized (lock) {
      if (channel != c || ready) {
        return;
      }
      ready = true;
      backoffMs = MIN_BACKOFF_MS;
      next = everReady ? ConnectionState.RECONNECTED : ConnectionState.CONNECTED;
      everReady = true;
    }
    changeState(next);
  }

  /** The duplicate id the plugin reported in STATUS, -1 before (or for the repeater). */
  int duplicateId() {
    return duplicateId;
  }

  /** The current connection state, null before the first connection. */
  ConnectionState state() {
    synchronized (lock) {
      return state;
    }
  }

  private void changeState(ConnectionState next) {
    synchronized (lock) {
      if (state == next) {
        return;
      }
      state = next;
    }
    states.accept(this, next);
    if (next == ConnectionState.SUSPENDED) {
      group.schedule(
          () -> {
            synchronized (lock) {
              if (state != ConnectionState.SUSPENDED || closed) {
                return;
              }
            }
            changeState(ConnectionState.LOST);
          },
          lostAfterMs,
          TimeUnit.MILLISECONDS);
    }
  }

  private void suspend() {
    boolean wasReady;
    synchronized (lock) {
      wasReady = state != null && state.isConnected() && !closed;
    }
    if (wasReady) {
      changeState(ConnectionState.SUSPENDED);
    }
  }

  private final class Handler extends SimpleChannelInboundHandler<Message> {
    @Override
    protected void channelRead0(ChannelHandlerContext ctx, Message msg) {
      if (msg instanceof Message.Status status) {
        duplicateId = status.duplicateId();
        markReady(ctx.channel());
      } else if (msg instanceof Message.Challenge challenge) {
        if (credential == null) {
          LOG.warn("{}: the peer requires authentication, but this client has no credential", name);
        } else {
          Message.Auth auth;
          try {
            auth =
                credential.answer(Role.CLIENT, Long.toString(clientId), expectedServer, challenge);
          } catch (IllegalArgumentException e) {
            LOG.warn("{}: {}", name, e.getMessage());
            ctx.close();
            return;
          }
          ctx.writeAndFlush(auth, ctx.voidPromise());
          if (!awaitStatus) {
            markReady(ctx.channel());
          }
        }
      }
      inbound.accept(PeerLink.this, msg);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      LOG.debug("{}: connection error: {}", name, cause.toString());
      ctx.close();
    }
  }

  @Override
  public String toString() {
    return name + "->" + address;
  }
}
