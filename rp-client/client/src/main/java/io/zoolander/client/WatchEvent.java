package io.zoolander.client;

/**
 * A change a {@link Watcher} is told of: what happened to which node, and the write (seq) that did
 * it. Events are delivered once per change, in seq order, whichever duplicate reported them first.
 * By the time a watcher sees an event, the client's {@link ZoolanderClient#lastSeenSeq()} is at
 * least its seq, so a read issued from the watcher sees the change (or something newer).
 *
 * @param type what happened
 * @param path the node's application path; for {@link Type#RESYNC}, the watch's path
 * @param seq the write that made the change; for {@link Type#RESYNC}, the seq up to which anything
 *     may have changed
 */
public record WatchEvent(Type type, String path, long seq) {

  /** What happened: ZooKeeper's event types, plus {@link #RESYNC}. */
  public enum Type {
    /** The node was created. */
    NODE_CREATED,
    /** The node was deleted. */
    NODE_DELETED,
    /** The node's data was set. */
    NODE_DATA_CHANGED,
    /** A child of the node was created or deleted. */
    NODE_CHILDREN_CHANGED,
    /**
     * Resynchronise: the client cannot tell exactly what changed up to {@code seq} (the duplicates
     * it watches on no longer hold the changes since the last event delivered, e.g. after every
     * duplicate it watched on was lost for a long time, or one installed a state transfer).
     * Anything at or under the watch's path may have changed: read it again. A one-shot watch fires
     * with it like with any event; a persistent watch stays armed.
     */
    RESYNC
  }
}
