package io.zoolander.server.internal.plugin;

import io.zoolander.server.internal.zk.ZkOps;
import io.zoolander.wire.Op;
import io.zoolander.wire.OpResult;
import io.zoolander.wire.Znodes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.zookeeper.data.Stat;

/**
 * Predicts the results a write's multi will have if it succeeds, so that the client record written
 * in the same multi can hold them (a retried write is answered with the original results). No I/O;
 * confined to the applier thread.
 *
 * <p>Most results follow from the ops alone: a create's path, {@code setData(path, v)}'s new
 * version {@code v + 1}, a delete, a check. Two need the tree as it is before the multi: the new
 * version of {@code setData(path, -1)} (the node's version plus one) and the name of a sequential
 * create: its parent's count of child creates, formatted {@code %010d}, as ZooKeeper's {@code
 * PrepRequestProcessor} does. That count is the parent's internal {@code cversion}, not the one a
 * client sees: {@code DataNode.copyStat} reports {@code 2 x creates - children} (a delete counts as
 * a change there), so the count is {@code (cversion + numChildren) / 2} of a client's {@link Stat}.
 * {@link #statsNeeded} names the znodes whose {@link Stat} the prediction needs and does not know;
 * {@link #predict} then replays the multi as ZooKeeper would: a create sets its node to version 0
 * and adds one to its parent's create count (a delete does not change it), a setData adds one to
 * the version.
 *
 * <p>Only the plugin's applier writes under the data root, one write at a time, so what it learns
 * stays true: after a multi applied as predicted, {@link #applied} keeps the replayed nodes (a
 * bounded, least-recently-used cache), and a later write to the same nodes needs no read. The
 * applier compares every prediction with the actual results; on a mismatch, and whenever a
 * ZooKeeper failure hides what happened, it calls {@link #forget}.
 */
final class ResultPredictor {

  /** Nodes remembered at most. */
  static final int CACHE_SIZE = 10_000;

  /** A node's version and its count of child creates (ZooKeeper's internal cversion). */
  private static final class Node {
    int version;
    int creates;

    Node(int version, int creates) {
      this.version = version;
      this.creates = creates;
    }

    static Node of(Stat stat) {
      return new Node(stat.getVersion(), createsOf(stat));
    }

    Node copy() {
      return new Node(version, creates);
    }
  }

  /**
   * @return how many children were ever created under the node of {@code stat}: the number
   *     ZooKeeper gives the next sequential child
   */
  static int createsOf(Stat stat) {
    return (stat.getCversion() + stat.getNumChildren()) / 2;
  }

  /** Marks a node known to be absent. */
  private static final Node ABSENT = new Node(-1, -1);

  /**
   * A prediction and the nodes as they will be after the multi.
   *
   * @param results the write's results if its multi succeeds; null if the multi cannot succeed as
   *     far as the known stats tell (a setData or a sequential create on an absent node): it will
   *     fail, and its failure is recorded
   */
  record Prediction(List<OpResult> results, Map<String, Node> after) {}

