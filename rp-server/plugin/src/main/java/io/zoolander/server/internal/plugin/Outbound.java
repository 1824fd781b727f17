package io.zoolander.server.internal.plugin;

import io.netty.channel.Channel;
import io.zoolander.wire.Message;
import io.zoolander.wire.OpResult;
import io.zoolander.wire.internal.WriteTrace;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the applier sends unasked: REPLY (or ERROR) to the client connection a write's client
 * registered, and the cumulative ACK to the repeaters. Sending never waits; a peer that is gone
 * gets nothing. The ACK is built from the recorded state, so {@link #ack()} and {@link
 * #ackRepeaters()} run on the applier thread (asserted there); {@link #send} and {@link #toClient}
 * on any thread.
 */
final class Outbound {

  private static final Logger LOG = LoggerFactory.getLogger(Outbound.class);

  private final int duplicateId;
  private final Peers peers;
  private final ApplierState state;
  private final Watches watches;

  Outbound(int duplicateId, Peers peers, ApplierState state) {
    this(duplicateId, peers, state, null);
  }

  /**
   * @param watches told of every write applied (by {@link #reply}) and of every write whose results
   *     are lost ({@link #resultsLost}); null: no watches
   */
  Outbound(int duplicateId, Peers peers, ApplierState state, Watches watches) {
    this.duplicateId = duplicateId;
    this.peers = peers;
    this.state = state;
    this.watches = watches;
  }

  /** Sends {@code message} on {@code channel}, if it is still active. Any thread. */
  static void send(Channel channel, Message message) {
    if (channel != null && channel.isActive()) {
      channel.writeAndFlush(message);
    }
  }

  /**
   * @return ACK of the recorded {@code (epoch, appliedSeq)}
   */
  Message.Ack ack() {
    return new Message.Ack(duplicateId, state.epoch(), state.appliedSeq());
  }

  /** Sends one {@link #ack()} to every repeater connection, after progress. */
  void ackRepeaters() {
    Message.Ack ack = ack();
    for (Channel repeater : peers.repeaters()) {
      send(repeater, ack);
    }
  }

  /** Sends this duplicate's STATUS (epoch, applied seq, ACTIVE or FENCED) to every repeater. */
  void statusToRepeaters() {
    Message.Status status =
        new Message.Status(duplicateId, state.epoch(), state.appliedSeq(), state.mode());
    for (Channel repeater : peers.repeaters()) {
      send(repeater, status);
    }
  }

  /**
   * @return an active repeater connection, or null if none is connected
   */
  Channel anyRepeater() {
    for (Channel channel : peers.repeaters()) {
      if (channel.isActive()) {
        return channel;
      }
    }
    return null;
  }

  /**
   * REPLY to the client of {@code message}: it was applied as {@code seq} with {@code results}.
   * When {@code seq} is the message's own (not a retry applied earlier), the watches get its
   * changes. Applier thread.
   */
  void reply(Message.Sequenced message, long seq, List<OpResult> results) {
    sendReply(message, seq, results);
    replied(message, seq, results);
  }

  /**
   * The REPLY alone, as {@link #reply} sends it: for a write applied in-process, from ZooKeeper's
   * thread that applied it, before the applier wakes; the applier then calls {@link #replied}. Any
   * thread.
   */
  void sendReply(Message.Sequenced message, long seq, List<OpResult> results) {
    WriteTrace.mark(WriteTrace.Stage.PLUGIN_REPLIED, message.clientId(), message.requestId());
    toClient(
        message.clientId(),
        new Message.Reply(message.clientId(), message.requestId(), seq, duplicateId, results));
  }

  /**
   * The REPLYs of a batch's writes, as {@link #sendReply} sends each: those to one client go in one
   * task on its connection's event loop with one flush, not one task, one flush and one system call
   * each. Any thread.
   *
   * @param results the results of {@code writes}, in the same order
   */
  void sendReplies(List<Message.Sequenced> writes, List<List<OpResult>> results) {
    Map<Channel, List<Message.Reply>> byConnection = new LinkedHashMap<>();
    for (int i = 0; i < writes.size(); i++) {
      Message.Sequenced write = writes.get(i);
      WriteTrace.mark(WriteTrace.Stage.PLUGIN_REPLIED, write.clientId(), write.requestId());
      Channel client = writable(write.clientId(), Message.Reply.class);
      if (client != null) {
        byConnection
            .computeIfAbsent(client, c -> new ArrayList<>())
            .add(
                new Message.Reply(
                    write.clientId(), write.requestId(), write.seq(), duplicateId, results.get(i)));
      }
    }
    byConnection.forEach(
        (client, replies) -> {
          try {
            client
                .eventLoop()
                .execute(
                    () -> {
                      for (Message.Reply reply : replies) {
                        client.write(reply, client.voidPromise());
                      }
                      client.flush();
                    });
          } catch (RejectedExecutionException e) {
            // The plugin is closing its connections: as for a client that is gone, nothing is sent.
          }
        });
  }

  /**
   * What follows a REPLY sent by {@link #sendReply}: the watches get the write's changes when
   * {@code seq} is the message's own. Applier thread.
   */
  void replied(Message.Sequenced message, long seq, List<OpResult> results) {
    if (watches != null && seq == message.seq()) {
      watches.applied(seq, WatchChanges.of(message.ops(), results));
    }
  }

  /**
   * Write {@code seq} was applied but its results are lost (an attempt whose answer was lost, and
   * its client record no longer holds them): the watches cannot be told what it changed, so they
   * get RESYNC. Applier thread.
   */
  void resultsLost(long seq) {
    if (watches != null) {
      watches.resyncAll(seq);
    }
  }

  /**
   * Sends {@code answer} to {@code clientId}'s registered connection, if it has one that reads its
   * replies (a client that does not is not waited for: the answer is dropped). Any thread.
   */
  void toClient(long clientId, Message answer) {
    Channel client = writable(clientId, answer.getClass());
    if (client != null) {
      client.writeAndFlush(answer);
    }
  }

  /**
   * @return {@code clientId}'s registered connection if it reads its replies; null if it has none,
   *     or (logged) if it does not read them, and the {@code kind} of answer is dropped
   */
  private Channel writable(long clientId, Class<? extends Message> kind) {
    Channel client = peers.client(clientId);
    if (client == null) {
      return null;
    }
    if (!client.isWritable()) {
      LOG.warn(
          "Duplicate {}: client {} does not read its replies; dropping a {}",
          duplicateId,
          clientId,
          kind.getSimpleName());
      return null;
    }
    return client;
  }
}
