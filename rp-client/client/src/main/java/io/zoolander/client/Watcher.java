package io.zoolander.client;

/**
 * Told of changes to the nodes it watches ({@link ZoolanderClient#getData(String, Watcher)}, {@link
 * ZoolanderClient#addPersistentRecursiveWatch}).
 *
 * <p>Threading: every watcher of a client runs on that client's one watch thread ({@code
 * zoolander-client-watch}), one event at a time, in delivery order. A watcher may call the client
 * (read, write, arm another watch) but should not block on it for long: the events behind it wait.
 * An exception it throws is logged and otherwise ignored.
 */
@FunctionalInterface
public interface Watcher {
  void process(WatchEvent event);
}
