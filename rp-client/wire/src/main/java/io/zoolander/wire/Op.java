package io.zoolander.wire;

import static io.zoolander.wire.internal.Checks.checkData;
import static io.zoolander.wire.internal.Checks.checkPath;
import static io.zoolander.wire.internal.Checks.describe;
import static io.zoolander.wire.internal.Checks.expectedVersion;
import static io.zoolander.wire.internal.Checks.notNull;

import java.util.Arrays;
import org.apache.zookeeper.CreateMode;

/**
 * One replicated ZooKeeper write op. A {@link Message.Write} of several ops is one atomic ZooKeeper
 * {@code multi}.
 *
 * <p>Ops are validated when built: the path must be a valid ZooKeeper path, data at most {@link
 * WireSettings#MAX_DATA_BYTES}, an expected version {@code -1} (any) or {@code >= 0}, with
 * ZooKeeper's semantics. Ephemeral, container and TTL nodes are rejected: sessions are per
 * ensemble, so they cannot be replicated. A failure throws {@link IllegalArgumentException} naming
 * the field.
 *
 * <p>Data arrays are not copied, for speed: do not modify an array after handing it to an op.
 * Equality compares data by content.
 */
public sealed interface Op {

  /**
   * The znode the op acts on (for a sequential create, the prefix of the name ZooKeeper will
   * generate).
   */
  String path();

  /** {@code create(path, data, mode)}; the reply carries the created path. */
  static Create create(String path, byte[] data) {
    return new Create(path, data, CreateMode.PERSISTENT);
  }

  /** {@code create(path, data, PERSISTENT_SEQUENTIAL)}; {@code path} may end in '/'. */
  static Create createSequential(String path, byte[] data) {
    return new Create(path, data, CreateMode.PERSISTENT_SEQUENTIAL);
  }

  /** {@code setData(path, data, version)}; {@code version} {@code -1} matches any version. */
  static SetData setData(String path, byte[] data, int version) {
    return new SetData(path, data, version);
  }

  /** {@code delete(path, version)}; {@code version} {@code -1} matches any version. */
  static Delete delete(String path, int version) {
    return new Delete(path, version);
  }

  /** {@code check(path, version)}; {@code version} {@code -1} only checks that the node exists. */
  static Check check(String path, int version) {
    return new Check(path, version);
  }

  /**
   * Creates a persistent node.
   *
   * @param mode {@link CreateMode#PERSISTENT} or {@link CreateMode#PERSISTENT_SEQUENTIAL}
   */
  // The array is handed over without copying (a frame's bytes, decoded once); equals, hashCode and
  // toString are overridden below to use the array's content.
  @SuppressWarnings("ArrayRecordComponent")
  record Create(String path, byte[] data, CreateMode mode) implements Op {
    /**
     * @throws IllegalArgumentException if a field is invalid; the message names it
     */
    public Create {
      notNull(mode, "mode");
      if (mode != CreateMode.PERSISTENT && mode != CreateMode.PERSISTENT_SEQUENTIAL) {
        throw new IllegalArgumentException(
            "mode: "
                + mode
                + " is not replicated (sessions, containers and TTLs are"
                + " per ensemble); use PERSISTENT or PERSISTENT_SEQUENTIAL");
      }
      checkPath(path, "path", mode.isSequential());
      checkData(data, "data");
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Create c
          && path.equals(c.path)
          && mode == c.mode
          && Arrays.equals(data, c.data);
    }

    @Override
    public int hashCode() {
      return (path.hashCode() * 31 + mode.hashCode()) * 31 + Arrays.hashCode(data);
    }

    @Override
    public String toString() {
      return "Create[path=" + path + ", data=" + describe(data) + ", mode=" + mode + "]";
    }
  }

  /** Replaces a node's data if its version matches. */
  // The array is handed over without copying (a frame's bytes, decoded once); equals, hashCode and
  // toString are overridden below to use the array's content.
  @SuppressWarnings("ArrayRecordComponent")
  record SetData(String path, byte[] data, int version) implements Op {
    /**
     * @throws IllegalArgumentException if a field is invalid; the message names it
     */
    public SetData {
      checkPath(path, "path", false);
      checkData(data, "data");
      expectedVersion(version, "version");
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof SetData s
          && path.equals(s.path)
          && version == s.version
          && Arrays.equals(data, s.data);
    }

    @Override
    public int hashCode() {
      return (path.hashCode() * 31 + version) * 31 + Arrays.hashCode(data);
    }

    @Override
    public String toString() {
      return "SetData[path=" + path + ", data=" + describe(data) + ", version=" + version + "]";
    }
  }

  /** Deletes a childless node if its version matches. */
  record Delete(String path, int version) implements Op {
    /**
     * @throws IllegalArgumentException if a field is invalid; the message names it
     */
    public Delete {
      checkPath(path, "path", false);
      expectedVersion(version, "version");
    }
  }

  /** Fails (and so fails its multi) unless the node exists with this version. */
  record Check(String path, int version) implements Op {
    /**
     * @throws IllegalArgumentException if a field is invalid; the message names it
     */
    public Check {
      checkPath(path, "path", false);
      expectedVersion(version, "version");
    }
  }
}