  private final Znodes znodes;
  private final Map<String, Node> known =
      new LinkedHashMap<>(256, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Node> eldest) {
          return size() > CACHE_SIZE;
        }
      };

  ResultPredictor(Znodes znodes) {
    this.znodes = znodes;
  }

  /**
   * @return the znodes whose stat {@link #predict} needs and does not know: the targets of {@code
   *     setData(path, -1)} and the parents of sequential creates, unless the write creates them
   *     first; empty for most writes
   */
  Set<String> statsNeeded(List<Op> ops) {
    Set<String> needed = new LinkedHashSet<>();
    Set<String> created = new HashSet<>();
    for (Op op : ops) {
      String znode =
          op instanceof Op.Create c ? ZkOps.createPath(znodes, c) : znodes.toZnode(op.path());
      if (op instanceof Op.Create c) {
        if (c.mode().isSequential()) {
          String parent = parentOf(znode);
          if (!created.contains(parent) && !known.containsKey(parent)) {
            needed.add(parent);
          }
        } else {
          created.add(znode);
        }
      } else if (op instanceof Op.SetData s) {
        if (s.version() < 0 && !created.contains(znode) && !known.containsKey(znode)) {
          needed.add(znode);
        }
      } else if (op instanceof Op.Delete) {
        created.remove(znode);
      }
    }
    return needed;
  }

  /**
   * @param stats the stat of every znode {@link #statsNeeded} named, read just before; {@code null}
   *     for an absent one
   */
  Prediction predict(List<Op> ops, Map<String, Stat> stats) {
    Map<String, Node> tree = new HashMap<>();
    return new Prediction(replay(ops, tree, stats), tree);
  }

  /**
   * Predicts consecutive writes applied together in one multi (a batch, see {@link Batch}): each
   * write sees the tree the writes before it leave.
   *
   * @param stats the stat of every znode {@link #statsNeeded} named for all the writes' ops
   *     together
   * @return the results of each write, as many as could be predicted (the first write whose multi
   *     cannot succeed as far as the known stats tell, and those after it, have none); {@link
   *     BatchPrediction#after} is the tree after all the writes, valid only if every write was
   *     predicted
   */
  BatchPrediction predictEach(List<List<Op>> writes, Map<String, Stat> stats) {
    Map<String, Node> tree = new HashMap<>();
    List<List<OpResult>> results = new ArrayList<>(writes.size());
    for (List<Op> ops : writes) {
      List<OpResult> one = replay(ops, tree, stats);
      if (one == null) {
        break;
      }
      results.add(one);
    }
    return new BatchPrediction(results, new Prediction(null, tree));
  }

  /**
   * The results of a batch's writes and the prediction whose {@link Prediction#after} {@link
   * #applied} takes.
   *
   * @param results one list per write predicted, in order
   */
  record BatchPrediction(List<List<OpResult>> results, Prediction after) {}

  /**
   * Replays {@code ops} on {@code tree}; null if the multi cannot succeed as far as the known stats
   * tell.
   */
  private List<OpResult> replay(List<Op> ops, Map<String, Node> tree, Map<String, Stat> stats) {
    List<OpResult> results = new ArrayList<>(ops.size());
    for (Op op : ops) {
      if (op instanceof Op.Create c) {
        String znode = ZkOps.createPath(znodes, c);
        Node parent = node(tree, stats, parentOf(znode));
        String created = znode;
        if (c.mode().isSequential()) {
          if (parent == null) {
            return null;
          }
          created = znode + String.format(Locale.ENGLISH, "%010d", parent.creates);
        }
        if (parent != null) {
          parent.creates++;
        }
        tree.put(created, new Node(0, 0));
        results.add(new OpResult.Created(znodes.toApplicationPath(created)));
      } else if (op instanceof Op.SetData s) {
        String znode = znodes.toZnode(op.path());
        Node node = node(tree, stats, znode);
        int version;
        if (s.version() >= 0) {
          version = s.version() + 1;
        } else if (node != null) {
          version = node.version + 1;
        } else {
          return null;
        }
        if (node != null) {
          node.version = version;
        } else {
          tree.remove(znode); // unknown before; its create count still is
        }
        results.add(new OpResult.DataSet(version));
      } else if (op instanceof Op.Delete) {
        tree.put(znodes.toZnode(op.path()), ABSENT);
        results.add(new OpResult.Deleted());
      } else {
        results.add(new OpResult.Checked());
      }
    }
    return results;
  }

  /**
   * The multi of {@code prediction} applied and its results were as predicted: remember the nodes
   * it changed.
   */
  void applied(Prediction prediction) {
    known.putAll(prediction.after());
  }

  /** The multi failed: nothing changed, and the stats read before it are still true. */
  void learn(Map<String, Stat> stats) {
    for (Map.Entry<String, Stat> e : stats.entrySet()) {
      known.put(e.getKey(), e.getValue() == null ? ABSENT : Node.of(e.getValue()));
    }
  }

  /** Forgets every node: what happened in ZooKeeper is not known for sure. */
  void forget() {
    known.clear();
  }

  /**
   * @return how many nodes are remembered
   */
  int knownNodes() {
    return known.size();
  }

  /**
   * @return the node as the replay has it (a copy, from {@code stats} or the cache, when first
   *     touched); null if absent or unknown
   */
  private Node node(Map<String, Node> tree, Map<String, Stat> stats, String znode) {
    Node node = tree.get(znode);
    if (node == null && !tree.containsKey(znode)) {
      if (stats.containsKey(znode)) {
        Stat stat = stats.get(znode);
        node = stat == null ? ABSENT : Node.of(stat);
      } else {
        Node cached = known.get(znode);
        node = cached == null || cached == ABSENT ? cached : cached.copy();
      }
      if (node != null) {
        tree.put(znode, node);
      }
    }
    return node == ABSENT ? null : node;
  }

  /**
   * The parent of a znode as ZooKeeper computes it ({@code /a/b/} names a child of {@code /a/b}).
   */
  static String parentOf(String znode) {
    int slash = znode.lastIndexOf('/');
    return slash <= 0 ? "/" : znode.substring(0, slash);
  }
}
