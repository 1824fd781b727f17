package io.zoolander.wire;

/**
 * What a {@link Message.Read} asks for, mirroring the ZooKeeper read calls. Each kind has a stable
 * wire code.
 */
public enum ReadKind {
  /** {@code getData}: the node's data and version. */
  GET_DATA(1),
  /** {@code exists}: the node's version only. */
  EXISTS(2),
  /** {@code getChildren}: the node's child names and data version. */
  GET_CHILDREN(3);

  private final int code;

  ReadKind(int code) {
    this.code = code;
  }

  /** The stable code written on the wire. */
  public int code() {
    return code;
  }

  /**
   * The kind with this wire code.
   *
   * @throws IllegalArgumentException if no kind has this code
   */
  public static ReadKind fromCode(int code) {
    for (ReadKind k : values()) {
      if (k.code == code) {
        return k;
      }
    }
    throw new IllegalArgumentException("kind: unknown code " + code);
  }
}
