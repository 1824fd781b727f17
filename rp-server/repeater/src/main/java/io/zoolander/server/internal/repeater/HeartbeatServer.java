package io.zoolander.server.internal.repeater;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The active repeater's side of the failover heartbeat: every standby keeps a TCP connection here
 * and receives one byte per interval. When the repeater's process dies, its kernel closes these
 * connections, so a standby on a living host notices at once; a dead host or a cut network is
 * noticed by the standby's timeout ({@link HeartbeatMonitor}). Bound at construction (so its port
 * can be advertised), beating only once {@link #start started}: a standby's heartbeat port accepts
 * connections but sends nothing, which a misdirected monitor reads as a timeout. Plain blocking
 * sockets on two daemon threads: a few standbys, one byte each per interval.
 */
public final class HeartbeatServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(HeartbeatServer.class);

  private final ServerSocket listener;
  private final List<Socket> standbys = new CopyOnWriteArrayList<>();
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
    listener = new ServerSocket();
    listener.setReuseAddress(true);
    listener.bind(new InetSocketAddress(host, port));
  }

  /** How many standbys are connected now. */
  public int standbys() {
    return standbys.size();
  }

  /** The port it listens on. */
  public int port() {
    return listener.getLocalPort();
  }

  /**
   * Starts accepting standbys and beating every {@code intervalMillis}, until {@code stop} holds
   * (the repeater was deposed or closed: the standbys must then notice) or {@link #close()}.
   */
  public void start(long intervalMillis, BooleanSupplier stop) {
    Thread acceptor =
        new Thread(
            () -> {
              while (!listener.isClosed()) {
                try {
                  Socket standby = listener.accept();
                  standby.setTcpNoDelay(true);
                  standbys.add(standby);
                } catch (IOException e) {
                  if (!listener.isClosed()) {
                    LOG.warn("heartbeat: cannot accept a standby: {}", e.toString());
                  }
                }
              }
            },
            "zoolander-failover-heartbeat-accept");
    acceptor.setDaemon(true);
    acceptor.start();
    beater.scheduleWithFixedDelay(
        () -> {
          if (stop.getAsBoolean()) {
            close();
            return;
          }
          List<Socket> gone = new ArrayList<>();
          for (Socket standby : standbys) {
            try {
              OutputStream out = standby.getOutputStream();
              out.write(1);
              out.flush();
            } catch (IOException e) {
              gone.add(standby);
              closeQuietly(standby);
            }
          }
          standbys.removeAll(gone);
        },
        0,
        intervalMillis,
        TimeUnit.MILLISECONDS);
  }

  /** Stops beating and closes every standby's connection: they take over. */
  @Override
  public void close() {
    beater.shutdown();
    closeQuietly(listener);
    for (Socket standby : standbys) {
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
