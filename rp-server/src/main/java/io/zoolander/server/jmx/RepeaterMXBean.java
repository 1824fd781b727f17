package io.zoolander.server.jmx;

import java.util.List;

/**
 * The repeater, as an MXBean: {@link ZoolanderJmx#REPEATER}. Attributes are snapshots taken when read.
 */
public interface RepeaterMXBean {
  /** The repeater's epoch; -1 before it started. */
  long getEpoch();

  /** The seq the next write gets; -1 before start. */
  long getNextSeq();

  /** Sequenced writes the retransmission log holds; -1 when not running. */
  int getLogSize();

  /** Whether a newer repeater deposed this one (it then refuses every write). */
  boolean isDeposed();

  /** Where clients connect, {@code host:port}; empty before start. */
  String getClientAddress();

  /** How many duplicates are fenced. */
  int getFencedDuplicates();

  /** Every duplicate, in configuration order: id, state, applied seq, lag, endpoint. */
  List<DuplicateInfo> getDuplicates();
}
