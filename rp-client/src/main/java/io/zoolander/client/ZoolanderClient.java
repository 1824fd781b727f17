package io.zoolander.client;

import io.zoolander.wire.Op;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A client of a Zoolander deployment: sequenced writes through the repeater, answered by the first duplicate.
 *
 * <p>Build one with {@link #builder()}; it is thread-safe and meant to be shared. Every operation is asynchronous and
 * completes exceptionally with a {@link ZoolanderException}. Paths are application paths (absolute ZooKeeper paths);
 * only persistent nodes are replicated, so ephemeral creates and watches do not exist here.
 */
public interface ZoolanderClient extends AutoCloseable {

  static ZoolanderClientBuilder builder() {
    return new ZoolanderClientBuilder();
  }

  /** This client's id, unique per client instance; the repeater and plugins use it to route replies. */
  long clientId();

  /**
   * Sequences {@code ops} as one write (more than one op is an atomic multi) and completes with the first duplicate's
   * result. A write whose ops fail (e.g. NODEEXISTS) still completes normally: see {@link WriteResult#code()}.
   */
  CompletableFuture<WriteResult> write(List<Op> ops);

  /** Creates a persistent node. */
  default CompletableFuture<WriteResult> create(String path, byte[] data) {
    return write(List.of(Op.create(path, data)));
  }

  /** Sets a node's data if its version matches ({@code -1}: any version). */
  default CompletableFuture<WriteResult> setData(String path, byte[] data, int version) {
    return write(List.of(Op.setData(path, data, version)));
  }

  /** Deletes a node if its version matches ({@code -1}: any version). */
  default CompletableFuture<WriteResult> delete(String path, int version) {
    return write(List.of(Op.delete(path, version)));
  }

  /** Closes every connection; pending operations fail with {@code CONNECTIONLOSS}. */
  @Override
  void close();
}
