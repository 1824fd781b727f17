package io.zoolander.server.internal.plugin;

import io.netty.channel.Channel;
import io.zoolander.wire.ErrorCode;
import io.zoolander.wire.Message;
import io.zoolander.wire.NameRoutes;
import io.zoolander.wire.Znodes;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;

/**
 * The reads the applier issues on the plugin's own ZooKeeper session ({@link OwnSession}): a
 * client's READ, answered from ZooKeeper's event thread, and the stats the result predictor needs
 * before a write, pipelined and waited for. Both are issued from the applier thread (asserted)
 * between two applies: ZooKeeper answers a session's requests in order, so each read sees exactly
 * the state at the {@code appliedSeq} current when it was issued. The anomaly injector may hold a
 * read's answer back; it is then sent from the connection's event loop, later, without delaying
 * other reads. When the plugin runs in the leader, both come from its in-memory tree ({@link
 * TreeReads}) instead, and the session is the fallback when commits keep racing the tree's reader.
 */
final class SessionReads {

  static final byte[] NO_DATA = new byte[0];

  private final ApplierThread owner;
  private final int duplicateId;
  private final Znodes znodes;
  private final OwnSession session;
  private final AnomalyInjector anomalies;
  private final long timeoutMs;
  private final TreeReads tree;
  private final MovedNames movedNames;

  /**
   * @param timeoutMs how long to wait for the stats before giving up (OPERATIONTIMEOUT)
   * @param tree the leader's in-memory tree, which client reads are answered from (through the
   *     session only when it cannot be read consistently); null: every read goes through the
   *     session
   */
  SessionReads(
      ApplierThread owner,
      int duplicateId,
      Znodes znodes,
      OwnSession session,
      AnomalyInjector anomalies,
      long timeoutMs,
      TreeReads tree,
      MovedNames movedNames) {
    this.owner = owner;
    this.duplicateId = duplicateId;
    this.znodes = znodes;
    this.session = session;
    this.anomalies = anomalies;
    this.timeoutMs = timeoutMs;
    this.tree = tree;
    this.movedNames = movedNames;
  }

  /**
   * Answers {@code read}, received on {@code channel}: from the tree when there is one, otherwise
   * issued on the session and answered when ZooKeeper does, with READ_REPLY reporting {@code asOf},
   * the current {@code appliedSeq}.
   */
  void issue(Channel channel, Message.Read read, long asOf) {
    assert owner.isCurrent() : ApplierThread.ONLY;
    if (tree != null && tree.answer(channel, read)) {
      return;
    }
    String znode = znodes.toZnode(read.path());
    ZooKeeper zk = session.zk();
    DataRead done = new DataRead();
    switch (read.kind()) {
      case GET_DATA ->
          zk.getData(
              znode, false, (rc, path, ctx, data, stat) -> done.set(rc, data, stat, null), null);
      case EXISTS ->
          zk.exists(znode, false, (rc, path, ctx, stat) -> done.set(rc, null, stat, null), null);
      case GET_CHILDREN ->
          zk.getChildren(
              znode,
              false,
              (rc, path, ctx, children, stat) -> done.set(rc, null, stat, children),
              null);
    }
    // The route record, read after the data on the same session: ZooKeeper answers a session's
    // requests in order and the applier applies nothing between, so it is the data's state's.
    zk.getData(
        znodes.toZnode(NameRoutes.PATH),
        false,
        (rc, path, ctx, record, stat) -> readDone(channel, read, asOf, done, rc, record),
        null);
  }

  /** A data read's answer, held until the route record read after it is answered too. */
  private static final class DataRead {
    int rc;
    byte[] data;
    Stat stat;
    List<String> children;

    void set(int rc, byte[] data, Stat stat, List<String> children) {
      this.rc = rc;
      this.data = data;
      this.stat = stat;
      this.children = children;
    }
  }

