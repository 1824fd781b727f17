package io.zoolander.server.internal.repeater;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;

/**
 * A standby's side of the failover heartbeat ({@link HeartbeatServer}): connects to the active
 * repeater's heartbeat and blocks until it stops. The end of the stream or a reset (the process
 * died: its kernel closed the connection, at once on a living host) or no byte within the timeout
 * (a dead host, a cut network) all mean the same: the active repeater is presumed dead, and the
 * election decides who tries to take over. The presumption may be wrong (a partition between
 * standby and active only): the epoch claim then deposes a living active repeater, which is safe.
 */
public final class HeartbeatMonitor implements AutoCloseable {
  private final long timeoutMillis;
  private volatile Socket socket;
  private volatile boolean closed;

  /**
   * @param timeoutMillis how long without a byte means dead; also the connect timeout
   */
  public HeartbeatMonitor(long timeoutMillis) {
    this.timeoutMillis = timeoutMillis;
  }

  /**
   * Watches the heartbeat at {@code host:port} until it stops.
   *
   * @return why it is presumed dead
   * @throws InterruptedException if {@link #close()}d meanwhile
   */
  public String awaitLoss(String host, int port) throws InterruptedException {
    try (Socket s = new Socket()) {
      socket = s;
      if (closed) {
        throw new InterruptedException("heartbeat monitor closed");
      }
      s.connect(new InetSocketAddress(host, port), Math.toIntExact(timeoutMillis));
      s.setSoTimeout(Math.toIntExact(timeoutMillis));
      InputStream in = s.getInputStream();
      byte[] buffer = new byte[64];
      while (true) {
        if (in.read(buffer) < 0) {
          return "its heartbeat connection was closed";
        }
      }
    } catch (SocketTimeoutException e) {
      return "no heartbeat for " + timeoutMillis + " ms";
    } catch (IOException e) {
      if (closed) {
        throw new InterruptedException("heartbeat monitor closed");
      }
      return "its heartbeat failed: " + e.getMessage();
    } finally {
      socket = null;
    }
  }

  /** Ends a running {@link #awaitLoss} (with InterruptedException) and any later one. */
  @Override
  public void close() {
    closed = true;
    Socket s = socket;
    if (s != null) {
      try {
        s.close();
      } catch (IOException e) {
        // closed anyway
      }
    }
  }
}
