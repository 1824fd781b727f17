package io.zoolander.server.bench;

import java.util.concurrent.CompletableFuture;

/**
 * One of the compared systems, as the load generator drives it: reads and writes of pre-created
 * znodes.
 */
interface SystemUnderTest extends AutoCloseable {

  /** A short name for tables and charts, e.g. {@code plain} or {@code rp-4}. */
  String name();

  /** One sentence: what the system does with a read and with a write. */
  String description();

  /** Reads key {@code key}; completes when the system has an answer. */
  CompletableFuture<?> read(int key);

  /** Writes {@code value} to key {@code key}; completes when the system acknowledges it. */
  CompletableFuture<?> write(int key, byte[] value);

  /**
   * Read requests sent to servers so far (first tries, hedges, retries), counted where they are
   * sent.
   */
  long readMessages();

  /** Write requests sent to servers so far, by the client. */
  long writeMessages();

  /**
   * The delay after which a read is hedged, in ms; NaN if this system does not hedge with a fixed
   * delay.
   */
  default double hedgeDelayMs() {
    return Double.NaN;
  }

  /** Releases what this system holds for itself (not shared ensembles). */
  @Override
  default void close() {}
}
