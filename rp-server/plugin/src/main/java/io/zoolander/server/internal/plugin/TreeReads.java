package io.zoolander.server.internal.plugin;

import io.netty.channel.Channel;
import io.zoolander.server.internal.leader.TreeReader;
import io.zoolander.server.plugin.ZoolanderPluginView.Snapshot;
import io.zoolander.wire.DuplicateState;
import io.zoolander.wire.Message;
import io.zoolander.wire.Znodes;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.data.Stat;

/**
 * Client reads answered from the leader's in-memory tree ({@link TreeReader}): no ZooKeeper
 * session, and no queueing behind the writes the applier has in flight.
 *
 * <p>A READ is answered here, on its connection's event loop, when the published {@link Snapshot}
 * says the duplicate is ACTIVE (not fenced, catching up, rejoining or receiving a state transfer)
 * and the tree's {@code appliedSeq} has reached the read's {@code minSeq} (the tree is ahead of the
 * published snapshot, never behind: a write's multi is in the tree before the applier hears of it).
 * The answer reports the {@code appliedSeq} of the state it was read with, which is exactly what
 * its data reflects (never older than {@code minSeq}, so never older than any reply the client has
 * seen). Anything else goes to the applier, whose {@link ReadGate} waits or refuses as before, and
 * then answers from the tree too ({@link #answer}). Before a state transfer replaces the tree the
 * applier publishes a non-ACTIVE snapshot and counts a replacement ({@link
 * ApplierState#treeReplacing()}); a read that saw the count change while it read is handed to the
 * applier, so no answer mixes the old tree and the new one. A name the partition's route record
 * says has moved away is refused ({@link MovedNames}), by the record read with the data.
 *
 * <p>Thread-safe: {@link #tryServe} runs on any connection's event loop, {@link #answer} on the
 * applier thread.
 */
final class TreeReads {

  private final int duplicateId;
  private final Znodes znodes;
  private final TreeReader reader;
  private final ApplierState state;
  private final AnomalyInjector anomalies;
  private final MovedNames movedNames;
  private final LongAdder servedOnEventLoop = new LongAdder();
  private final LongAdder statsFromTree = new LongAdder();

  TreeReads(
      int duplicateId,
      Znodes znodes,
      TreeReader reader,
      ApplierState state,
      AnomalyInjector anomalies,
      MovedNames movedNames) {
    this.duplicateId = duplicateId;
    this.znodes = znodes;
    this.reader = reader;
    this.state = state;
    this.anomalies = anomalies;
    this.movedNames = movedNames;
  }

  /**
   * Answers {@code read} now if the duplicate is ACTIVE and has applied its {@code minSeq}.
   *
   * @return false if the applier must decide (the read was not answered)
   */
  boolean tryServe(Channel channel, Message.Read read) {
    assert channel.eventLoop().inEventLoop() : "must run on the connection's event loop";
    int replacements = state.treeReplacements();
    if (state.snapshot().state() != DuplicateState.ACTIVE) {
      return false;
    }
    Optional<TreeReader.Result> result = read(read);
    if (result.isEmpty()
        || state.treeReplacements() != replacements
        || result.get().state().appliedSeq() < read.minSeq()) {
      return false;
    }
    send(channel, read, result.get());
    servedOnEventLoop.increment();
    return true;
  }

  /**
   * Answers {@code read}, which the {@link ReadGate} let through, from the tree. On the applier
   * thread: nothing replaces the tree meanwhile.
   *
   * @return false if the tree could not be read consistently (commits kept racing); the caller then
   *     reads through the session
   */
  boolean answer(Channel channel, Message.Read read) {
    Optional<TreeReader.Result> result = read(read);
    if (result.isEmpty()) {
      return false;
    }
    send(channel, read, result.get());
    return true;
  }

  /**
   * The stats of {@code znodes} for the result predictor, from the tree. On the applier thread,
   * after the multis it waited for: the tree has them all, and nothing replaces it meanwhile.
   *
   * @return each znode's stat, null if it does not exist; empty if the tree could not be read
   *     consistently (commits kept racing): the caller then reads through the session
   */
  Optional<Map<String, Stat>> stats(Set<String> znodes) {
    Optional<Map<String, Stat>> stats = reader.stats(znodes);
    if (stats.isPresent()) {
      statsFromTree.increment();
    }
    return stats;
  }

  /** Stat reads for the result predictor answered from the tree, without the session. */
  long statsFromTree() {
    return statsFromTree.sum();
  }

  /** Reads answered on an event loop, without the applier. */
  long servedOnEventLoop() {
    return servedOnEventLoop.sum();
  }

  private Optional<TreeReader.Result> read(Message.Read read) {
    return reader.read(znodes.toZnode(read.path()), read.kind());
  }

  private void send(Channel channel, Message.Read read, TreeReader.Result r) {
    long asOf = r.state().appliedSeq();
    Message.Error refused = movedNames.refusal(read, r.routes());
    Message answer =
        refused != null
            ? refused
            : r.exists()
                ? new Message.ReadReply(
                    read.clientId(),
                    read.requestId(),
                    duplicateId,
                    asOf,
                    Code.OK,
                    r.data() == null ? SessionReads.NO_DATA : r.data(),
                    r.version(),
                    movedNames.visibleChildren(read, r.children(), r.routes()))
                : new Message.ReadReply(
                    read.clientId(),
                    read.requestId(),
                    duplicateId,
                    asOf,
                    Code.NONODE,
                    SessionReads.NO_DATA,
                    -1,
                    List.of());
    long delayMs = anomalies.readDelayMs(read.clientId(), read.requestId());
    if (delayMs > 0) {
      channel
          .eventLoop()
          .schedule(() -> Outbound.send(channel, answer), delayMs, TimeUnit.MILLISECONDS);
    } else {
      Outbound.send(channel, answer);
    }
  }
}
