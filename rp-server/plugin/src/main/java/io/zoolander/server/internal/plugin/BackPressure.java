package io.zoolander.server.internal.plugin;

import io.netty.channel.Channel;
import java.util.Iterator;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Back-pressure on the connections that hand the applier messages faster than it handles them: it
 * counts the messages handed over and not yet handled, stops reading from a connection that hands
 * more over past {@code maxQueued}, and resumes every paused connection once the count falls to
 * half. It counts messages, not tasks: one read of a connection can bring hundreds of SEQUENCED
 * (counting it as one let a lagging duplicate queue a thousand reads' worth and run out of memory).
 * Thread-safe: Netty's event loops {@link #queued} messages, the applier thread {@link #handled}
 * them.
 */
final class BackPressure {

  private static final Logger LOG = LoggerFactory.getLogger(BackPressure.class);

  private final int duplicateId;
  private final int maxQueued;
  private final AtomicInteger queued = new AtomicInteger();
  private final Set<Channel> paused = ConcurrentHashMap.newKeySet();

  /**
   * @param maxQueued messages queued at which the connection that hands more over is paused
   */
  BackPressure(int duplicateId, int maxQueued) {
    this.duplicateId = duplicateId;
    this.maxQueued = maxQueued;
  }

  /** {@code messages} from {@code from} were queued for the applier. */
  void queued(Channel from, int messages) {
    if (queued.addAndGet(messages) >= maxQueued && paused.add(from)) {
      from.config().setAutoRead(false);
      LOG.debug(
          "Duplicate {}: {} messages queued, pausing reads from {}",
          duplicateId,
          queued.get(),
          from.remoteAddress());
    }
  }

  /** {@code messages} queued were handled (or dropped, when stopping). */
  void handled(int messages) {
    if (queued.addAndGet(-messages) <= maxQueued / 2 && !paused.isEmpty()) {
      for (Iterator<Channel> it = paused.iterator(); it.hasNext(); ) {
        Channel channel = it.next();
        it.remove();
        channel.config().setAutoRead(true);
      }
    }
  }

  /** {@code messages} queued were never going to be handled: the applier stopped. */
  void rejected(int messages) {
    queued.addAndGet(-messages);
  }
}
