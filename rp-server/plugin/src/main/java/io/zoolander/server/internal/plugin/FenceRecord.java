package io.zoolander.server.internal.plugin;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.zoolander.wire.Znodes;
import java.util.List;
import java.util.Optional;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The durable half of a fence: {@link Znodes#fenceRecord()} in the duplicate's own ensemble,
 * holding the reason. A fence in memory alone was forgotten when the duplicate's leader died: the
 * next plugin (the same server restarted, or a follower elected) reported its applied seq, the
 * repeater resumed it, and whatever made it differ (a plain client's write into the data root, seen
 * a moment before the crash) stayed for good (chaos seed 1086). Written when the plugin fences,
 * read at start, deleted when a state transfer begins to install (from then on the transfer marker
 * says the data root is not to be trusted, until the install's last multi).
 *
 * <p>{@link #write} does not wait, so it may run on any thread, ZooKeeper's commit threads
 * included: a fence for a foreign write is recorded at once, even while the applier is busy or
 * stalled, and a crash before the applier takes the fence does not lose it. {@link #read} and
 * {@link #clear} take the session they are given.
 */
final class FenceRecord {

  private static final Logger LOG = LoggerFactory.getLogger(FenceRecord.class);

  /** ZooKeeper's data limit is far above this; a reason is a sentence, not a payload. */
  private static final int MAX_REASON_CHARS = 4_096;

  private final int duplicateId;
  private final String path;
  private final OwnSession session;
  private final List<ACL> acl;

  FenceRecord(int duplicateId, Znodes znodes, OwnSession session, List<ACL> acl) {
    this.duplicateId = duplicateId;
    this.path = znodes.fenceRecord();
    this.session = session;
    this.acl = acl;
  }

  /**
   * Records that the duplicate is fenced for {@code reason} without waiting: the create (or, when
   * the record exists, the update) is queued on the plugin's session, whose requests ZooKeeper
   * applies in order, so a later install's {@link #clear} on that session comes after it. Any
   * thread; never blocks. A failure (the session lost, the ensemble without a quorum) is logged,
   * not thrown: the fence in memory still holds, and a duplicate whose ensemble cannot take a write
   * applies nothing either.
   */
  void write(String reason) {
    byte[] data =
        (reason.length() > MAX_REASON_CHARS ? reason.substring(0, MAX_REASON_CHARS) : reason)
            .getBytes(UTF_8);
    ZooKeeper zk = session.zk();
    zk.create(
        path,
        data,
        acl,
        CreateMode.PERSISTENT,
        (rc, p, ctx, name) -> {
          if (rc == KeeperException.Code.NODEEXISTS.intValue()) {
            zk.setData(path, data, -1, (rc2, p2, ctx2, stat) -> failed(rc2), null);
          } else {
            failed(rc);
          }
        },
        null);
  }

  private void failed(int rc) {
    if (rc != KeeperException.Code.OK.intValue()) {
      LOG.warn(
          "Duplicate {}: cannot record the fence in {} ({}); if this server dies before a state"
              + " transfer, the next plugin does not know the duplicate was fenced",
          duplicateId,
          path,
          KeeperException.Code.get(rc));
    }
  }

  /**
   * @return the reason of a fence recorded by an earlier plugin of this duplicate, if any
   */
  static Optional<String> read(ZooKeeper zk, Znodes znodes)
      throws KeeperException, InterruptedException {
    try {
      byte[] data = zk.getData(znodes.fenceRecord(), false, null);
      return Optional.of(new String(data == null ? new byte[0] : data, UTF_8));
    } catch (KeeperException.NoNodeException e) {
      return Optional.empty();
    }
  }

  /** Deletes the record, if any: a state transfer is about to replace the data root. */
  static void clear(ZooKeeper zk, Znodes znodes) throws KeeperException, InterruptedException {
    try {
      zk.delete(znodes.fenceRecord(), -1);
    } catch (KeeperException.NoNodeException e) {
      // not fenced durably (fenced by the repeater, or the record could not be written)
    }
  }
}
