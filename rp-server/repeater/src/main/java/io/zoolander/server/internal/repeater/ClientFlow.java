package io.zoolander.server.internal.repeater;

import io.zoolander.server.repeater.RepeaterSettings;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The open client connections, and whether they are read: when even the most advanced non-fenced
 * duplicate is {@link RepeaterSettings#CLIENT_PAUSE_UNACKED_PERCENT}% of the log behind, the system
 * is overloaded rather than one duplicate slow, so every client connection stops being read (TCP
 * pushes back) until one is back within {@link RepeaterSettings#CLIENT_RESUME_UNACKED_PERCENT}%.
 * OVERLOADED then stays a last resort for WRITEs already read.
 *
 * <p>Clients come and go on the client I/O threads ({@link #connected}, {@link #disconnected});
 * pausing and resuming are decided on the sequencer loop, which asserts it.
 */
final class ClientFlow {
  private static final Logger LOG = LoggerFactory.getLogger(ClientFlow.class);

  private final NettyRuntime runtime;
  private final Set<ClientHandler> clients = ConcurrentHashMap.newKeySet();

  /** Pause at this many writes sequenced past the highest seq a live duplicate acked. */
  private final long pauseAtUnacked;

  /** Resume at this many or fewer. */
  private final long resumeAtUnacked;

  private volatile boolean paused;

  ClientFlow(NettyRuntime runtime, int logCapacityMessages) {
    this.runtime = runtime;
    this.pauseAtUnacked =
        Math.max(
            1, (long) logCapacityMessages * RepeaterSettings.CLIENT_PAUSE_UNACKED_PERCENT / 100);
    this.resumeAtUnacked =
        (long) logCapacityMessages * RepeaterSettings.CLIENT_RESUME_UNACKED_PERCENT / 100;
  }

  /** A client connection opened: it is paused at once if clients are. */
  void connected(ClientHandler client) {
    clients.add(client);
    if (paused) {
      client.pause();
    }
  }

  void disconnected(ClientHandler client) {
    clients.remove(client);
  }

  /** Whether client connections are not read because every live duplicate is far behind. */
  boolean paused() {
    return paused;
  }

  /**
   * A write from {@code from} was sequenced, {@code unacked} writes past the highest seq a live
   * duplicate acked: if every live duplicate is that far behind, stop reading clients until one
   * catches up. The sender is paused again even if already paused, in case its own handoff logic
   * resumed it meanwhile.
   */
  void sequenced(ClientHandler from, long unacked) {
    assert runtime.inLoop() : "client pausing is decided on the sequencer loop";
    if (unacked < pauseAtUnacked) {
      return;
    }
    if (!paused) {
      paused = true;
      LOG.info(
          "every duplicate is {} or more writes behind: not reading clients until one catches up",
          pauseAtUnacked);
      for (ClientHandler client : clients) {
        client.pause();
      }
    } else {
      from.pause();
    }
  }

  /**
   * The log was trimmed: reads clients again if they are paused and the most advanced live
   * duplicate is back within the resume threshold of {@code lastSeq}.
   *
   * @param highestAckedLive the highest seq a live duplicate acked, {@link Long#MAX_VALUE} when all
   *     are fenced
   */
  void trimmed(long highestAckedLive, long lastSeq) {
    assert runtime.inLoop() : "client pausing is decided on the sequencer loop";
    if (paused
        && (highestAckedLive == Long.MAX_VALUE || lastSeq - highestAckedLive <= resumeAtUnacked)) {
      paused = false;
      LOG.info("a duplicate caught up: reading clients again");
      for (ClientHandler client : clients) {
        client.resumeIfIdle();
      }
    }
  }

  /** The repeater was deposed: every client connection is told so and closed. */
  void deposed() {
    for (ClientHandler client : clients) {
      client.deposed();
    }
  }
}
