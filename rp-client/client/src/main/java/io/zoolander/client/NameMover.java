package io.zoolander.client;

import io.zoolander.wire.ErrorCode;
import io.zoolander.wire.NameRoutes;
import io.zoolander.wire.NameRoutes.Frozen;
import io.zoolander.wire.NameRoutes.Moved;
import io.zoolander.wire.NameRoutes.Route;
import io.zoolander.wire.NameRoutes.Versioned;
import io.zoolander.wire.Op;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves one top-level name from partition A to partition B of a partitioned deployment, online,
 * through the partitions' route records ({@link NameRoutes}), which their repeaters check every
 * write against before sequencing it and their plugins every read:
 *
 * <ol>
 *   <li><b>Freeze at A</b> (A's client as mover): from that seq on, A sequences no other client's
 *       write to the name (NAME_FROZEN: they are sent again later), so the subtree stops changing.
 *   <li><b>Freeze at B</b> (B's client as mover): a client with a stale route cannot write the name
 *       at B while it is copied in.
 *   <li><b>Read the subtree at A</b>. A's client reads its own writes, the freeze included, so it
 *       reads every write sequenced before the freeze.
 *   <li><b>Copy it to B</b> in writes of at most {@link #MAX_OPS_PER_WRITE} creates, parents first;
 *       refused if B holds the name already, unless B's record says it moved away from B: then what
 *       B holds is a copy an earlier mover left (it stopped before deleting it), unreachable since,
 *       and it is deleted first.
 *   <li><b>Mark it moved at A</b>, with B's seq {@code t} of the last copy write: from then on A
 *       refuses every read and write of it (NAME_MOVED), and a client sent on to B waits until B's
 *       duplicates have applied {@code t}, so it reads the whole copy.
 *   <li><b>Unfreeze at B</b>: B serves the name. (Between 5 and 6, B serves reads of the copy and
 *       holds writes back, so nobody reads A's copy after B has a newer one.)
 *   <li><b>Delete A's copy</b>, children first (the mover's writes to it are still applied).
 * </ol>
 *
 * <p>A failure before step 5 undoes what was done (the copy at B deleted, both freezes ended) as
 * far as it can, and fails the move; from step 5 on the name has moved, and a failure leaves at
 * most A's copy behind, unreachable (every request for it is refused), for a later move back to
 * remove.
 *
 * <p>One move runs on a thread of its own, blocking on the partitions' clients.
 */
final class NameMover {
  private static final Logger LOG = LoggerFactory.getLogger(NameMover.class);

  /** Most ops in one copy or delete write: well below what one ZooKeeper request holds. */
  static final int MAX_OPS_PER_WRITE = 100;

  /** Most data bytes in one copy write (under the duplicates' default jute.maxbuffer of 1 MiB). */
  static final int MAX_BYTES_PER_WRITE = 256 * 1024;

  /** Reads of the route record before a refusal as moved is given up as unexplained. */
  private static final int LEARN_ATTEMPTS = 12;

  /** Attempts at a route record change that lose to another change. */
  private static final int CHANGE_ATTEMPTS = 5;

  private final List<ZoolanderClient> partitions;
  private final Map<String, Integer> movedNames;
  private final String name;
  private final int from;
  private final int to;

  NameMover(
      List<ZoolanderClient> partitions,
      Map<String, Integer> movedNames,
      String name,
      int from,
      int to) {
    this.partitions = partitions;
    this.movedNames = movedNames;
    this.name = name;
    this.from = from;
    this.to = to;
  }

  /**
   * Runs the move on a thread of its own. A name that has moved away from the source (this client
   * had not learned of it) is moved from where it lives.
   */
  CompletableFuture<Void> start() {
    return onOwnThread(name, from == to ? this::stayOrFollow : () -> move(0));
  }

  /**
   * A move to the partition the client routes the name to: nothing to do, unless the name was moved
   * away from it (this client had not learned of it), when it is moved back from where it lives.
   */
  private void stayOrFollow() {
    if (versioned(from).routes().route(name).orElse(null) instanceof Moved m) {
      movedNames.put(name, m.partition());
      if (m.partition() != to && m.partition() < partitions.size()) {
        new NameMover(partitions, movedNames, name, m.partition(), to).move(1);
      }
    }
  }

  /**
   * Finishes or undoes a move of {@code name} that its mover left unfinished (it stopped between
   * the first freeze and the last unfreeze), on a thread of its own: this client takes each freeze
   * over. If the source has marked the name moved, the copy is complete: the target's freeze ends
   * and the name lives there (the source's copy stays, unreachable: only the dead mover could
   * delete it; a move back removes it). Otherwise the copy is deleted from the target (the nodes
   * under the name whose paths the source holds too: nothing else), which then sends the name's
   * clients back to the source, and the source's freeze ends.
   *
   * @return completes with the partition the name lives in, or -1 if no move of it was unfinished
   */
  static CompletableFuture<Integer> recover(
      List<ZoolanderClient> partitions, Map<String, Integer> movedNames, String name) {
    return onOwnThread(
        name,
        () -> {
          for (int p = 0; p < partitions.size(); p++) {
            NameMover scan = new NameMover(partitions, movedNames, name, p, p);
            if (scan.versioned(p).routes().route(name).orElse(null) instanceof Frozen f
                && f.from() < partitions.size()
                && f.to() < partitions.size()) {
              return new NameMover(partitions, movedNames, name, f.from(), f.to()).finishOrUndo();
            }
          }
          return -1;
        });
  }

  private static <T> CompletableFuture<T> onOwnThread(String name, Supplier<T> task) {
    return CompletableFuture.supplyAsync(
        task,
        run -> {
          Thread t = new Thread(run, "zoolander-name-mover-" + name);
          t.setDaemon(true);
          t.start();
        });
  }

  private static CompletableFuture<Void> onOwnThread(String name, Runnable task) {
    return onOwnThread(
        name,
        () -> {
          task.run();
          return null;
        });
  }

  private int finishOrUndo() {
    ZoolanderClient a = partitions.get(from);
    ZoolanderClient b = partitions.get(to);
    String root = "/" + name;
    Route atFrom = versioned(from).routes().route(name).orElse(null);
    if (atFrom instanceof Moved m && m.partition() == to) {
      LOG.info(
          "finishing the move of {} from partition {} to {}: its copy is complete", root, from, to);
      takeOver(to, b);
      change(to, r -> r.without(name));
      movedNames.put(name, to);
      return to;
    }
    LOG.info("undoing the move of {} from partition {} to {}", root, from, to);
    if (takeOver(to, b)) {
      // The copy holds only paths the source holds (it is frozen, or its freeze was just ended):
      // anything else under the name at the target is not the copy's, and is not deleted.
      Set<String> atSource = new HashSet<>();
      readSubtree(a, root).forEach(node -> atSource.add(node.path()));
      List<Node> copy = new ArrayList<>(readSubtree(b, root));
      List<String> kept = new ArrayList<>();
      Set<String> keptAncestors = new HashSet<>();
      copy.forEach(
          node -> {
            if (!atSource.contains(node.path())) {
              kept.add(node.path());
              String ancestor = parent(node.path());
              while (ancestor != null && keptAncestors.add(ancestor)) { // else added with its own
                ancestor = parent(ancestor);
              }
            }
          });
      // Neither what the source does not hold, nor the ancestors it needs.
      copy.removeIf(node -> !atSource.contains(node.path()) || keptAncestors.contains(node.path()));
      if (!kept.isEmpty()) {
        LOG.warn(
            "partition {} holds {} nodes under {} that partition {} does not: kept (unreachable"
                + " once the name is routed back to {}), e.g. {}",
            to,
            kept.size(),
            root,
            from,
            from,
            kept.get(0));
      }
      deleteAll(b, reversed(copy));
      long seqAtA = a.lastSeenSeq();
      change(to, r -> r.with(name, new Moved(from, seqAtA, b.clientId())));
    }
    if (takeOver(from, a)) {
      change(from, r -> r.without(name));
    }
    movedNames.remove(name);
    return from;
  }

  /** The parent of {@code path}, or null for the root. */
  private static String parent(String path) {
    int slash = path.lastIndexOf('/');
    return slash <= 0 ? null : path.substring(0, slash);
  }

  /**
   * Takes over {@code partition}'s freeze of the name, for {@code client}.
   *
   * @return whether the name is frozen there (by {@code client} now)
   */
  private boolean takeOver(int partition, ZoolanderClient client) {
    boolean[] frozen = new boolean[1];
    change(
        partition,
        r -> {
          frozen[0] = r.routes().get(name) instanceof Frozen;
          return r.routes().get(name) instanceof Frozen f && f.moverClientId() != client.clientId()
              ? r.with(name, new Frozen(client.clientId(), f.from(), f.to()))
              : r;
        });
    return frozen[0];
  }

  /** Thrown by a freeze that finds the name moved away from the partition it was to freeze. */
  private static final class LivesElsewhere extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final int partition;

    LivesElsewhere(int partition) {
      super(null, null, false, false);
      this.partition = partition;
    }
  }

  /**
   * @param followed moves of the name away from the source this mover followed so far
   */
  private void move(int followed) {
    ZoolanderClient a = partitions.get(from);
    ZoolanderClient b = partitions.get(to);
    String root = "/" + name;
    LOG.info("moving {} from partition {} to partition {}", root, from, to);
    try {
      // Checked in the same change as the freeze: a name moved away (this client had not learned
      // of it) lives elsewhere, and a copy from here would copy a stale leftover, or nothing.
      change(
          from,
          r -> {
            if (r.routes().get(name) instanceof Moved m) {
              throw new LivesElsewhere(m.partition());
            }
            return r.with(name, new Frozen(a.clientId(), from, to));
          });
    } catch (LivesElsewhere e) {
      movedNames.put(name, e.partition);
      if (e.partition == to) {
        LOG.info("{} lives in partition {} already", root, to);
        return;
      }
      if (followed >= PartitionedClient.MAX_MOVES_FOLLOWED || e.partition >= partitions.size()) {
        throw new ZoolanderException(
            KeeperException.Code.BADARGUMENTS,
            ErrorCode.NAME_MOVED,
            root + " has moved from partition " + from + " to " + e.partition + ": not moved",
            null);
      }
      new NameMover(partitions, movedNames, name, e.partition, to).move(followed + 1);
      return;
    }
    Route atB = null;
    List<Node> subtree;
    List<Node> copied = new ArrayList<>();
    long copiedAt;
    try {
      atB = versioned(to).routes().route(name).orElse(null);
      change(to, r -> r.with(name, new Frozen(b.clientId(), from, to)));
      if (join(b.exists(root))) {
        if (!(atB instanceof Moved)) {
          throw new ZoolanderException(
              KeeperException.Code.NODEEXISTS,
              "partition " + to + " holds " + root + " already: nothing was moved");
        }
        // The copy an earlier move away from B left behind (its mover stopped before deleting
        // it): no client could reach it since. Frozen for this mover now, so it can go.
        LOG.info("deleting the copy of {} an earlier move left in partition {}", root, to);
        deleteAll(b, reversed(readSubtree(b, root)));
      }
      subtree = readSubtree(a, root); // frozen: it stays as read until A's copy is deleted
      copiedAt = copy(b, subtree, copied);
      long t = copiedAt;
      change(from, r -> r.with(name, new Moved(to, t, a.clientId())));
    } catch (RuntimeException e) {
      undo(a, b, atB, copied);
      throw e;
    }
    movedNames.put(name, to);
    change(to, r -> r.without(name));
    deleteAll(a, reversed(subtree));
    LOG.info("moved {} from partition {} to partition {} (its seq {})", root, from, to, copiedAt);
  }

  /** A node of the subtree, with its data. */
  private record Node(String path, byte[] data) {}

  /** The subtree under {@code root}, parents before children. */
  private static List<Node> readSubtree(ZoolanderClient client, String root) {
    List<Node> nodes = new ArrayList<>();
    List<String> pending = new ArrayList<>(List.of(root));
    for (int i = 0; i < pending.size(); i++) {
      String path = pending.get(i);
      NodeData data;
      List<String> children;
      try {
        data = join(client.getData(path));
        children = join(client.getChildren(path));
      } catch (ZoolanderException e) {
        if (e.code() == KeeperException.Code.NONODE && i == 0) {
          return nodes; // nothing to move: the name holds no data
        }
        throw e;
      }
      nodes.add(new Node(path, data.data()));
      for (String child : children) {
        pending.add(path + "/" + child);
      }
    }
    return nodes;
  }

  /**
   * Creates {@code subtree} at {@code client}'s partition, parents first, recording each node
   * created in {@code done}.
   *
   * @return the seq of the last write
   */
  private long copy(ZoolanderClient client, List<Node> subtree, List<Node> done) {
    long seq = client.lastSeenSeq();
    List<Op> ops = new ArrayList<>();
    List<Node> batch = new ArrayList<>();
    int bytes = 0;
    for (Node node : subtree) {
      if (!ops.isEmpty()
          && (ops.size() == MAX_OPS_PER_WRITE
              || bytes + node.data().length > MAX_BYTES_PER_WRITE)) {
        seq = write(client, ops, "copy");
        done.addAll(batch);
        ops.clear();
        batch.clear();
        bytes = 0;
      }
      ops.add(new Op.Create(node.path(), node.data(), CreateMode.PERSISTENT));
      batch.add(node);
      bytes += node.data().length;
    }
    if (!ops.isEmpty()) {
      seq = write(client, ops, "copy");
      done.addAll(batch);
    }
    return seq;
  }

  /** Deletes {@code nodes} (children before parents) in writes of up to the op limit. */
  private void deleteAll(ZoolanderClient client, List<Node> nodes) {
    for (int i = 0; i < nodes.size(); i += MAX_OPS_PER_WRITE) {
      List<Op> ops = new ArrayList<>();
      for (Node node : nodes.subList(i, Math.min(nodes.size(), i + MAX_OPS_PER_WRITE))) {
        ops.add(new Op.Delete(node.path(), -1));
      }
      write(client, ops, "delete");
    }
  }

  private static long write(ZoolanderClient client, List<Op> ops, String what) {
    WriteResult result = join(client.write(ops));
    if (!result.succeeded()) {
      throw new ZoolanderException(
          result.code(), "the " + what + " of " + ops.get(0).path() + " failed: " + result.code());
    }
    return result.seq();
  }

  /** Undoes what a move that failed before its name was marked moved did, as far as it can. */
  private void undo(ZoolanderClient a, ZoolanderClient b, Route previousAtB, List<Node> copied) {
    try {
      deleteAll(b, reversed(copied));
      long seqAtA = a.lastSeenSeq();
      change(
          to,
          r -> {
            if (!(r.routes().get(name) instanceof Frozen f) || f.moverClientId() != b.clientId()) {
              return r; // never frozen there
            }
            return previousAtB instanceof Moved
                ? r.with(name, new Moved(from, seqAtA, b.clientId()))
                : r.without(name);
          });
    } catch (RuntimeException e) {
      LOG.error("the move of /{} failed, and partition {} could not be restored", name, to, e);
    }
    try {
      change(from, r -> r.without(name));
    } catch (RuntimeException e) {
      LOG.error("the move of /{} failed, and partition {} stays frozen for it", name, from, e);
    }
  }

  private static <T> List<T> reversed(List<T> list) {
    List<T> r = new ArrayList<>(list);
    Collections.reverse(r);
    return r;
  }

  /**
   * {@code client}'s partition's route record with its version; {@link NameRoutes.Versioned#ABSENT}
   * where there is none.
   */
  static CompletableFuture<Versioned> readRoutes(ZoolanderClient client) {
    return client
        .getData(NameRoutes.PATH)
        .handle(
            (record, failure) -> {
              if (failure == null) {
                return new Versioned(NameRoutes.decode(record.data()), record.version());
              }
              if (cause(failure) instanceof ZoolanderException z
                  && z.code() == KeeperException.Code.NONODE) {
                return Versioned.ABSENT;
              }
              throw new CompletionException(cause(failure));
            });
  }

  /** The failure itself, out of the {@link CompletionException} a dependent stage wraps it in. */
  static Throwable cause(Throwable failure) {
    return failure instanceof CompletionException c && c.getCause() != null
        ? c.getCause()
        : failure;
  }

  private Versioned versioned(int partition) {
    return join(readRoutes(partitions.get(partition)));
  }

  /**
   * Changes {@code partition}'s route record by {@code change} (nothing if it changes nothing),
   * reading it again if another change won.
   */
  private void change(int partition, UnaryOperator<NameRoutes> change) {
    ZoolanderClient client = partitions.get(partition);
    for (int attempt = 1; ; attempt++) {
      Versioned current = versioned(partition);
      NameRoutes next = change.apply(current.routes());
      if (next.equals(current.routes())) {
        return;
      }
      byte[] record = next.encode();
      try {
        write(
            client,
            List.of(
                current.version() < 0
                    ? new Op.Create(NameRoutes.PATH, record, CreateMode.PERSISTENT)
                    : new Op.SetData(NameRoutes.PATH, record, current.version())),
            "route change");
        return;
      } catch (ZoolanderException e) {
        // Refused because another change won (the record's version moved on): read it again.
        if (attempt >= CHANGE_ATTEMPTS
            || e.errorCode().orElse(null) != ErrorCode.INVALID_OP
            || versioned(partition).version() == current.version()) {
          throw e;
        }
      }
    }
  }

  // ---- following a move (for PartitionedClient)

  /** Whether {@code failure} is a refusal as moved of a request applied nowhere. */
  static boolean refusedAsMoved(Throwable failure) {
    return cause(failure) instanceof ZoolanderException z
        && z.errorCode().orElse(null) == ErrorCode.NAME_MOVED
        && z.code() == KeeperException.Code.BADARGUMENTS;
  }

  /**
   * Whether {@code partition}'s route record says the name of {@code path} moved away; if so,
   * routes it to where it went and completes once that partition's duplicates hold the moved copy
   * (as {@link #learnMoves}, but a name that did not move is an answer, not a failure).
   */
  static CompletableFuture<Boolean> learnIfMoved(
      List<ZoolanderClient> partitions,
      Map<String, Integer> movedNames,
      int partition,
      String path) {
    return readRoutes(partitions.get(partition))
        .thenCompose(
            versioned ->
                followMove(partitions, movedNames, versioned.routes(), path)
                    .map(copy -> copy.thenApply(x -> true))
                    .orElse(CompletableFuture.completedFuture(false)));
  }

  /**
   * If {@code routes} say the name of {@code path} moved to a partition this client has: routes the
   * name there, and returns the wait until that partition's duplicates hold the moved copy.
   */
  private static Optional<CompletableFuture<Void>> followMove(
      List<ZoolanderClient> partitions,
      Map<String, Integer> movedNames,
      NameRoutes routes,
      String path) {
    String name = NameRoutes.topLevelName(path);
    if (name != null
        && routes.route(name).orElse(null) instanceof Moved moved
        && moved.partition() < partitions.size()) {
      movedNames.put(name, moved.partition());
      return Optional.of(partitions.get(moved.partition()).barrier(moved.seq()));
    }
    return Optional.empty();
  }

  /**
   * Reads {@code partition}'s route record until it says where a name of {@code paths} moved (a
   * duplicate may not have applied the move yet when the repeater refused a write for it), notes
   * where each such name lives now, and completes once the duplicates there have applied the copy.
   */
  static CompletableFuture<Void> learnMoves(
      List<ZoolanderClient> partitions,
      Map<String, Integer> movedNames,
      int partition,
      List<String> paths) {
    return learnMoves(partitions, movedNames, partition, paths, 1);
  }

  private static CompletableFuture<Void> learnMoves(
      List<ZoolanderClient> partitions,
      Map<String, Integer> movedNames,
      int partition,
      List<String> paths,
      int attempt) {
    return readRoutes(partitions.get(partition))
        .thenApply(Versioned::routes)
        .thenCompose(
            routes -> {
              List<CompletableFuture<Void>> copies = new ArrayList<>();
              for (String path : paths) {
                followMove(partitions, movedNames, routes, path).ifPresent(copies::add);
              }
              if (!copies.isEmpty()) {
                return CompletableFuture.allOf(copies.toArray(CompletableFuture<?>[]::new));
              }
              if (attempt >= LEARN_ATTEMPTS) {
                return CompletableFuture.failedFuture(
                    new ZoolanderException(
                        KeeperException.Code.SYSTEMERROR,
                        ErrorCode.NAME_MOVED,
                        "partition "
                            + partition
                            + " refused "
                            + paths
                            + " as moved, but its "
                            + NameRoutes.PATH
                            + " says none of them moved",
                        null));
              }
              return CompletableFuture.supplyAsync(
                      () -> null,
                      CompletableFuture.delayedExecutor(
                          5L << Math.min(attempt, 6), TimeUnit.MILLISECONDS))
                  .thenCompose(
                      x -> learnMoves(partitions, movedNames, partition, paths, attempt + 1));
            });
  }

  private static <T> T join(CompletableFuture<T> future) {
    try {
      return future.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ZoolanderException(KeeperException.Code.OPERATIONTIMEOUT, "interrupted");
    } catch (ExecutionException e) {
      if (e.getCause() instanceof ZoolanderException z) {
        throw z;
      }
      throw new CompletionException(e.getCause());
    }
  }
}
