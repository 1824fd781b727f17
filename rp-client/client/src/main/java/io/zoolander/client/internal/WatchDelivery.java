package io.zoolander.client.internal;

import io.zoolander.client.WatchEvent;
import io.zoolander.client.Watcher;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs watchers on the client's one watch thread ({@code zoolander-client-watch}, a daemon started
 * with the first event), one event at a time, in the order {@link #deliver} was called: the I/O
 * thread hands events over and never runs application code. A watcher's exception is logged. Any
 * thread may call it.
 */
final class WatchDelivery {

  private static final Logger LOG = LoggerFactory.getLogger(WatchDelivery.class);

  private final ExecutorService thread =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "zoolander-client-watch");
            t.setDaemon(true);
            return t;
          });

  /**
   * Runs {@code watcher} for each of {@code events}, in order, on the watch thread, as long as
   * {@code live} says the watch is still wanted.
   */
  void deliver(Watcher watcher, List<WatchEvent> events, BooleanSupplier live) {
    try {
      thread.execute(
          () -> {
            for (WatchEvent event : events) {
              if (!live.getAsBoolean()) {
                return; // closed meanwhile
              }
              try {
                watcher.process(event);
              } catch (RuntimeException e) {
                LOG.warn("watcher failed on {}", event, e);
              }
            }
          });
    } catch (RejectedExecutionException e) {
      // closed
    }
  }

  /** Stops the watch thread once the events already handed over have run (at most 1 s). */
  void close() {
    thread.shutdown();
    try {
      if (!thread.awaitTermination(1, TimeUnit.SECONDS)) {
        thread.shutdownNow();
      }
    } catch (InterruptedException e) {
      thread.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }
}
