package io.zoolander.server.internal.repeater;

/**
 * A repeater tried to claim an epoch at a duplicate that already holds that epoch or a higher one:
 * another repeater claimed it first. Two repeaters can therefore never hold the same epoch (each
 * claims at a majority, and two majorities share a duplicate).
 */
public final class EpochTakenException extends Exception {
  private static final long serialVersionUID = 1L;

  private final int duplicateId;
  private final long heldEpoch;

  public EpochTakenException(int duplicateId, long claimedEpoch, long heldEpoch) {
    super(
        "duplicate "
            + duplicateId
            + " already holds epoch "
            + heldEpoch
            + ", so epoch "
            + claimedEpoch
            + " cannot be claimed there: another repeater has started since");
    this.duplicateId = duplicateId;
    this.heldEpoch = heldEpoch;
  }

  public int duplicateId() {
    return duplicateId;
  }

  /** The epoch the duplicate holds. */
  public long heldEpoch() {
    return heldEpoch;
  }
}
