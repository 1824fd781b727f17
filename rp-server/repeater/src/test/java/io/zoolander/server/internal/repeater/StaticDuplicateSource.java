package io.zoolander.server.internal.repeater;

import io.zoolander.wire.BookkeepingState;
import io.zoolander.wire.PluginEndpoint;
import java.util.Optional;
import java.util.function.Consumer;

/** A duplicate with a fixed state and endpoint, without ZooKeeper: for benchmarks. */
final class StaticDuplicateSource implements DuplicateSource {
  private final PluginEndpoint endpoint;
  private final BookkeepingState state;

  StaticDuplicateSource(PluginEndpoint endpoint, BookkeepingState state) {
    this.endpoint = endpoint;
    this.state = state;
  }

  @Override
  public int duplicateId() {
    return endpoint.duplicateId();
  }

  @Override
  public String connectString() {
    return "static:" + endpoint.address();
  }

  @Override
  public BookkeepingState readState(long timeoutMillis) {
    return state;
  }

  @Override
  public Claim claim(long epoch, long timeoutMillis) {
    return new Claim(new BookkeepingState(epoch, state.appliedSeq()), Optional.of(endpoint));
  }

  @Override
  public void watchEndpoint(Consumer<Optional<PluginEndpoint>> listener) {
    listener.accept(Optional.of(endpoint));
  }

  @Override
  public void close() {}
}
