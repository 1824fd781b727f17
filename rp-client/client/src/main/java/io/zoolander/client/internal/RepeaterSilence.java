package io.zoolander.client.internal;

/**
 * Tells when the repeater connection is probably half-open: its peer gone without a goodbye (a host
 * that lost power, a network that drops everything), so the connection still looks ready while
 * every WRITE sent on it vanishes, and only TCP's retransmission limit (minutes) would end it. The
 * repeater sends nothing in the normal case (the plugins reply), so the signal is a write sent
 * {@link #SENDS_BEFORE_SUSPECTING} times with nothing at all heard since it was first sent: no
 * message from the repeater, no reply to any write, while some plugin is connected (so the silence
 * is not theirs). The client then drops the connection and connects again, to the next repeater
 * address it knows; pending writes are re-sent there with their request ids, so a suspicion that
 * was wrong (a stall of every duplicate) costs a reconnection, not a write. At most once per write,
 * and only for writes begun after the last suspicion, so a long stall does not make it reconnect at
 * every retry.
 *
 * <p>Confined to the client's event loop; times are the client's ticker's nanoseconds.
 */
final class RepeaterSilence {
  /** Sends of one write (the first and its retries) with nothing heard before suspecting. */
  static final int SENDS_BEFORE_SUSPECTING = 3;

  private boolean heardAny;
  private long lastHeardNanos;
  private boolean suspectedAny;
  private long lastSuspectedNanos;

  /** Something arrived that shows writes get through: any message from the repeater, a REPLY. */
  void heard(long nowNanos) {
    heardAny = true;
    lastHeardNanos = nowNanos;
  }

  /**
   * Whether to drop the repeater connection before sending a write once more.
   *
   * @param writeStartNanos when the write was first sent
   * @param sends how many times it has been sent so far
   * @param repeaterReady whether the repeater connection looks ready
   * @param somePluginReady whether some plugin's connection is ready
   */
  boolean suspect(
      long writeStartNanos,
      int sends,
      boolean repeaterReady,
      boolean somePluginReady,
      long nowNanos) {
    if (sends < SENDS_BEFORE_SUSPECTING
        || !repeaterReady
        || !somePluginReady
        || (heardAny && lastHeardNanos - writeStartNanos >= 0)
        || (suspectedAny && lastSuspectedNanos - writeStartNanos >= 0)) {
      return false;
    }
    suspectedAny = true;
    lastSuspectedNanos = nowNanos;
    return true;
  }
}
