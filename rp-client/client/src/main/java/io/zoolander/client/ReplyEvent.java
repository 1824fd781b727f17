package io.zoolander.client;

/**
 * One reply from one duplicate, winning or losing: the raw material of the model (a duplicate's
 * latency distribution, and paired samples across duplicates for the same access).
 *
 * @param write whether it answered a write (else a read)
 * @param requestId the request it answered (the same for every duplicate's reply to one access)
 * @param duplicateIndex the duplicate's position in the builder's list (0-based), or after it for a
 *     duplicate added online (see {@link Peer#index()})
 * @param latencyNanos time from sending the request (for a write: from the call) to this reply's
 *     arrival
 * @param first whether this reply completed the request
 */
public record ReplyEvent(
    boolean write, long requestId, int duplicateIndex, long latencyNanos, boolean first) {}
