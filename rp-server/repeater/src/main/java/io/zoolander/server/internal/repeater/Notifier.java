package io.zoolander.server.internal.repeater;

import io.netty.util.concurrent.DefaultThreadFactory;
import io.zoolander.server.repeater.RepeaterListener;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells the outside world: calls the {@link RepeaterListener} and completes callers' futures on the
 * repeater's own <em>events</em> thread, so that a slow listener or a future's callbacks never run
 * on (and never stall) the sequencer loop.
 *
 * <p>May be called from any thread; the events thread exists from {@link #start()} to {@link
 * #shutdown()}. Before start, listener calls are dropped and futures completed at once.
 */
final class Notifier {
  private static final Logger LOG = LoggerFactory.getLogger(Notifier.class);

  private final RepeaterListener listener;
  private volatile ExecutorService events;

  Notifier(RepeaterListener listener) {
    this.listener = listener == null ? new RepeaterListener() {} : listener;
  }

  /** Starts the events thread. */
  void start() {
    events =
        Executors.newSingleThreadExecutor(
            new DefaultThreadFactory("zoolander-repeater-events", true));
  }

  /** Lets the events thread finish what it was given, then end. */
  void shutdown() {
    ExecutorService executor = events;
    if (executor != null) {
      executor.shutdown();
    }
  }

  /**
   * Calls the listener on the events thread; a failure is logged. Dropped when that thread does not
   * run.
   */
  void listener(Consumer<RepeaterListener> call) {
    ExecutorService executor = events;
    if (executor == null) {
      return;
    }
    try {
      executor.execute(
          () -> {
            try {
              call.accept(listener);
            } catch (RuntimeException e) {
              LOG.warn("repeater listener failed", e);
            }
          });
    } catch (RejectedExecutionException e) {
      // closed
    }
  }

  /**
   * Completes a caller's future on the events thread ({@code failure} null: normally), so that its
   * callbacks never run on the sequencer loop; at once when that thread does not run.
   */
  void complete(CompletableFuture<Void> future, Throwable failure) {
    Runnable complete =
        () -> {
          if (failure == null) {
            future.complete(null);
          } else {
            future.completeExceptionally(failure);
          }
        };
    ExecutorService executor = events;
    if (executor == null) {
      complete.run();
      return;
    }
    try {
      executor.execute(complete);
    } catch (RejectedExecutionException e) {
      complete.run(); // closing
    }
  }
}
