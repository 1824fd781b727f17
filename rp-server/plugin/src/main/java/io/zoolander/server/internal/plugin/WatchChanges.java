package io.zoolander.server.internal.plugin;

import io.zoolander.wire.Message.WatchEvent.Change;
import io.zoolander.wire.Op;
import io.zoolander.wire.OpResult;
import io.zoolander.wire.WatchEventType;
import java.util.ArrayList;
import java.util.List;

/**
 * The changes a write made, derived from its ops and their results (not from ZooKeeper's own watch
 * manager, whose zxids differ between duplicates): every duplicate derives the same changes for the
 * same seq. A create makes NODE_CREATED of the node (its actual path, for a sequential create) and
 * NODE_CHILDREN_CHANGED of its parent; a delete NODE_DELETED and NODE_CHILDREN_CHANGED of the
 * parent; a setData NODE_DATA_CHANGED; a check nothing. A write with a failed op changed nothing (a
 * multi is atomic). Paths are the application's. Stateless.
 */
final class WatchChanges {

  private WatchChanges() {}

  /**
   * @return the changes, in op order; empty if the write failed or only checked
   */
  static List<Change> of(List<Op> ops, List<OpResult> results) {
    if (results.size() != ops.size()) {
      return List.of();
    }
    for (OpResult r : results) {
      if (r instanceof OpResult.Failed) {
        return List.of();
      }
    }
    List<Change> changes = new ArrayList<>(2 * ops.size());
    for (int i = 0; i < ops.size(); i++) {
      Op op = ops.get(i);
      OpResult result = results.get(i);
      if (op instanceof Op.Create && result instanceof OpResult.Created created) {
        changes.add(new Change(WatchEventType.NODE_CREATED, created.path()));
        changes.add(new Change(WatchEventType.NODE_CHILDREN_CHANGED, parent(created.path())));
      } else if (op instanceof Op.Delete delete) {
        changes.add(new Change(WatchEventType.NODE_DELETED, delete.path()));
        changes.add(new Change(WatchEventType.NODE_CHILDREN_CHANGED, parent(delete.path())));
      } else if (op instanceof Op.SetData set) {
        changes.add(new Change(WatchEventType.NODE_DATA_CHANGED, set.path()));
      }
    }
    return changes;
  }

  /** The parent of an absolute path other than "/": "/" for a top-level node. */
  static String parent(String path) {
    int slash = path.lastIndexOf('/');
    return slash <= 0 ? "/" : path.substring(0, slash);
  }
}
