package io.zoolander.server.repeater;

/**
 * The state of the repeater's link to one duplicate: where its connection to that duplicate's
 * plugin stands. (Not the client's {@code io.zoolander.client.ConnectionState}, which is a client's
 * connection to one peer.)
 */
public enum LinkState {
  /**
   * No plugin endpoint is published in the duplicate's ensemble (no leader, or its plugin is not up
   * yet).
   */
  WAITING_FOR_ENDPOINT,
  /** Connecting to the published endpoint. */
  CONNECTING,
  /** Connected, HELLO sent, waiting for the plugin's STATUS. */
  HANDSHAKING,
  /**
   * Sending the log from the plugin's applied seq, then the live stream (paused while the
   * connection is full).
   */
  STREAMING,
  /** The connection failed or was lost; reconnecting after a bounded, growing delay. */
  BACKING_OFF,
  /**
   * Not connecting: the duplicate is fenced (it is told so again if a new plugin endpoint appears),
   * the repeater was deposed by a newer one, or it is closed.
   */
  CLOSED
}
