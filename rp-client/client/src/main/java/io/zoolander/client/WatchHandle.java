package io.zoolander.client;

/**
 * A persistent watch, armed by {@link ZoolanderClient#addPersistentRecursiveWatch}: it delivers
 * events until {@link #close() closed} or the client closes.
 */
public interface WatchHandle extends AutoCloseable {

  /** The watched path. */
  String path();

  /**
   * Removes the watch on every duplicate; no event is delivered after this returns, except one
   * already running on the watch thread. Idempotent.
   */
  @Override
  void close();
}