  /** On ZooKeeper's event thread, after the data read's callback. */
  private void readDone(
      Channel channel, Message.Read read, long asOf, DataRead done, int recordRc, byte[] record) {
    Code code = Code.get(done.rc);
    Code recordCode = Code.get(recordRc);
    byte[] routes = recordCode == Code.OK ? record : null;
    byte[] data = done.data;
    Stat stat = done.stat;
    List<String> children = done.children;
    Message answer;
    try {
      Message.Error refused =
          recordCode == Code.OK || recordCode == Code.NONODE
              ? movedNames.refusal(read, routes)
              : Message.Error.forRequest(
                  ErrorCode.INTERNAL,
                  read.requestId(),
                  "read of " + NameRoutes.PATH + " failed in ZooKeeper: " + recordCode);
      if (refused != null) {
        answer = refused;
      } else if (code == Code.OK && stat != null) {
        List<String> sorted =
            children == null
                ? List.of()
                : movedNames.visibleChildren(read, children.stream().sorted().toList(), routes);
        answer =
            new Message.ReadReply(
                read.clientId(),
                read.requestId(),
                duplicateId,
                asOf,
                Code.OK,
                data == null ? NO_DATA : data,
                stat.getVersion(),
                sorted);
      } else if (code == Code.NONODE) {
        answer =
            new Message.ReadReply(
                read.clientId(),
                read.requestId(),
                duplicateId,
                asOf,
                Code.NONODE,
                NO_DATA,
                -1,
                List.of());
      } else {
        answer =
            Message.Error.forRequest(
                ErrorCode.INTERNAL,
                read.requestId(),
                "read of " + read.path() + " failed in ZooKeeper: " + code);
      }
    } catch (IllegalArgumentException e) {
      answer =
          Message.Error.forRequest(
              ErrorCode.INTERNAL,
              read.requestId(),
              "read of " + read.path() + " cannot be answered: " + e.getMessage());
    }
    long delayMs = anomalies.readDelayMs(read.clientId(), read.requestId());
    if (delayMs > 0) {
      Message late = answer;
      channel.eventLoop().schedule(() -> sendLate(channel, late), delayMs, TimeUnit.MILLISECONDS);
    } else if (channel.isActive()) {
      channel.writeAndFlush(answer);
    }
  }

  /** A read's answer the anomaly injector held back, on the connection's event loop. */
  private static void sendLate(Channel channel, Message answer) {
    assert channel.eventLoop().inEventLoop() : "must run on the connection's event loop";
    Outbound.send(channel, answer);
  }

  /**
   * Reads the stats of {@code paths}: from the leader's in-memory tree when there is one (the
   * applier waited for its multis, so the tree holds every write up to {@code appliedSeq}), else,
   * or if commits kept racing the tree's reader, on the session, all requests in flight together
   * (after the writes before them, so they see the state at {@code appliedSeq}).
   *
   * @return each znode's stat, null if it does not exist
   */
  Map<String, Stat> stats(Set<String> paths) throws KeeperException, InterruptedException {
    assert owner.isCurrent() : ApplierThread.ONLY;
    if (paths.isEmpty()) {
      return Map.of();
    }
    if (tree != null) {
      Optional<Map<String, Stat>> fromTree = tree.stats(paths);
      if (fromTree.isPresent()) {
        return fromTree.get();
      }
    }
    ZooKeeper zk = session.zk();
    Map<String, Stat> stats = new HashMap<>();
    CountDownLatch done = new CountDownLatch(paths.size());
    AtomicReference<Code> failure = new AtomicReference<>();
    for (String path : paths) {
      zk.exists(
          path,
          false,
          (rc, p, ctx, stat) -> {
            Code code = Code.get(rc);
            if (code == Code.OK || code == Code.NONODE) {
              synchronized (stats) {
                stats.put(p, stat);
              }
            } else {
              failure.compareAndSet(null, code);
            }
            done.countDown();
          },
          null);
    }
    if (!done.await(timeoutMs, TimeUnit.MILLISECONDS)) {
      throw KeeperException.create(Code.OPERATIONTIMEOUT);
    }
    if (failure.get() != null) {
      throw KeeperException.create(failure.get());
    }
    synchronized (stats) {
      return new HashMap<>(stats);
    }
  }
}
