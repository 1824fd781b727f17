package io.zoolander.client.internal;

import io.micrometer.core.instrument.MeterRegistry;
import io.zoolander.client.ReadPolicy;
import io.zoolander.client.Ticker;
import io.zoolander.wire.Znodes;
import java.net.InetSocketAddress;
import java.util.List;

/** A client's validated, immutable settings (built by {@code ZoolanderClientBuilder}). Internal. */
public record ClientSettings(
    long clientId,
    List<InetSocketAddress> repeaters,
    List<DuplicateTarget> duplicates,
    Znodes znodes,
    long requestTimeoutMs,
    long connectTimeoutMs,
    int sessionTimeoutMs,
    long writeRetryMs,
    long readAttemptTimeoutMs,
    ReadPolicy readPolicy,
    Ticker ticker,
    MeterRegistry meterRegistry,
    double slaTauMs) {}
