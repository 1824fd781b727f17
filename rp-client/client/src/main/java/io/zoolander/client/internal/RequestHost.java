package io.zoolander.client.internal;

import io.zoolander.client.InconsistencyEvent;

/**
 * What the client's requests in flight (its writes, reads and barriers) need of the rest of the
 * client. Called on the client's event loop.
 */
interface RequestHost {
  boolean closed();

  void advanceSeen(long seq);

  /** The builder index of the duplicate with this id, -1 if unknown. */
  int indexOf(int duplicateId);

  void notifyReply(boolean write, long requestId, int index, long latencyNanos, boolean first);

  void reportInconsistency(InconsistencyEvent event);
}
