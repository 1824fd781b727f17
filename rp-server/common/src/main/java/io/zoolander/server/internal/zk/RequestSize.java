package io.zoolander.server.internal.zk;

import io.zoolander.wire.BookkeepingState;
import io.zoolander.wire.ClientRecord;
import io.zoolander.wire.Op;
import io.zoolander.wire.Znodes;
import java.util.List;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;

/**
 * Whether a write can be applied as one ZooKeeper request, decided before it is sequenced: the
 * repeater refuses a write that cannot, so that it is not sequenced only to fail on every
 * duplicate. Internal: not part of the public API.
 *
 * <p>The plugin applies a write in one multi with two bookkeeping ops ({@link ZkOps}); when the
 * write and its client record do not fit together, it writes the record without any outcome, its
 * smallest form. This check builds that smallest multi, with the larger form of the record update
 * (a create, which carries an ACL) and the largest bookkeeping numbers, and leaves {@link
 * #HEADROOM_BYTES} for what the repeater cannot know (ACLs the plugin may put on its znodes): a
 * write it passes fits on every duplicate whose {@code jute.maxbuffer} is the one configured.
 */
public final class RequestSize {
  private RequestSize() {}

  /**
   * Room left under the limit for what the repeater does not know about the plugin's bookkeeping
   * ops.
   */
  public static final int HEADROOM_BYTES = 1024;

  /**
   * @param juteMaxBufferBytes the duplicates' {@code jute.maxbuffer}
   * @return whether a write of {@code ops} by client {@code clientId} fits in one ZooKeeper request
   *     of that size
   */
  public static boolean fitsInOneRequest(
      Znodes znodes, long clientId, List<Op> ops, int juteMaxBufferBytes) {
    byte[] record = new ClientRecord(Long.MAX_VALUE, List.of()).encode(); // the longest request id
    int limit = juteMaxBufferBytes - HEADROOM_BYTES;
    if (ZkOps.surelyFits(ops, record.length, limit)) {
      return true;
    }
    org.apache.zookeeper.Op recordUpdate =
        org.apache.zookeeper.Op.create(
            znodes.client(clientId), record, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    List<org.apache.zookeeper.Op> multi =
        ZkOps.multi(
            znodes,
            new BookkeepingState(Long.MAX_VALUE, Long.MAX_VALUE),
            Integer.MAX_VALUE,
            recordUpdate,
            ops);
    return ZkOps.requestBytes(multi) <= limit;
  }
}
