package io.zoolander.wire;

import static io.zoolander.wire.internal.Checks.atLeast;
import static io.zoolander.wire.internal.Checks.checkPath;
import static io.zoolander.wire.internal.Checks.notNull;

import org.apache.zookeeper.KeeperException;

/**
 * The outcome of one {@link Op}, like ZooKeeper's {@code OpResult}. A {@link Message.Reply} holds
 * one per op of its write, in order.
 *
 * <p>As in ZooKeeper, when one op of a multi fails every result is a {@link Failed}: the failing op
 * carries its code, the ops before it {@link KeeperException.Code#OK} (rolled back) and the ops
 * after it {@link KeeperException.Code#RUNTIMEINCONSISTENCY}.
 */
public sealed interface OpResult {

  /** {@link KeeperException.Code#OK} for every success, the failure's code for {@link Failed}. */
  KeeperException.Code code();

  /**
   * A create succeeded; {@code path} is the node created (with its sequence suffix, if sequential).
   */
  record Created(String path) implements OpResult {
    /**
     * @throws IllegalArgumentException if a field is invalid; the message names it
     */
    public Created {
      checkPath(path, "path", false);
    }

    @Override
    public KeeperException.Code code() {
      return KeeperException.Code.OK;
    }
  }

  /**
   * A setData succeeded; {@code version} is the node's new data version (ZooKeeper's {@code
   * Stat.version}).
   */
  record DataSet(int version) implements OpResult {
    /**
     * @throws IllegalArgumentException if a field is invalid; the message names it
     */
    public DataSet {
      atLeast(version, 0, "version");
    }

    @Override
    public KeeperException.Code code() {
      return KeeperException.Code.OK;
    }
  }

  /** A delete succeeded. */
  record Deleted() implements OpResult {
    @Override
    public KeeperException.Code code() {
      return KeeperException.Code.OK;
    }
  }

  /** A check succeeded. */
  record Checked() implements OpResult {
    @Override
    public KeeperException.Code code() {
      return KeeperException.Code.OK;
    }
  }

  /**
   * The op failed, or was rolled back with its multi ({@code code} OK); like ZooKeeper's {@code
   * ErrorResult}.
   */
  record Failed(KeeperException.Code code) implements OpResult {
    /**
     * @throws IllegalArgumentException if a field is invalid; the message names it
     */
    public Failed {
      notNull(code, "code");
    }
  }
}
