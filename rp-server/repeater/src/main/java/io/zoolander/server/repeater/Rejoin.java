package io.zoolander.server.repeater;

/**
 * How a duplicate rejoined by state transfer ({@link Repeater#rejoin}, or automatically): reported
 * to {@link RepeaterListener#duplicateRejoined} once the duplicate has installed the snapshot and
 * the repeater streams to it again.
 *
 * @param duplicateId the duplicate that rejoined
 * @param sourceDuplicateId the healthy duplicate the snapshot was taken of
 * @param snapshotSeq the applied seq the snapshot is the state after; the duplicate followed the
 *     stream from the next
 * @param znodes znodes in the snapshot (the data root's tree and the client records)
 * @param bytes bytes of paths and data in the snapshot
 * @param chunks TRANSFER_CHUNK messages relayed
 * @param millis from the start of the rejoin to streaming again
 * @param automatic whether the repeater started it by itself (see the package documentation) rather
 *     than an operator
 */
public record Rejoin(
    int duplicateId,
    int sourceDuplicateId,
    long snapshotSeq,
    long znodes,
    long bytes,
    int chunks,
    long millis,
    boolean automatic) {}
