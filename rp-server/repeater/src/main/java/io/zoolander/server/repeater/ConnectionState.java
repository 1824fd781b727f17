package io.zoolander.server.repeater;

/** Where the repeater's connection to one duplicate's plugin stands. */
public enum ConnectionState {
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
