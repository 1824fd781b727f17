package io.zoolander.client;

/**
 * The state of the client's connection to one {@link Peer}, in the manner of Curator's connection
 * states.
 *
 * <ul>
 *   <li>{@link #CONNECTED}: the first connection is up (for a duplicate: its plugin answered
 *       HELLO);
 *   <li>{@link #SUSPENDED}: the connection dropped; the client is reconnecting (a duplicate's reads
 *       go elsewhere);
 *   <li>{@link #RECONNECTED}: up again after a suspension;
 *   <li>{@link #LOST}: suspended for longer than the session timeout; the client keeps trying.
 * </ul>
 */
public enum ConnectionState {
  CONNECTED,
  SUSPENDED,
  RECONNECTED,
  LOST;

  /** Whether the peer can be used now. */
  public boolean isConnected() {
    return this == CONNECTED || this == RECONNECTED;
  }
}
