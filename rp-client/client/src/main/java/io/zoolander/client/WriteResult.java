package io.zoolander.client;

import io.zoolander.wire.OpResult;
import java.util.List;
import org.apache.zookeeper.KeeperException;

/**
 * The outcome of a sequenced write, from the first duplicate that replied.
 *
 * @param seq the global sequence number the repeater gave the write; every duplicate applies it at
 *     this position
 * @param duplicateId the duplicate whose reply completed the write
 * @param results one result per op, in ZooKeeper's multi convention (a failed multi reports the
 *     failing op's code)
 */
public record WriteResult(long seq, int duplicateId, List<OpResult> results) {
  public WriteResult {
    results = List.copyOf(results);
  }

  /**
   * {@code OK}, or the code of the first op that failed (the whole write then changed nothing but
   * the seq).
   */
  public KeeperException.Code code() {
    for (OpResult r : results) {
      if (r.code() != KeeperException.Code.OK) {
        return r.code();
      }
    }
    return KeeperException.Code.OK;
  }

  public boolean succeeded() {
    return code() == KeeperException.Code.OK;
  }
}
