package io.zoolander.server.internal.security;

/**
 * What a server port allows a connection before it is closed: how long it may take to finish its
 * handshake, how long it may stall in the middle of a frame, how long one frame may take, and how
 * many connections may be open on the port at once (see {@link ConnectionGuard}). The public
 * builders and configs validate the values against the bounds here. Internal.
 *
 * @param handshakeTimeoutMs a connection that has not finished HELLO (and AUTH, when its role
 *     authenticates) this long after it was accepted is refused and closed; the TLS handshake
 *     counts
 * @param frameIdleTimeoutMs a connection whose peer has sent part of a frame and then nothing for
 *     this long (up to twice this long) is refused and closed; a connection with no partial frame
 *     is never closed for being quiet (the protocol has no heartbeat: a client with nothing to
 *     write sends nothing)
 * @param frameTimeoutMs a connection whose peer has been sending one frame for longer than this
 *     (closed within {@code frameIdleTimeoutMs} more) is refused and closed: a peer that trickles a
 *     byte at a time never stalls long enough for {@code frameIdleTimeoutMs}, but may not hold a
 *     partial frame for ever; time while the server has stopped reading (back-pressure) does not
 *     count
 * @param maxConnections most connections open on the port at once; more are answered with ERROR
 *     OVERLOADED and closed
 */
public record ConnectionLimits(
    long handshakeTimeoutMs, long frameIdleTimeoutMs, long frameTimeoutMs, int maxConnections) {

  /** Default {@code handshakeTimeoutMs}: 10 s, TLS included. */
  public static final long DEFAULT_HANDSHAKE_TIMEOUT_MS = 10_000;

  /** Default {@code frameIdleTimeoutMs}: 30 s. */
  public static final long DEFAULT_FRAME_IDLE_TIMEOUT_MS = 30_000;

  /**
   * Default {@code frameTimeoutMs}: 60 s, enough for the largest frame (about 1 MiB) at 20 KB/s.
   */
  public static final long DEFAULT_FRAME_TIMEOUT_MS = 60_000;

  /**
   * Default {@code maxConnections}: 1,024 per port. Each connection may hold one partial frame (at
   * most the largest frame, about 1 MiB), so this bounds what peers can pin in memory to about 1
   * GiB per port, and then only for {@code frameIdleTimeoutMs}, or {@code frameTimeoutMs} if they
   * keep sending.
   */
  public static final int DEFAULT_MAX_CONNECTIONS = 1_024;

  /** Smallest timeout accepted, in ms. */
  public static final long MIN_TIMEOUT_MS = 1;

  /** Largest timeout accepted, in ms: one hour. */
  public static final long MAX_TIMEOUT_MS = 3_600_000;

  /** Largest {@code maxConnections} accepted. */
  public static final int MAX_MAX_CONNECTIONS = 1_000_000;

  /** The defaults. */
  public static final ConnectionLimits DEFAULTS =
      new ConnectionLimits(
          DEFAULT_HANDSHAKE_TIMEOUT_MS,
          DEFAULT_FRAME_IDLE_TIMEOUT_MS,
          DEFAULT_FRAME_TIMEOUT_MS,
          DEFAULT_MAX_CONNECTIONS);

  /**
   * @throws IllegalArgumentException if a value is out of bounds; the message names it
   */
  public ConnectionLimits {
    check("handshakeTimeoutMs", handshakeTimeoutMs, MIN_TIMEOUT_MS, MAX_TIMEOUT_MS);
    check("frameIdleTimeoutMs", frameIdleTimeoutMs, MIN_TIMEOUT_MS, MAX_TIMEOUT_MS);
    check("frameTimeoutMs", frameTimeoutMs, MIN_TIMEOUT_MS, MAX_TIMEOUT_MS);
    check("maxConnections", maxConnections, 1, MAX_MAX_CONNECTIONS);
  }

  private static void check(String name, long value, long min, long max) {
    if (value < min || value > max) {
      throw new IllegalArgumentException(name + " must be " + min + ".." + max + ", was " + value);
    }
  }
}
