package io.zoolander.server.repeater;

import io.zoolander.wire.ErrorCode;

/**
 * Hears about changes the repeater makes or sees. Every method has an empty default. Calls come one
 * at a time, in the order the changes happened, on a dedicated notification thread (never the
 * sequencing thread); a slow listener delays later notifications, not sequencing.
 */
public interface RepeaterListener {

  /**
   * A duplicate's endpoint, link state or fencing changed (acked seq changes are not reported: read
   * them from {@link Repeater#duplicates()}).
   */
  default void duplicateChanged(DuplicateView duplicate) {}

  /**
   * The repeater fenced a duplicate (or learnt that it is fenced); it sends that duplicate nothing
   * more.
   */
  default void duplicateFenced(DuplicateView duplicate, String reason) {}

  /**
   * A plugin reported a newer repeater (STALE_EPOCH, or a STATUS or ACK with a higher epoch): this
   * repeater has stopped sequencing, closed its plugin connections and refuses every further WRITE
   * with STALE_EPOCH.
   *
   * @param duplicateId the duplicate that said so
   */
  default void deposed(int duplicateId, String reason) {}

  /**
   * A fenced or rejoining duplicate installed a state transfer and is streamed to again (it serves
   * reads again once caught up).
   */
  default void duplicateRejoined(Rejoin rejoin) {}

  /**
   * A state transfer failed: the duplicate stays fenced ({@link #duplicateFenced} reports it too).
   */
  default void rejoinFailed(int duplicateId, String reason) {}

  /** A plugin sent an ERROR that is neither STALE_EPOCH nor FENCED (those are reported above). */
  default void pluginError(int duplicateId, ErrorCode code, String message) {}
}
