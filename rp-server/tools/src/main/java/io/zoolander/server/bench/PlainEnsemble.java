package io.zoolander.server.bench;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;

/**
 * One ensemble seen through the standard ZooKeeper client: a few sessions with its leader, each
 * request on the session with the fewest requests outstanding. ZooKeeper answers a session in
 * order, so one slow request holds up the requests behind it on its session; spreading them over
 * sessions is what a careful application does, and it gives plain ZooKeeper the benefit of the
 * doubt.
 */
final class PlainEnsemble implements AutoCloseable {
  private static final int SESSION_TIMEOUT_MS = 30_000;

  private final String connectString;
  private final List<ZooKeeper> sessions = new ArrayList<>();
  private final AtomicInteger[] outstanding;
  private final AtomicLong requestsSent = new AtomicLong();

  private PlainEnsemble(String connectString, int sessionCount) {
    this.connectString = connectString;
    this.outstanding = new AtomicInteger[sessionCount];
    for (int i = 0; i < sessionCount; i++) {
      outstanding[i] = new AtomicInteger();
    }
  }

  /**
   * Opens {@code sessionCount} sessions with the server at {@code connectString} and waits until
   * they connect.
   */
  static PlainEnsemble connect(String connectString, int sessionCount)
      throws IOException, InterruptedException, TimeoutException {
    PlainEnsemble e = new PlainEnsemble(connectString, sessionCount);
    try {
      for (int i = 0; i < sessionCount; i++) {
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper zk =
            new ZooKeeper(
                connectString,
                SESSION_TIMEOUT_MS,
                event -> {
                  if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
                    connected.countDown();
                  }
                });
        e.sessions.add(zk);
        if (!connected.await(30, TimeUnit.SECONDS)) {
          throw new TimeoutException("no ZooKeeper session with " + connectString + " within 30 s");
        }
      }
      return e;
    } catch (IOException | InterruptedException | TimeoutException | RuntimeException ex) {
      e.close();
      throw ex;
    }
  }

  String connectString() {
    return connectString;
  }

  /** Requests sent so far (reads and writes, all sessions). */
  long requestsSent() {
    return requestsSent.get();
  }

  /**
   * Creates {@code path} and its missing parents with {@code data} (parents empty); an existing
   * node is kept.
   */
  void createIfAbsent(String path, byte[] data) throws KeeperException, InterruptedException {
    ZooKeeper zk = sessions.get(0);
    for (int slash = path.indexOf('/', 1); slash > 0; slash = path.indexOf('/', slash + 1)) {
      try {
        zk.create(
            path.substring(0, slash),
            new byte[0],
            ZooDefs.Ids.OPEN_ACL_UNSAFE,
            CreateMode.PERSISTENT);
      } catch (KeeperException.NodeExistsException e) {
        // there already
      }
    }
    try {
      zk.create(path, data, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    } catch (KeeperException.NodeExistsException e) {
      zk.setData(path, data, -1);
    }
  }

  /**
   * Creates the bench's keys 0 to {@code keys - 1} ({@link PlainSystems#path}) with {@code data},
   * in multis of {@code perMulti}, as the benches create Zoolander's keys: so plain's server and
   * Zoolander's duplicates leave about as many transactions in their logs (with 50,000 keys created
   * one by one, plain's p99 was 170 to 190 ms; docs/benchmarks.md).
   */
  void createKeys(int keys, byte[] data, int perMulti)
      throws KeeperException, InterruptedException {
    List<String> paths = new ArrayList<>();
    for (int k = 0; k < keys; k++) {
      paths.add(PlainSystems.path(k));
      if (paths.size() == perMulti || k == keys - 1) {
        createAll(paths, data);
        paths.clear();
      }
    }
  }

  /**
   * Creates {@code paths} (at least one) with {@code data}: the first alone with its missing
   * ancestors, the others in one multi. If one of them exists already, each is created or
   * overwritten alone ({@link #createIfAbsent}).
   */
  private void createAll(List<String> paths, byte[] data)
      throws KeeperException, InterruptedException {
    createIfAbsent(paths.get(0), data);
    List<String> rest = paths.subList(1, paths.size());
    if (rest.isEmpty()) {
      return;
    }
    List<Op> ops = new ArrayList<>();
    for (String path : rest) {
      ops.add(Op.create(path, data, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT));
    }
    try {
      sessions.get(0).multi(ops);
    } catch (KeeperException e) {
      for (String path : rest) {
        createIfAbsent(path, data);
      }
    }
  }

  /**
   * An asynchronous getData; completes with the data's length, or fails with the KeeperException.
   */
  CompletableFuture<Integer> getData(String path) {
    CompletableFuture<Integer> f = new CompletableFuture<>();
    int s = pick();
    requestsSent.incrementAndGet();
    sessions
        .get(s)
        .getData(
            path,
            false,
            (rc, p, ctx, data, stat) -> {
              outstanding[s].decrementAndGet();
              complete(f, rc, p, data == null ? 0 : data.length);
            },
            null);
    return f;
  }

  /**
   * An asynchronous setData of any version; completes with the new version, or fails with the
   * KeeperException.
   */
  CompletableFuture<Integer> setData(String path, byte[] data) {
    CompletableFuture<Integer> f = new CompletableFuture<>();
    int s = pick();
    requestsSent.incrementAndGet();
    sessions
        .get(s)
        .setData(
            path,
            data,
            -1,
            (rc, p, ctx, stat) -> {
              outstanding[s].decrementAndGet();
              complete(f, rc, p, stat == null ? -1 : stat.getVersion());
            },
            null);
    return f;
  }

  /**
   * An asynchronous multi; completes with the number of results, or fails with the KeeperException
   * of its first failed op.
   */
  CompletableFuture<Integer> multi(List<org.apache.zookeeper.Op> ops) {
    CompletableFuture<Integer> f = new CompletableFuture<>();
    int s = pick();
    requestsSent.incrementAndGet();
    sessions
        .get(s)
        .multi(
            ops,
            (rc, p, ctx, results) -> {
              outstanding[s].decrementAndGet();
              complete(f, rc, p, results == null ? 0 : results.size());
            },
            null);
    return f;
  }

  private static void complete(CompletableFuture<Integer> f, int rc, String path, int value) {
    if (rc == KeeperException.Code.OK.intValue()) {
      f.complete(value);
    } else {
      f.completeExceptionally(KeeperException.create(KeeperException.Code.get(rc), path));
    }
  }

  /** The session with the fewest outstanding requests (the first of them), counted as one more. */
  private int pick() {
    int best = 0;
    int bestCount = Integer.MAX_VALUE;
    for (int i = 0; i < outstanding.length; i++) {
      int c = outstanding[i].get();
      if (c < bestCount) {
        best = i;
        bestCount = c;
      }
    }
    outstanding[best].incrementAndGet();
    return best;
  }

  @Override
  public void close() {
    for (ZooKeeper zk : sessions) {
      try {
        zk.close(1_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    sessions.clear();
  }
}
