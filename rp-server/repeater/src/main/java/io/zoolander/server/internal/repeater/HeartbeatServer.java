package io.zoolander.server.internal.repeater;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The active repeater's side of the failover heartbeat: every standby keeps a TCP connection here
 * and receives one byte per interval. When the repeater's process dies, its kernel closes these
 * connections, so a standby on a living host notices at once; a dead host or a cut network is
 * noticed by the standby's timeout ({@link HeartbeatMonitor}). Bound at construction (so its port
 * can be advertised), beating only once {@link #start started}: a standby's heartbeat port accepts
 * connections but sends nothing, which a misdirected monitor reads as a timeout. Two daemon
 * threads: a blocking acceptor and the beater.
 *
 * <p>What a stranger can do here: the port carries no command and no secret, and reads nothing. At
 * most {@link #MAX_STANDBYS} connections are kept (more are closed at once), and the beats are
 * written without blocking into a small send buffer: a peer that does not read fills its buffers
 * and is dropped once {@link #REFUSED_BEATS_TO_DROP} beats in a row found them full, so it can
 * neither exhaust the repeater's descriptors nor stall the beats the real standbys wait for. A
 * forged heartbeat (a host posing as the active repeater) can only delay a takeover; the epoch
 * claim, not the heartbeat, keeps two repeaters from sequencing.
 */
public final class HeartbeatServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(HeartbeatServer.class);

  /** Most connections kept at once: standbys are a handful. */
  static final int MAX_STANDBYS = 64;

  /**
   * Send buffer per connection, in bytes: some tens of one-byte beats waiting for their ACKs (a
   * reading standby's kernel ACKs within tens of ms, whatever its process does), so that a peer
   * whose receive buffer is full shows within seconds instead of megabytes.
   */
  static final int SEND_BUFFER_BYTES = 8_192;

  /** Beats in a row a peer's full buffer refuses before it is dropped. */
  static final int REFUSED_BEATS_TO_DROP = 10;

  private final ServerSocketChannel listener;
  private final List<SocketChannel> standbys = new CopyOnWriteArrayList<>();
  // Beater thread only: beats refused in a row, by connection.
  private final Map<SocketChannel, Integer> refused = new HashMap<>();
  private final AtomicLong dropped = new AtomicLong();
  private final ScheduledExecutorService beater =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "zoolander-failover-heartbeat");
            t.setDaemon(true);
            return t;
          });

  /**
   * @param port 0 for a free one
   * @throws IOException if it cannot bind
   */
  public HeartbeatServer(String host, int port) throws IOException {
    listener = ServerSocketChannel.open();
    listener.setOption(StandardSocketOptions.SO_REUSEADDR, true);
    listener.bind(new InetSocketAddress(host, port));
  }

  /** How many standbys are connected now. */
  public int standbys() {
    return standbys.size();
  }

  /** Connections refused over the cap or dropped for not reading, so far. */
  long dropped() {
    return dropped.get();
  }

  /** The port it listens on. */
  public int port() {
    try {
      return ((InetSocketAddress) listener.getLocalAddress()).getPort();
    } catch (IOException e) {
      throw new IllegalStateException("the heartbeat listener is closed", e);
    }
  }

  /**
   * Starts accepting standbys and beating every {@code intervalMillis}, until {@code stop} holds
   * (the repeater was deposed or closed: the standbys must then notice) or {@link #close()}.
   */
  public void start(long intervalMillis, BooleanSupplier stop) {
    Thread acceptor = new Thread(this::accept, "zoolander-failover-heartbeat-accept");
    acceptor.setDaemon(true);
    acceptor.start();
    beater.scheduleWithFixedDelay(
        () -> {
          if (stop.getAsBoolean()) {
            close();
            return;
          }
          beat();
        },
        0,
        intervalMillis,
        TimeUnit.MILLISECONDS);
  }

  private void accept() {
    while (listener.isOpen()) {
      try {
        SocketChannel standby = listener.accept();
        if (standbys.size() >= MAX_STANDBYS) {
          LOG.warn(
              "heartbeat: refused {}: {} connections already",
              standby.getRemoteAddress(),
              MAX_STANDBYS);
          dropped.incrementAndGet();
          closeQuietly(standby);
          continue;
        }
        standby.setOption(StandardSocketOptions.TCP_NODELAY, true);
        standby.setOption(StandardSocketOptions.SO_SNDBUF, SEND_BUFFER_BYTES);
        standby.configureBlocking(false);
        standbys.add(standby);
      } catch (IOException e) {
        if (listener.isOpen()) {
          LOG.warn("heartbeat: cannot accept a standby: {}", e.toString());
        }
      }
    }
  }

  private void beat() {
    List<SocketChannel> gone = new ArrayList<>();
    for (SocketChannel standby : standbys) {
      try {
        if (standby.write(ByteBuffer.wrap(new byte[] {1})) == 1) {
          refused.remove(standby);
        } else if (refused.merge(standby, 1, Integer::sum) >= REFUSED_BEATS_TO_DROP) {
          LOG.warn("heartbeat: dropped {}: it does not read its beats", standby.getRemoteAddress());
          dropped.incrementAndGet();
          gone.add(standby);
        }
      } catch (IOException e) {
        gone.add(standby);
      }
    }
    for (SocketChannel standby : gone) {
      refused.remove(standby);
      closeQuietly(standby);
    }
    standbys.removeAll(gone);
  }

  /** Stops beating and closes every standby's connection: they take over. */
  @Override
  public void close() {
    beater.shutdown();
    closeQuietly(listener);
    for (SocketChannel standby : standbys) {
      closeQuietly(standby);
    }
    standbys.clear();
  }

  private static void closeQuietly(AutoCloseable c) {
    try {
      c.close();
    } catch (Exception e) {
      // closing anyway
    }
  }
}
