package io.zoolander.server.internal.plugin;

import io.zoolander.wire.Ticker;
import io.zoolander.wire.Znodes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes the records ({@code <base>/clients/<clientId>}) of clients gone longer than the retention
 * ({@code zoolander.plugin.clientRecordRetentionMs}), so that they do not pile up forever. Owned by
 * the applier thread (asserted): it deletes between two applies, and only the applier writes
 * records, so a deletion never races a record's update.
 *
 * <p><b>Why a late retry cannot be applied twice.</b> A record is what makes a retry recognised:
 * once it is gone, a retry of one of the client's requests would be applied again. A client retries
 * a request only until its request timeout, counted from the first attempt; so every attempt of a
 * request reaches the plugin (as a SEQUENCED, which {@link #touched} records) at most a request
 * timeout, plus the time the repeater and the network hold it, after the first. A record is deleted
 * only when the plugin has seen nothing from its client for the whole retention <em>while it was
 * streaming</em>: a repeater connected and no gap open, so every write sequenced for the client
 * reaches it within the stream's delay. Time without a repeater, or with a gap open (a duplicate
 * behind, or cut off by a partition, with older writes of the client still to come from the log),
 * does not count: streaming again restarts the clock of every record whenever streaming starts
 * again, and a restarted plugin starts every record's clock afresh. With a retention far above
 * every client's request timeout (the default is 7 days, the minimum 1 s for tests), the last
 * attempt of any request of the client was applied before its record goes.
 *
 * <p>Duplicates delete a record at different times (each by its own clock), so for a while one
 * holds a record another has deleted. The data stays identical: a client's write that comes after
 * the retention has a request id above every id it used before (retries aside, which the argument
 * above excludes), and such a write is applied the same way with or without the old record; only
 * the outcomes a record holds of requests before it differ, and no retry asks for them.
 */
final class ClientExpiry {

  private static final Logger LOG = LoggerFactory.getLogger(ClientExpiry.class);

  /** Most records deleted by one sweep, so that applying is never held up long. */
  static final int MAX_DELETES_PER_SWEEP = 1_000;

  private final ApplierThread owner;
  private final int duplicateId;
  private final Znodes znodes;
  private final long retentionNanos;
  private final long sweepPeriodNanos;
  private final Ticker ticker;
  private final BooleanSupplier streaming;

  /** The last time each known client was seen; a record not listed here was seen when listed. */
  private final Map<Long, Long> lastSeen = new HashMap<>();

  /** Since when the plugin streams without interruption; -1 while it does not. */
  private long streamingSince = -1;

  private long lastSweep;
  private long expired;

  /**
   * @param retentionMs how long a client must be gone, in time the plugin streamed, before its
   *     record is deleted
   * @param streaming whether a repeater is connected and no gap is open
   */
  ClientExpiry(
      ApplierThread owner,
      int duplicateId,
      Znodes znodes,
      long retentionMs,
      Ticker ticker,
      BooleanSupplier streaming) {
    this.owner = owner;
    this.duplicateId = duplicateId;
    this.znodes = znodes;
    this.retentionNanos = TimeUnit.MILLISECONDS.toNanos(retentionMs);
    this.sweepPeriodNanos =
        Math.max(
            TimeUnit.MILLISECONDS.toNanos(100),
            Math.min(retentionNanos / 10, TimeUnit.MINUTES.toNanos(1)));
    this.ticker = ticker;
    this.streaming = streaming;
    this.lastSweep = ticker.nanoTime();
  }

  /** A SEQUENCED of {@code clientId} arrived: the client is alive. */
  void touched(long clientId) {
    assert owner.isCurrent() : ApplierThread.ONLY;
    lastSeen.put(clientId, ticker.nanoTime());
  }

  /**
   * Deletes the records expired by now, at most {@link #MAX_DELETES_PER_SWEEP}, if a sweep is due.
   * A ZooKeeper failure ends the sweep (the next one tries again).
   *
   * @return how many records it deleted
   */
  int sweep(ZooKeeper zk, ClientTable clients) throws InterruptedException {
    assert owner.isCurrent() : ApplierThread.ONLY;
    long now = ticker.nanoTime();
    if (!streaming.getAsBoolean()) {
      streamingSince = -1;
      return 0;
    }
    boolean started = streamingSince < 0;
    if (started) {
      streamingSince = now; // and every record listed now starts its clock now
    } else if (now - lastSweep < sweepPeriodNanos) {
      return 0;
    }
    lastSweep = now;
    int deleted = 0;
    try {
      List<Long> gone = new ArrayList<>();
      Set<Long> listed = new HashSet<>();
      for (String child : zk.getChildren(znodes.clients(), false)) {
        long clientId;
        try {
          clientId = Long.parseLong(child);
        } catch (NumberFormatException e) {
          continue; // not a record
        }
        listed.add(clientId);
        long seen = lastSeen.computeIfAbsent(clientId, id -> now);
        if (now - Math.max(seen, streamingSince) >= retentionNanos) {
          gone.add(clientId);
        }
      }
      lastSeen.keySet().retainAll(listed); // deleted by a state transfer, or not applied yet
      for (long clientId : gone) {
        if (deleted >= MAX_DELETES_PER_SWEEP) {
          break;
        }
        clients.forget(clientId);
        try {
          zk.delete(znodes.client(clientId), -1);
        } catch (KeeperException.NoNodeException e) {
          // gone already (a state transfer replaced the records)
        }
        lastSeen.remove(clientId);
        deleted++;
      }
    } catch (KeeperException e) {
      LOG.info(
          "Duplicate {}: expiring client records stopped: {}; trying again later",
          duplicateId,
          e.toString());
    }
    if (deleted > 0) {
      expired += deleted;
      LOG.info(
          "Duplicate {}: deleted the records of {} clients gone longer than {} ms",
          duplicateId,
          deleted,
          TimeUnit.NANOSECONDS.toMillis(retentionNanos));
    }
    return deleted;
  }

  /**
   * @return how many records this plugin deleted
   */
  long expired() {
    assert owner.isCurrent() : ApplierThread.ONLY;
    return expired;
  }
}
