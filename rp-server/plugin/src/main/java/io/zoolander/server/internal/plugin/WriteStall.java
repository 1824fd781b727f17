package io.zoolander.server.internal.plugin;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stalls the applier before a write the {@link AnomalyInjector} hits, as a GC pause or an fsync
 * stall would: later writes and reads queue behind it. Each seq is drawn once, even when it is
 * tried in a batch first and then alone. Owned by the applier thread (asserted): it sleeps there.
 */
final class WriteStall {

  private static final Logger LOG = LoggerFactory.getLogger(WriteStall.class);

  private final ApplierThread owner;
  private final int duplicateId;
  private final AnomalyInjector anomalies;
  private long lastStalledSeq = -1;

  WriteStall(ApplierThread owner, int duplicateId, AnomalyInjector anomalies) {
    this.owner = owner;
    this.duplicateId = duplicateId;
    this.anomalies = anomalies;
  }

  /** Before the write {@code seq} is applied: sleeps if the injector hits it. */
  void before(long seq) throws InterruptedException {
    assert owner.isCurrent() : ApplierThread.ONLY;
    if (seq <= lastStalledSeq) {
      return; // stalled already, when a batch holding it was tried
    }
    lastStalledSeq = seq;
    long delayMs = anomalies.writeDelayMs(seq);
    if (delayMs > 0) {
      LOG.debug(
          "Duplicate {}: injected anomaly: stalling {} ms before seq {}",
          duplicateId,
          delayMs,
          seq);
      Thread.sleep(delayMs);
    }
  }
}
