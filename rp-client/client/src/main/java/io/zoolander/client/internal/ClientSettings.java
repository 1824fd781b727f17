package io.zoolander.client.internal;

import io.micrometer.core.instrument.MeterRegistry;
import io.zoolander.client.ReadPolicy;
import io.zoolander.client.RetryBudget;
import io.zoolander.wire.Credential;
import io.zoolander.wire.Ticker;
import io.zoolander.wire.TlsSettings;
import io.zoolander.wire.Znodes;
import java.net.InetSocketAddress;
import java.util.List;

/**
 * A client's validated, immutable settings (built by {@code ZoolanderClientBuilder}). Internal.
 *
 * @param tls TLS for every connection, null for plaintext
 * @param credential how the client proves who it is when challenged, null for none
 * @param retryBudget how much shed writes and timed-out reads are retried
 */
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
    double slaTauMs,
    TlsSettings tls,
    Credential credential,
    RetryBudget retryBudget) {}
