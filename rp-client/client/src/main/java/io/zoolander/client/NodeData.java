package io.zoolander.client;

import java.util.Arrays;

/**
 * A node's data as one duplicate returned it.
 *
 * @param data the node's data (never null)
 * @param version the node's data version
 * @param appliedSeq the duplicate's applied seq when it read the node: the read reflects every
 *     write up to it
 * @param duplicateId the duplicate that answered first
 */
// The data is handed over without copying (decoded from the reply); equals, hashCode and toString
// are overridden below to use the array's content.
@SuppressWarnings("ArrayRecordComponent")
public record NodeData(byte[] data, int version, long appliedSeq, int duplicateId) {
  @Override
  public boolean equals(Object o) {
    return o instanceof NodeData n
        && Arrays.equals(data, n.data)
        && version == n.version
        && appliedSeq == n.appliedSeq
        && duplicateId == n.duplicateId;
  }

  @Override
  public int hashCode() {
    return 31 * Arrays.hashCode(data) + Long.hashCode(appliedSeq) + 7 * version + duplicateId;
  }

  @Override
  public String toString() {
    return "NodeData["
        + data.length
        + " bytes, version="
        + version
        + ", appliedSeq="
        + appliedSeq
        + ", duplicate="
        + duplicateId
        + "]";
  }
}
