package io.zoolander.client;

/**
 * Told about every detected inconsistency; called on the client's I/O thread, so it must not block.
 */
@FunctionalInterface
public interface InconsistencyListener {
  void inconsistencyDetected(InconsistencyEvent event);
}
