package io.zoolander.wire;

/**
 * The state a duplicate's plugin reports in a {@link Message.Status}. Each state has a stable wire
 * code.
 */
public enum DuplicateState {
  /** The plugin is starting and has not yet read its applied sequence. */
  STARTING(1),
  /** Behind the repeater and asking for retransmission; not serving reads that need newer state. */
  CATCHING_UP(2),
  /** Applying writes in order and serving reads. */
  ACTIVE(3),
  /** Fell behind what the repeater's log still holds: stopped serving until a state transfer. */
  FENCED(4),
  /** Shutting down (leader change or stop). */
  STOPPED(5);

  private final int code;

  DuplicateState(int code) {
    this.code = code;
  }

  /** The stable code written on the wire. */
  public int code() {
    return code;
  }

  /**
   * The state with this wire code.
   *
   * @throws IllegalArgumentException if no state has this code
   */
  public static DuplicateState fromCode(int code) {
    for (DuplicateState s : values()) {
      if (s.code == code) {
        return s;
      }
    }
    throw new IllegalArgumentException("state: unknown code " + code);
  }
}
