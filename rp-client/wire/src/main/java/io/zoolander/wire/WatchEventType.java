package io.zoolander.wire;

/**
 * What changed, in a {@link Message.WatchEvent}: ZooKeeper's event types, plus {@link #RESYNC}.
 * Each type has a stable wire code.
 */
public enum WatchEventType {
  /** The node was created. */
  NODE_CREATED(1),
  /** The node was deleted. */
  NODE_DELETED(2),
  /** The node's data was set. */
  NODE_DATA_CHANGED(3),
  /** A child of the node was created or deleted. */
  NODE_CHILDREN_CHANGED(4),
  /**
   * The duplicate cannot say what changed up to the event's seq (it no longer holds the events
   * since the watch's {@code sinceSeq}, or it installed a state transfer): anything under the
   * watch's path may have changed, so read it again. Its path is the watch's.
   */
  RESYNC(5);

  private final int code;

  WatchEventType(int code) {
    this.code = code;
  }

  /** The stable code written on the wire. */
  public int code() {
    return code;
  }

  /**
   * The type with this wire code.
   *
   * @throws IllegalArgumentException if no type has this code
   */
  public static WatchEventType fromCode(int code) {
    for (WatchEventType t : values()) {
      if (t.code == code) {
        return t;
      }
    }
    throw new IllegalArgumentException("type: unknown code " + code);
  }
}
