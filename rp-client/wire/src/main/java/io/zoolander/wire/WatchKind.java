package io.zoolander.wire;

/**
 * What a {@link Message.Watch} watches, mirroring ZooKeeper 3.6+ watches. Each kind has a stable
 * wire code.
 */
public enum WatchKind {
  /**
   * A one-shot data watch ({@code getData(path, watcher)}, {@code exists(path, watcher)}): fires
   * once, on the first NODE_CREATED, NODE_DELETED or NODE_DATA_CHANGED of the path.
   */
  DATA(1),
  /**
   * A one-shot child watch ({@code getChildren(path, watcher)}): fires once, on the first
   * NODE_CHILDREN_CHANGED or NODE_DELETED of the path.
   */
  CHILDREN(2),
  /**
   * A persistent recursive watch ({@code addWatch(path, PERSISTENT_RECURSIVE)}): every
   * NODE_CREATED, NODE_DELETED and NODE_DATA_CHANGED of the path and of every node below it, until
   * removed; no NODE_CHILDREN_CHANGED (as in ZooKeeper).
   */
  PERSISTENT_RECURSIVE(3);

  private final int code;

  WatchKind(int code) {
    this.code = code;
  }

  /** The stable code written on the wire. */
  public int code() {
    return code;
  }

  /** Whether a watch of this kind is removed once it has fired. */
  public boolean oneShot() {
    return this != PERSISTENT_RECURSIVE;
  }

  /**
   * The kind with this wire code.
   *
   * @throws IllegalArgumentException if no kind has this code
   */
  public static WatchKind fromCode(int code) {
    for (WatchKind k : values()) {
      if (k.code == code) {
        return k;
      }
    }
    throw new IllegalArgumentException("kind: unknown code " + code);
  }
}
