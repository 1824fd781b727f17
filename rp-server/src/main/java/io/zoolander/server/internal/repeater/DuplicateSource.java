package io.zoolander.server.internal.repeater;

import io.zoolander.wire.BookkeepingState;
import io.zoolander.wire.PluginEndpoint;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * What the repeater learns about one duplicate from outside the wire protocol: its bookkeeping state at start and the
 * endpoint of its active plugin. {@link ZooKeeperDuplicateSource} reads both from the duplicate's ensemble; a benchmark
 * can supply them directly.
 */
public interface DuplicateSource extends AutoCloseable {

  int duplicateId();

  /** Where the duplicate is, for logs and {@link io.zoolander.server.repeater.DuplicateView#connectString()}. */
  String connectString();

  /**
   * Reads the duplicate's bookkeeping state ({@link BookkeepingState#INITIAL} when there is none), blocking.
   *
   * @param timeoutMillis bound on the whole read
   * @throws Exception if it cannot be read in time or is not a bookkeeping record
   */
  BookkeepingState readState(long timeoutMillis) throws Exception;

  /**
   * Starts reporting the endpoint: {@code listener} is called on every change (appearance, change, disappearance),
   * the first time once the endpoint is known; it must not block.
   */
  void watchEndpoint(Consumer<Optional<PluginEndpoint>> listener) throws Exception;

  /** Stops watching. */
  @Override
  void close();
}
