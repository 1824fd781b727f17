package io.zoolander.wire;

/** What a peer is, announced in its {@link Message.Hello}. Each role has a stable wire code. */
public enum Role {
  /** An application's SDK: sends WRITE and READ, receives REPLY and READ_REPLY. */
  CLIENT(1),
  /** The plugin on a duplicate's leader: receives SEQUENCED, sends ACK, RETRANSMIT and STATUS. */
  PLUGIN(2),
  /** The repeater: sequences writes and broadcasts them to every plugin. */
  REPEATER(3),
  /** An operator tool. */
  ADMIN(4);

  private final int code;

  Role(int code) {
    this.code = code;
  }

  /** The stable code written on the wire. */
  public int code() {
    return code;
  }

  /**
   * The role with this wire code.
   *
   * @throws IllegalArgumentException if no role has this code
   */
  public static Role fromCode(int code) {
    for (Role r : values()) {
      if (r.code == code) {
        return r;
      }
    }
    throw new IllegalArgumentException("role: unknown code " + code);
  }
}
