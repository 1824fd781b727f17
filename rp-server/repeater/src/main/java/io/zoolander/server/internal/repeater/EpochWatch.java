package io.zoolander.server.internal.repeater;

import io.zoolander.wire.BookkeepingState;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The periodic epoch check: every period, reads each duplicate's state znode it can reach (through
 * the duplicate's ZooKeeper ensemble, not the plugin) and, when one holds an epoch above this
 * repeater's, has it deposed on the sequencer loop. A repeater normally learns of a newer one from
 * the plugins (STATUS, ACK, ERROR STALE_EPOCH); one cut off from every plugin but not from
 * ZooKeeper would otherwise keep its clients, whose writes would time out. Runs on its own daemon
 * thread, since a read blocks; a duplicate whose ensemble cannot be reached is skipped until the
 * next period. Stops once it has found a newer epoch, and on {@link #close()}.
 */
final class EpochWatch implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(EpochWatch.class);

  private final List<DuplicateSource> sources;
  private final LongSupplier epoch;
  private final long periodMillis;
  private final NettyRuntime runtime;
  private final LinkHost links;
  private final ScheduledExecutorService thread;

  /**
   * @param sources the repeater's sources, read at each check (a thread-safe list)
   * @param epoch this repeater's epoch
   * @param periodMillis how often, and the bound of each read
   * @param links deposes the repeater, on the sequencer loop
   */
  EpochWatch(
      List<DuplicateSource> sources,
      LongSupplier epoch,
      long periodMillis,
      NettyRuntime runtime,
      LinkHost links) {
    this.sources = sources; // the repeater's own list: duplicates added or retired online count
    this.epoch = epoch;
    this.periodMillis = periodMillis;
    this.runtime = runtime;
    this.links = links;
    this.thread =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "zoolander-repeater-epoch-check");
              t.setDaemon(true);
              return t;
            });
  }

  void start() {
    thread.scheduleWithFixedDelay(this::check, periodMillis, periodMillis, TimeUnit.MILLISECONDS);
  }

  private void check() {
    long own = epoch.getAsLong();
    for (DuplicateSource source : sources) {
      if (links.stopped()) {
        thread.shutdown();
        return;
      }
      BookkeepingState state;
      try {
        state = source.readState(periodMillis);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (Exception e) { // unreachable now: the next period tries again
        LOG.debug(
            "epoch check: cannot read the state of duplicate {}: {}",
            source.duplicateId(),
            e.toString());
        continue;
      }
      if (state.epoch() > own) {
        int id = source.duplicateId();
        String reason =
            "its state znode holds repeater epoch "
                + state.epoch()
                + " (periodic epoch check: no plugin told this repeater)";
        runtime.execute(() -> links.depose(id, reason));
        thread.shutdown();
        return;
      }
    }
  }

  @Override
  public void close() {
    thread.shutdownNow();
  }
}
