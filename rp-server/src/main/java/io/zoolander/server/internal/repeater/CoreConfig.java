package io.zoolander.server.internal.repeater;

import java.util.OptionalLong;

/**
 * The validated settings the repeater core runs with (the public builder validates them; see {@link
 * io.zoolander.server.repeater.RepeaterSettings} for meanings and defaults).
 *
 * @param fixedEpoch the configured epoch, empty to take the highest epoch found plus one
 * @param pluginAckTimeoutMillis how long a plugin connection may leave sent writes unacknowledged before it is dropped
 */
public record CoreConfig(
    String clientHost,
    int clientPort,
    int logCapacityMessages,
    long startTimeoutMillis,
    OptionalLong fixedEpoch,
    int clientIoThreads,
    long pluginAckTimeoutMillis) {}
