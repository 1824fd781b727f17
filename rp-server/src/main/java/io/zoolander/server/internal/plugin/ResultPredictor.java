package io.zoolander.server.internal.plugin;

import io.zoolander.wire.Op;
import io.zoolander.wire.OpResult;
import io.zoolander.wire.Znodes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.zookeeper.data.Stat;

/**
 * Predicts the results a write's multi will have if it succeeds, so that the client record written in the same multi
 * can hold them (a retried write is answered with the original results). Pure functions, no I/O.
 *
 * <p>Most results follow from the ops alone: a create's path, {@code setData(path, v)}'s new version {@code v + 1}, a
 * delete, a check. Two need the tree as it is before the multi: the new version of {@code setData(path, -1)} (the
 * node's version plus one) and the name of a sequential create (its parent's {@code cversion}, formatted {@code
 * %010d}, as ZooKeeper's {@code PrepRequestProcessor} does). {@link #statsNeeded} names the znodes whose {@link Stat}
 * the prediction needs; {@link #predict} then replays the multi as ZooKeeper would: a create sets its node to version
 * 0 and adds one to its parent's {@code cversion} (a delete does not change it), a setData adds one to the version.
 *
 * <p>Only the plugin's applier writes under the data root, one write at a time, so the stats read just before the
 * multi are the ones it sees. The applier still compares every prediction with the actual results and repairs the
 * record if they differ.
 */
final class ResultPredictor {

    private ResultPredictor() {
    }

    /** A node's version and cversion as the replay goes; {@code null} in the map: known to be absent. */
    private static final class Node {
        int version;
        int cversion;

        Node(int version, int cversion) {
            this.version = version;
            this.cversion = cversion;
        }
    }

    /**
     * @return the znodes whose stat {@link #predict} needs: the targets of {@code setData(path, -1)} and the parents of
     *     sequential creates, unless the write creates them first; empty for most writes
     */
    static Set<String> statsNeeded(Znodes znodes, List<Op> ops) {
        Set<String> needed = new LinkedHashSet<>();
        Set<String> created = new HashSet<>();
        for (Op op : ops) {
            String znode = op instanceof Op.Create c ? ZkOps.createPath(znodes, c) : znodes.toZnode(op.path());
            if (op instanceof Op.Create c) {
                if (c.mode().isSequential()) {
                    String parent = parentOf(znode);
                    if (!created.contains(parent)) {
                        needed.add(parent);
                    }
                } else {
                    created.add(znode);
                }
            } else if (op instanceof Op.SetData s) {
                if (s.version() < 0 && !created.contains(znode)) {
                    needed.add(znode);
                }
            } else if (op instanceof Op.Delete) {
                created.remove(znode);
            }
        }
        return needed;
    }

    /**
     * @param stats the stat of every znode {@link #statsNeeded} named, {@code null} for an absent one
     * @return the write's results if its multi succeeds, or {@code null} if the multi cannot succeed as far as the
     *     stats tell (a setData or a sequential create on an absent node): it will fail, and its failure is recorded
     */
    static List<OpResult> predict(Znodes znodes, List<Op> ops, Map<String, Stat> stats) {
        Map<String, Node> tree = new HashMap<>();
        List<OpResult> results = new ArrayList<>(ops.size());
        for (Op op : ops) {
            String znode = op instanceof Op.Create c ? ZkOps.createPath(znodes, c) : znodes.toZnode(op.path());
            if (op instanceof Op.Create c) {
                String parentPath = parentOf(znode);
                Node parent = node(tree, stats, parentPath);
                String created = znode;
                if (c.mode().isSequential()) {
                    if (parent == null) {
                        return null;
                    }
                    created = znode + String.format(Locale.ENGLISH, "%010d", parent.cversion);
                }
                if (parent != null) {
                    parent.cversion++;
                }
                tree.put(created, new Node(0, 0));
                results.add(new OpResult.Created(znodes.toApplicationPath(created)));
            } else if (op instanceof Op.SetData s) {
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
                    tree.put(znode, new Node(version, 0));
                }
                results.add(new OpResult.DataSet(version));
            } else if (op instanceof Op.Delete) {
                tree.put(znode, null);
                results.add(new OpResult.Deleted());
            } else {
                results.add(new OpResult.Checked());
            }
        }
        return results;
    }

    /** @return the node as the replay has it; from {@code stats} when first touched; null if absent or unknown */
    private static Node node(Map<String, Node> tree, Map<String, Stat> stats, String znode) {
        if (tree.containsKey(znode)) {
            return tree.get(znode);
        }
        Stat stat = stats.get(znode);
        Node node = stat == null ? null : new Node(stat.getVersion(), stat.getCversion());
        if (stats.containsKey(znode)) {
            tree.put(znode, node);
        }
        return node;
    }

    /** The parent of a znode as ZooKeeper computes it ({@code /a/b/} names a child of {@code /a/b}). */
    static String parentOf(String znode) {
        int slash = znode.lastIndexOf('/');
        return slash <= 0 ? "/" : znode.substring(0, slash);
    }
}
