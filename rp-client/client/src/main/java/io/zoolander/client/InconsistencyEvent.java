package io.zoolander.client;

import java.util.List;

/**
 * Two duplicates answered the same thing differently: replies for the same write (same seq) with
 * different results, or reads of the same path at the same applied seq with different data, version
 * or children. Duplicates apply the same writes in the same order, so this means one of them
 * diverged (a bug, or a write made around Zoolander).
 *
 * @param seq the write's seq, or the applied seq both reads were made at
 * @param what the write's request id or the read path
 * @param duplicateIds the duplicates whose answers differ
 * @param description what differs
 */
public record InconsistencyEvent(
    long seq, String what, List<Integer> duplicateIds, String description) {
  public InconsistencyEvent {
    duplicateIds = List.copyOf(duplicateIds);
  }
}
