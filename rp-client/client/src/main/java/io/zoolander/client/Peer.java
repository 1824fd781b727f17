package io.zoolander.client;

/**
 * A peer the client holds a connection to: the repeater, or a duplicate's active plugin.
 *
 * @param kind which kind of peer
 * @param index for a duplicate, its position in the builder's list of duplicates (0-based), or, for
 *     a duplicate the client learned from the membership record while running (added online), the
 *     next position after those, in the order learned (a retired duplicate's position is never
 *     reused); -1 for the repeater
 */
public record Peer(Kind kind, int index) {
  public enum Kind {
    REPEATER,
    DUPLICATE
  }

  public static final Peer REPEATER = new Peer(Kind.REPEATER, -1);

  public static Peer duplicate(int index) {
    return new Peer(Kind.DUPLICATE, index);
  }

  @Override
  public String toString() {
    return kind == Kind.REPEATER ? "repeater" : "duplicate[" + index + "]";
  }
}
