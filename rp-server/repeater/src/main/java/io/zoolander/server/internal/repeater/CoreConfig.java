package io.zoolander.server.internal.repeater;

import io.zoolander.wire.Znodes;
import java.util.OptionalLong;

/**
 * The validated settings the repeater core runs with (the public builder validates them; see {@link
 * io.zoolander.server.repeater.RepeaterSettings} for meanings and defaults).
 *
 * @param fixedEpoch the configured epoch, empty to take the highest epoch found plus one
 * @param znodes where Zoolander's znodes are: application paths under the base path are refused
 * @param juteMaxBufferBytes the duplicates' {@code jute.maxbuffer}: larger writes are refused
 * @param pluginAckTimeoutMillis how long a plugin connection may leave sent writes unacknowledged
 *     before it is dropped
 * @param autoRejoin whether a duplicate that comes back needing writes the log no longer holds
 *     rejoins by state transfer by itself
 * @param logCapacityBytes most bytes of encoded writes the retransmission log holds
 * @param missingDuplicateGraceMillis how long a takeover still waits for the other duplicates once
 *     a majority has answered
 * @param nameRatesWindowMillis the window of the per-name write rates
 * @param nameRatesSampleEvery the per-name write rates count one write in this many
 */
public record CoreConfig(
    String clientHost,
    int clientPort,
    int logCapacityMessages,
    long startTimeoutMillis,
    OptionalLong fixedEpoch,
    int clientIoThreads,
    Znodes znodes,
    int juteMaxBufferBytes,
    long pluginAckTimeoutMillis,
    boolean autoRejoin,
    long logCapacityBytes,
    long missingDuplicateGraceMillis,
    long nameRatesWindowMillis,
    int nameRatesSampleEvery) {

  /**
   * Settings with the default {@code logCapacityBytes}, {@code missingDuplicateGraceMillis} and
   * per-name write rates.
   */
  public CoreConfig(
      String clientHost,
      int clientPort,
      int logCapacityMessages,
      long startTimeoutMillis,
      OptionalLong fixedEpoch,
      int clientIoThreads,
      Znodes znodes,
      int juteMaxBufferBytes,
      long pluginAckTimeoutMillis,
      boolean autoRejoin) {
    this(
        clientHost,
        clientPort,
        logCapacityMessages,
        startTimeoutMillis,
        fixedEpoch,
        clientIoThreads,
        znodes,
        juteMaxBufferBytes,
        pluginAckTimeoutMillis,
        autoRejoin,
        io.zoolander.server.repeater.RepeaterSettings.DEFAULT_LOG_CAPACITY_BYTES,
        io.zoolander.server.repeater.RepeaterSettings.DEFAULT_MISSING_DUPLICATE_GRACE_MILLIS,
        io.zoolander.server.repeater.RepeaterSettings.DEFAULT_NAME_RATES_WINDOW_MILLIS,
        io.zoolander.server.repeater.RepeaterSettings.DEFAULT_NAME_RATES_SAMPLE_EVERY);
  }

  /**
   * Settings with the default {@link
   * io.zoolander.server.repeater.RepeaterSettings#DEFAULT_AUTO_REJOIN}.
   */
  public CoreConfig(
      String clientHost,
      int clientPort,
      int logCapacityMessages,
      long startTimeoutMillis,
      OptionalLong fixedEpoch,
      int clientIoThreads,
      Znodes znodes,
      int juteMaxBufferBytes,
      long pluginAckTimeoutMillis) {
    this(
        clientHost,
        clientPort,
        logCapacityMessages,
        startTimeoutMillis,
        fixedEpoch,
        clientIoThreads,
        znodes,
        juteMaxBufferBytes,
        pluginAckTimeoutMillis,
        io.zoolander.server.repeater.RepeaterSettings.DEFAULT_AUTO_REJOIN);
  }
}
