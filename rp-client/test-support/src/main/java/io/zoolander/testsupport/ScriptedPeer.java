package io.zoolander.testsupport;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.ScheduledFuture;
import io.zoolander.wire.DuplicateState;
import io.zoolander.wire.Message;
import io.zoolander.wire.PluginEndpoint;
import io.zoolander.wire.Role;
import io.zoolander.wire.TlsSettings;
import io.zoolander.wire.WirePipeline;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A test-side peer speaking the real wire protocol ({@link WirePipeline}) over a real TCP
 * connection on the loopback: the one fake repeater, plugin or client of the project's tests.
 *
 * <ul>
 *   <li><b>Client side</b>: {@link #connect(String, int)} (plaintext or {@link #connect(String,
 *       int, TlsSettings) TLS}) or {@link #hello(PluginEndpoint, Role, String)} (connects, says
 *       HELLO, checks the STATUS).
 *   <li><b>Server side</b>: {@link #listen()} binds {@code 127.0.0.1} on a free port; the last
 *       connection accepted is the one {@link #send} answers on.
 * </ul>
 *
 * Every message received is both <em>collected</em> ({@link #received()}, {@link #received(Class)}:
 * everything so far) and <em>queued</em> for {@link #next}, {@link #nextOf} and {@link
 * #expectNothing}, which take it in order. A {@link Handler} set with {@link #on} for a message
 * type runs on the connection's event loop for every message of that type (after it is collected),
 * to answer as the peer would ({@link #listenAsPlugin} answers HELLO as a plugin). Every wait is
 * bounded by {@link #WAIT} ({@link #waitingAtMost changeable}), scaled by {@link Timing}. A failed
 * expectation is an {@link AssertionError}. An exception in the pipeline (a bad frame, a failed TLS
 * handshake) closes the connection: tests look at what arrived and at the close.
 */
public final class ScriptedPeer implements AutoCloseable {

  /** The default bound of every wait, before {@link Timing} scaling. */
  public static final Duration WAIT = Duration.ofSeconds(10);

  /** How long {@link #listen(int)} tries a port that another socket holds. */
  private static final Duration REBIND_WAIT = Duration.ofSeconds(10);

  private static final EventLoopGroup GROUP =
      new NioEventLoopGroup(2, new DefaultThreadFactory("scripted-peer", true));

  /** What the peer does with each message of a type it receives, on the connection's event loop. */
  @FunctionalInterface
  public interface Handler<T extends Message> {
    /**
     * @param peer this peer: {@link ScriptedPeer#send} or {@link ScriptedPeer#post} answer (neither
     *     waits here)
     * @param message what arrived (already collected)
     */
    void onMessage(ScriptedPeer peer, T message);
  }

  private final List<Message> collected = new CopyOnWriteArrayList<>();
  private final BlockingQueue<Message> queue = new LinkedBlockingQueue<>();
  private final Map<Class<?>, Handler<?>> handlers = new ConcurrentHashMap<>();
  private volatile Duration wait = WAIT;
  private volatile Channel connection;
  private Channel server;
  private Message.Status status;

  private ScriptedPeer() {}

  /** Connects in plaintext to {@code host:port} without saying anything. */
  public static ScriptedPeer connect(String host, int port) throws InterruptedException {
    return connect(host, port, null);
  }

  /**
   * Connects to {@code host:port} without saying anything.
   *
   * @param tls the client side of TLS, null for plaintext
   * @throws AssertionError if the TCP connection is not made within {@link #WAIT}; the cause is the
   *     connect failure, whose message says why (for example "Connection refused")
   */
  public static ScriptedPeer connect(String host, int port, TlsSettings tls)
      throws InterruptedException {
    ScriptedPeer peer = new ScriptedPeer();
    ChannelFuture connected =
        new Bootstrap()
            .group(GROUP)
            .channel(NioSocketChannel.class)
            .option(ChannelOption.TCP_NODELAY, true)
            .handler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    if (tls != null) {
                      tls.addClientHandler(ch.pipeline(), host, port);
                    }
                    peer.install(ch);
                  }
                })
            .connect(host, port);
    Duration bound = peer.bound();
    if (!connected.await(bound.toMillis())) {
      connected.channel().close();
      throw new AssertionError("no connection to " + host + ":" + port + " within " + bound);
    }
    if (!connected.isSuccess()) {
      throw new AssertionError(
          "connect to " + host + ":" + port + ": " + connected.cause(), connected.cause());
    }
    peer.connection = connected.channel();
    return peer;
  }

  /** Connects in plaintext to the plugin at {@code endpoint} without saying anything. */
  public static ScriptedPeer connect(PluginEndpoint endpoint) throws InterruptedException {
    return connect(endpoint.host(), endpoint.port());
  }

  /**
   * Connects to the plugin at {@code endpoint}, says HELLO as {@code role} and {@code id}, and
   * checks that the answer is a STATUS of the endpoint's duplicate (kept as {@link #status()}).
   */
  public static ScriptedPeer hello(PluginEndpoint endpoint, Role role, String id)
      throws InterruptedException {
    ScriptedPeer peer = connect(endpoint);
    peer.send(Message.Hello.of(role, id));
    Message.Status status = peer.next(Message.Status.class);
    if (status.duplicateId() != endpoint.duplicateId()) {
      peer.close();
      throw new AssertionError(
          "STATUS of duplicate "
              + status.duplicateId()
              + " from the endpoint of duplicate "
              + endpoint.duplicateId());
    }
    peer.status = status;
    return peer;
  }

  /**
   * Listens on {@code 127.0.0.1} on a free port ({@link #port()}); the last connection accepted is
   * the one {@link #send} and {@link #post} write to.
   */
  public static ScriptedPeer listen() throws InterruptedException {
    return listen(0);
  }

  /**
   * Listens on {@code 127.0.0.1:port} ({@code 0}: a free port), e.g. where a closed peer listened,
   * to play a server that restarts on its address.
   */
  public static ScriptedPeer listen(int port) throws InterruptedException {
    ScriptedPeer peer = new ScriptedPeer();
    if (port == 0) {
      peer.server = peer.bind(0);
      return peer;
    }
    // A port just freed may be held for a moment by another socket: on loopback, a client's
    // reconnect to it can be given that very port as its own local port. Try until it is free.
    Await.await(
        REBIND_WAIT,
        "127.0.0.1:" + port + " free to listen on",
        () -> {
          try {
            peer.server = peer.bind(port);
            return true;
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while binding " + port, e);
          } catch (Exception e) { // BindException, thrown unchecked by Netty's sync()
            return false;
          }
        });
    return peer;
  }

  private Channel bind(int port) throws InterruptedException {
    return new ServerBootstrap()
        .group(GROUP)
        .channel(NioServerSocketChannel.class)
        .childOption(ChannelOption.TCP_NODELAY, true)
        .childHandler(
            new ChannelInitializer<SocketChannel>() {
              @Override
              protected void initChannel(SocketChannel ch) {
                connection = ch;
                install(ch);
              }
            })
        .bind("127.0.0.1", port)
        .sync()
        .channel();
  }

  private void install(SocketChannel ch) {
    WirePipeline.install(ch.pipeline())
        .addLast(
            new SimpleChannelInboundHandler<Message>() {
              @Override
              protected void channelRead0(ChannelHandlerContext ctx, Message message) {
                collected.add(message);
                queue.add(message);
                dispatch(message);
              }

              @Override
              public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                ctx.close();
              }
            });
  }

  /**
   * Sets what the peer does with each message of {@code type} it receives from now on, replacing
   * the handler of that type if there was one; a message of a type without a handler is only
   * collected. Returns this peer.
   */
  public <T extends Message> ScriptedPeer on(Class<T> type, Handler<? super T> handler) {
    handlers.put(type, handler);
    return this;
  }

  @SuppressWarnings("unchecked")
  private void dispatch(Message message) {
    for (Map.Entry<Class<?>, Handler<?>> e : handlers.entrySet()) {
      if (e.getKey().isInstance(message)) {
        ((Handler<Message>) e.getValue()).onMessage(this, message);
        return;
      }
    }
  }

  /**
   * Listens as a plugin of duplicate {@code duplicateId} would, for a client under test: answers
   * every HELLO with {@code STATUS(duplicateId, epoch 1, applied seq 0, ACTIVE)}; the test adds the
   * rest with {@link #on}.
   */
  public static ScriptedPeer listenAsPlugin(int duplicateId) throws InterruptedException {
    return listen()
        .on(
            Message.Hello.class,
            (peer, hello) ->
                peer.post(new Message.Status(duplicateId, 1, 0, DuplicateState.ACTIVE)));
  }

  /** Bounds this peer's waits by {@code wait} (before scaling) instead of {@link #WAIT}. */
  public ScriptedPeer waitingAtMost(Duration wait) {
    this.wait = wait;
    return this;
  }

  private Duration bound() {
    return Timing.scaled(wait);
  }

  /** The port a listening peer is bound to, or the remote port of a connected one. */
  public int port() {
    Channel c = server != null ? server : connection;
    return ((InetSocketAddress) (server != null ? c.localAddress() : c.remoteAddress())).getPort();
  }

  /**
   * @return the STATUS that answered {@link #hello}, null for other peers
   */
  public Message.Status status() {
    return status;
  }

  /**
   * Sends {@code message} and waits until it is written to the socket (on the event loop, from a
   * {@link Handler}, it does not wait).
   *
   * @throws AssertionError if there is no connection or the write failed
   */
  public void send(Message message) {
    Channel c = current();
    ChannelFuture written = c.writeAndFlush(message);
    if (c.eventLoop().inEventLoop()) {
      return;
    }
    if (!written.awaitUninterruptibly(bound().toMillis())) {
      throw new AssertionError("not written within " + bound() + ": " + message);
    }
    if (!written.isSuccess()) {
      throw new AssertionError("write failed: " + message, written.cause());
    }
  }

  /**
   * Sends {@code message} without waiting; a failed write (the other side has closed) is ignored.
   * Does nothing before a listening peer has a connection.
   */
  public void post(Message message) {
    Channel c = connection;
    if (c != null) {
      c.writeAndFlush(message);
    }
  }

  /**
   * Writes {@code bytes} as they are, past the wire pipeline's encoders (plaintext connections
   * only), and waits until they are written: e.g. part of a frame.
   */
  public void sendRaw(byte[] bytes) {
    Channel c = current();
    ChannelFuture written =
        c.pipeline().firstContext().writeAndFlush(Unpooled.wrappedBuffer(bytes));
    if (!written.awaitUninterruptibly(bound().toMillis()) || !written.isSuccess()) {
      throw new AssertionError("raw bytes not written", written.cause());
    }
  }

  /**
   * Sends one raw byte every {@code every} (past the encoders, as {@link #sendRaw}) while
   * connected, until the returned handle is closed: a peer that trickles a frame so slowly that it
   * is never quiet for long.
   */
  public AutoCloseable trickle(Duration every) {
    ScheduledFuture<?> sending =
        GROUP.scheduleAtFixedRate(
            () -> {
              Channel c = connection;
              if (c != null && c.isActive()) {
                c.pipeline().firstContext().writeAndFlush(Unpooled.wrappedBuffer(new byte[] {1}));
              }
            },
            every.toNanos(),
            every.toNanos(),
            TimeUnit.NANOSECONDS);
    return () -> sending.cancel(false);
  }

  /** Posts {@code message} after {@code delay} (not scaled: a delay, not a bound). */
  public void postLater(Message message, Duration delay) {
    GROUP.schedule(() -> post(message), delay.toNanos(), TimeUnit.NANOSECONDS);
  }

  /**
   * Sends {@code messages} with one flush (one buffer, so usually one read on the other side), as
   * the repeater sends a handoff's frames; does not wait.
   */
  public void sendTogether(List<? extends Message> messages) {
    Channel c = current();
    for (Message message : messages) {
      c.write(message, c.voidPromise());
    }
    c.flush();
  }

  private Channel current() {
    Channel c = connection;
    if (c == null) {
      throw new AssertionError("no connection yet");
    }
    return c;
  }

  /**
   * @return bytes written to this connection that have not yet gone to the socket (the other side
   *     stopped reading)
   */
  public long pendingWriteBytes() {
    ChannelOutboundBuffer buffer = current().unsafe().outboundBuffer();
    return buffer == null ? 0 : buffer.totalPendingWriteBytes();
  }

  /** Everything received so far, in order (also what {@link #next} has taken). */
  public List<Message> received() {
    return List.copyOf(collected);
  }

  /** Everything of {@code type} received so far, in order. */
  public <T extends Message> List<T> received(Class<T> type) {
    return collected.stream().filter(type::isInstance).map(type::cast).toList();
  }

  /**
   * @return the next message in the queue, which must be of {@code type}, waiting at most the bound
   */
  public <T extends Message> T next(Class<T> type) throws InterruptedException {
    Duration bound = bound();
    Message message = queue.poll(bound.toNanos(), TimeUnit.NANOSECONDS);
    if (message == null) {
      throw new AssertionError("no " + type.getSimpleName() + " within " + bound);
    }
    if (!type.isInstance(message)) {
      throw new AssertionError(
          "the next message is not a " + type.getSimpleName() + " but " + message);
    }
    return type.cast(message);
  }

  /**
   * @return the next message of {@code type} in the queue, skipping others, waiting at most the
   *     bound in all
   */
  public <T extends Message> T nextOf(Class<T> type) throws InterruptedException {
    Duration bound = bound();
    long deadline = System.nanoTime() + bound.toNanos();
    while (true) {
      long left = deadline - System.nanoTime();
      Message message = queue.poll(Math.max(0, left), TimeUnit.NANOSECONDS);
      if (message == null) {
        throw new AssertionError("no " + type.getSimpleName() + " within " + bound);
      }
      if (type.isInstance(message)) {
        return type.cast(message);
      }
    }
  }

  /** Asserts that nothing arrives in the queue for {@code quiet} (not scaled: a quiet period). */
  public void expectNothing(Duration quiet) throws InterruptedException {
    Message message = queue.poll(quiet.toNanos(), TimeUnit.NANOSECONDS);
    if (message != null) {
      throw new AssertionError("nothing expected within " + quiet + ", received " + message);
    }
  }

  /**
   * @return whether the connection is open
   */
  public boolean isConnected() {
    Channel c = connection;
    return c != null && c.isActive();
  }

  /**
   * @return whether the other side closed the connection within the bound
   */
  public boolean awaitClosed() throws InterruptedException {
    return current().closeFuture().await(bound().toMillis());
  }

  /**
   * Waits until the other side closes the connection.
   *
   * @throws AssertionError if it is still open after the bound
   */
  public void expectClosed() throws InterruptedException {
    if (!awaitClosed()) {
      throw new AssertionError("the connection is still open after " + bound());
    }
  }

  /**
   * Closes the current connection (a listening peer keeps listening: the other side may come back).
   */
  public void dropConnection() {
    Channel c = connection;
    if (c != null) {
      c.close().awaitUninterruptibly(bound().toMillis());
    }
  }

  @Override
  public String toString() {
    return "ScriptedPeer["
        + (server != null ? "listening on " + server.localAddress() : "connected")
        + ", connection "
        + connection
        + ", received "
        + collected.size()
        + "]";
  }

  /** Closes the connection and, for a listening peer, stops listening. */
  @Override
  public void close() {
    Channel s = server;
    if (s != null) {
      s.close().awaitUninterruptibly(bound().toMillis());
    }
    dropConnection();
  }
}
