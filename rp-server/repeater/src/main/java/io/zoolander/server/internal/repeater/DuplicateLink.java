package io.zoolander.server.internal.repeater;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import io.zoolander.server.repeater.DuplicateView;
import io.zoolander.server.repeater.LinkState;
import io.zoolander.server.repeater.RepeaterSettings;
import io.zoolander.wire.Credential;
import io.zoolander.wire.DuplicateState;
import io.zoolander.wire.ErrorCode;
import io.zoolander.wire.Message;
import io.zoolander.wire.PluginEndpoint;
import io.zoolander.wire.Role;
import io.zoolander.wire.TlsSettings;
import io.zoolander.wire.WireException;
import io.zoolander.wire.WirePipeline;
import java.io.IOException;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The repeater's side of one duplicate: follows its plugin's endpoint, keeps one connection to it,
 * resumes it from its applied seq, streams the live sequence, serves its ACKs and RETRANSMITs, and
 * fences it when the log no longer holds what it needs.
 *
 * <p>It sees the rest of the repeater only through {@link LinkHost}. Everything runs on the
 * sequencer loop (the connection is registered there too), which the methods assert; the fields
 * other threads read for {@link #view()}, {@link #ackedSeq()} and {@link #fenced()} are volatile.
 *
 * <p>The stream on one connection is contiguous: {@link #cursor} is the last seq written to it, and
 * the next frame written is always {@code cursor + 1}, live ({@link #offer}) or from the log
 * ({@link #pump}) after a pause, so a plugin never sees a gap from a healthy repeater.
 */
final class DuplicateLink {
  private static final Logger LOG = LoggerFactory.getLogger(DuplicateLink.class);

  private static final String ON_LOOP = "a link runs on the sequencer loop";

  private final LinkHost host;
  private final DuplicateSource source;
  private final int id;

  /** The published endpoint; written on the sequencer loop only. */
  private volatile Optional<PluginEndpoint> target = Optional.empty();

  // Confined to the sequencer loop.
  /** The current connection (connecting, handshaking or streaming); null when there is none. */
  private Channel channel;

  /** Where encoded frames are written: the first handler's context, below the message codec. */
  private ChannelHandlerContext raw;

  private long cursor;
  private boolean dirty;
  private int failures;
  private ScheduledFuture<?> retry;
  private ScheduledFuture<?> handshakeTimer;

  /**
   * When the plugin was last heard from on this connection, or (if later) when writes became
   * outstanding.
   */
  private long heardOrOwedSinceNanos;

  /** The state transfer bringing this duplicate back, or null. */
  private Transfer transfer;

  // Read by other threads.
  private volatile LinkState state = LinkState.WAITING_FOR_ENDPOINT;
  private volatile long ackedSeq;
  private volatile boolean fenced;

  /** Fenced by the operator and not rejoined since: nothing rejoins it automatically. */
  private boolean heldByOperator;

  /** Retired online: never connects again (loop only). */
  private boolean retired;

  /** Why the epoch claim left this duplicate out; null if it did not, or once fenced for it. */
  private String leftOutOfClaim;

  private volatile String fenceReason;
  private final RepeaterMeters.Duplicate meters;
  // The ACK-latency probe: the last seq of one run sent and when; 0 while none is outstanding (seqs
  // start at 1).
  private long probeSeq;
  private long probeSentNanos;
  private boolean
      probeFromIdle; // sent while the duplicate owed no ACK: a service time for the predictor

  /**
   * @param host the repeater as this link sees it
   * @param meters this duplicate's meters
   */
  DuplicateLink(LinkHost host, DuplicateSource source, RepeaterMeters.Duplicate meters) {
    this.host = host;
    this.source = source;
    this.id = source.duplicateId();
    this.meters = meters;
  }

  /** Whether the caller runs on the sequencer loop, which owns this link (for assertions). */
  private boolean onLoop() {
    return host.loop().inEventLoop();
  }

  RepeaterMeters.Duplicate meters() {
    return meters;
  }

  /**
   * Starts timing {@code lastSeq}'s ACK unless a probe is out already: one sample per round trip,
   * no allocation. Only the live stream ({@link #offer}) probes: a catch-up from the log would time
   * the backlog, not the duplicate. When the duplicate owes no ACK, its ACKs have ended any probe,
   * so a write sent then is probed.
   *
   * @param fromIdle whether the duplicate owed no ACK before these writes
   */
  private void probe(long lastSeq, boolean fromIdle) {
    if (probeSeq == 0) {
      probeSeq = lastSeq;
      probeSentNanos = System.nanoTime();
      probeFromIdle = fromIdle;
    }
  }

  int id() {
    return id;
  }

  DuplicateSource source() {
    return source;
  }

  long ackedSeq() {
    return ackedSeq;
  }

  /** Whether the operator fenced it and has not rejoined it since. Loop only. */
  boolean heldByOperator() {
    assert onLoop() : ON_LOOP;
    return heldByOperator;
  }

  boolean fenced() {
    return fenced;
  }

  /** The state transfer bringing this duplicate back, or null. On the loop. */
  Transfer transfer() {
    assert onLoop() : ON_LOOP;
    return transfer;
  }

  /**
   * Whether the connection streams the sequence (a possible source of a state transfer). On the
   * loop.
   */
  boolean streaming() {
    assert onLoop() : ON_LOOP;
    return state == LinkState.STREAMING && channel != null;
  }

  /**
   * The epoch claim left this duplicate out (see EpochClaim): its state is not trusted, so when its
   * plugin first speaks it is fenced and rejoined by state transfer, whatever it reports. Before
   * start, or on the loop for a duplicate added online before its first connection.
   */
  void leftOutOfClaim(String reason) {
    leftOutOfClaim = reason;
  }

  /** The duplicate's applied seq as read at start: it holds the log's trim until it acks more. */
  void initialAck(long appliedSeq) {
    ackedSeq = appliedSeq;
  }

  DuplicateView view() {
    return new DuplicateView(
        id,
        source.connectString(),
        target,
        state,
        ackedSeq,
        fenced,
        Optional.ofNullable(fenceReason));
  }

  // -------------------------------------------------------------------------------------------
  // connection

  /** The duplicate's endpoint znode changed: drop the old connection, connect to the new plugin. */
  void endpointChanged(Optional<PluginEndpoint> endpoint) {
    assert onLoop() : ON_LOOP;
    if (host.stopped() || retired) {
      return;
    }
    if (endpoint.isPresent() && endpoint.get().duplicateId() != id) {
      LOG.error(
          "duplicate {} at {} publishes the endpoint of duplicate {} ({}): not connecting; check the"
              + " repeater's duplicate list",
          id,
          source.connectString(),
          endpoint.get().duplicateId(),
          endpoint.get());
      endpoint = Optional.empty();
    }
    if (endpoint.equals(target) && channel != null) {
      return;
    }
    LOG.info(
        "duplicate {}: plugin endpoint {}",
        id,
        endpoint.map(PluginEndpoint::address).orElse("(none)"));
    if (transfer != null && channel != null) {
      transferFailed(
          "its plugin moved to "
              + endpoint.map(PluginEndpoint::address).orElse("(none)")
              + " during the transfer");
    }
    host.streamLost(this);
    target = endpoint;
    connectAfresh();
  }

  private void connect() {
    assert onLoop() : ON_LOOP;
    PluginEndpoint endpoint = target.orElseThrow();
    setState(LinkState.CONNECTING);
    ChannelFuture connecting = host.connectPlugin(endpoint, PluginHandler::new);
    Channel ch = connecting.channel();
    channel = ch;
    connecting.addListener(
        f -> {
          if (ch != channel) {
            ch.close();
          } else if (f.isSuccess()) {
            connected();
          } else {
            LOG.info(
                "duplicate {}: cannot connect to {}: {}",
                id,
                endpoint.address(),
                f.cause().toString());
            detach();
            reconnectLater();
          }
        });
  }

  private void connected() {
    raw = channel.pipeline().context(WirePipeline.FRAME_DECODER);
    Channel ch = channel;
    ch.writeAndFlush(Message.Hello.of(Role.REPEATER, RepeaterSettings.HELLO_ID));
    setState(LinkState.HANDSHAKING);
    handshakeTimer =
        host.loop()
            .schedule(
                () -> {
                  if (ch == channel && state == LinkState.HANDSHAKING) {
                    LOG.warn(
                        "duplicate {}: no STATUS within {} ms; reconnecting",
                        id,
                        RepeaterSettings.PLUGIN_HANDSHAKE_TIMEOUT_MILLIS);
                    ch.close();
                  }
                },
                RepeaterSettings.PLUGIN_HANDSHAKE_TIMEOUT_MILLIS,
                TimeUnit.MILLISECONDS);
  }

  /** The current connection is gone. */
  private void lost(String why) {
    LOG.info(
        "duplicate {}: connection to {} {}",
        id,
        target.map(PluginEndpoint::address).orElse("?"),
        why);
    detach();
    if (transfer != null) {
      transferFailed("the connection to its plugin was lost during the transfer");
      return;
    }
    host.streamLost(this);
    reconnectLater();
  }

  private void reconnectLater() {
    if (host.stopped() || fenced) {
      setState(LinkState.CLOSED);
      return;
    }
    if (target.isEmpty()) {
      setState(LinkState.WAITING_FOR_ENDPOINT);
      return;
    }
    long delay =
        Math.min(
            RepeaterSettings.RECONNECT_BACKOFF_MAX_MILLIS,
            RepeaterSettings.RECONNECT_BACKOFF_MIN_MILLIS << Math.min(failures, 20));
    failures++;
    setState(LinkState.BACKING_OFF);
    cancelRetry();
    retry =
        host.loop()
            .schedule(
                () -> {
                  retry = null;
                  if (channel == null && target.isPresent() && !host.stopped() && !fenced) {
                    connect();
                  }
                },
                delay,
                TimeUnit.MILLISECONDS);
  }

  /**
   * Forgets the current connection (the caller closes it if needed); its late events are ignored.
   */
  private void detach() {
    probeSeq = 0; // a new connection starts from a STATUS: its round trips are not this one's
    channel = null;
    raw = null;
    dirty = false;
    if (handshakeTimer != null) {
      handshakeTimer.cancel(false);
      handshakeTimer = null;
    }
  }

  private void cancelRetry() {
    if (retry != null) {
      retry.cancel(false);
      retry = null;
    }
  }

  /** Closing or deposed: close the connection and stop following the endpoint. */
  void shutdown() {
    assert onLoop() : ON_LOOP;
    if (transfer != null) {
      Transfer t = transfer;
      transfer = null;
      host.transferEnded(t, "the repeater stopped");
    }
    cancelRetry();
    if (channel != null) {
      Channel ch = channel;
      detach();
      ch.close();
    }
    setState(LinkState.CLOSED);
  }

  /**
   * Flushes, and returns a future that completes once everything written so far is sent (null if
   * not streaming).
   */
  ChannelFuture drain() {
    assert onLoop() : ON_LOOP;
    if (channel == null || state != LinkState.STREAMING) {
      return null;
    }
    dirty = false;
    return raw.writeAndFlush(Unpooled.EMPTY_BUFFER);
  }

  // -------------------------------------------------------------------------------------------
  // from the plugin

  private void onMessage(Channel ch, Message m) {
    assert onLoop() : ON_LOOP;
    if (ch != channel || (state != LinkState.HANDSHAKING && state != LinkState.STREAMING)) {
      return; // an old, fenced or closed connection
    }
    heardOrOwedSinceNanos = System.nanoTime();
    if (state == LinkState.HANDSHAKING) {
      if (m instanceof Message.Status s) {
        onStatus(s);
      } else if (m instanceof Message.Challenge c) {
        onChallenge(ch, c);
      } else if (m instanceof Message.Error e) {
        onError(e);
      } else if (!(m instanceof Message.Hello h
          && h.role() == Role.PLUGIN)) { // a courtesy HELLO is tolerated
        LOG.warn("duplicate {}: expected STATUS, got {}; reconnecting", id, m);
        detach();
        Channels.errorAndClose(
            ch,
            Message.Error.of(
                ErrorCode.UNEXPECTED_MESSAGE,
                "expected STATUS in answer to HELLO, got " + Channels.name(m)));
        reconnectLater();
      }
      return;
    }
    if (m instanceof Message.Ack a) {
      onAck(a);
    } else if (m instanceof Message.TransferChunk c) {
      host.chunk(this, c);
    } else if (m instanceof Message.Retransmit r) {
      onRetransmit(r);
    } else if (m instanceof Message.Error e) {
      onError(e);
    } else if (m instanceof Message.Status s) {
      if (s.epoch() > host.epoch()) {
        host.depose(id, "STATUS with epoch " + s.epoch());
      } else if (s.state() == DuplicateState.FENCED) {
        fence("its plugin reports it is fenced", true);
      } else if (!fencedForOrphans(s.epoch(), s.appliedSeq())) {
        acked(s.appliedSeq());
      }
    } else {
      ch.writeAndFlush(
          Message.Error.of(
              ErrorCode.UNEXPECTED_MESSAGE,
              "the repeater accepts ACK, RETRANSMIT, STATUS and ERROR from a plugin, not "
                  + Channels.name(m)));
    }
  }

  /**
   * The plugin requires authentication: answer with this repeater's credential, or give up on this
   * connection.
   */
  private void onChallenge(Channel ch, Message.Challenge c) {
    Credential credential = host.credential();
    if (credential == null) {
      LOG.error(
          "duplicate {}: the plugin requires authentication, but this repeater has no credential; retrying"
              + " later",
          id);
      ch.close();
      return;
    }
    Message.Auth auth;
    try {
      auth =
          credential.answer(Role.REPEATER, RepeaterSettings.HELLO_ID, Credential.duplicate(id), c);
    } catch (IllegalArgumentException e) {
      LOG.error("duplicate {}: {}; retrying later", id, e.getMessage());
      ch.close();
      return;
    }
    ch.writeAndFlush(auth);
  }

  private void onStatus(Message.Status s) {
    if (handshakeTimer != null) {
      handshakeTimer.cancel(false);
      handshakeTimer = null;
    }
    if (s.duplicateId() != id) {
      String why =
          "STATUS from duplicate " + s.duplicateId() + " on the connection to duplicate " + id;
      LOG.error("duplicate {}: {}; reconnecting", id, why);
      Channel ch = channel;
      detach();
      Channels.errorAndClose(ch, Message.Error.of(ErrorCode.UNEXPECTED_MESSAGE, why));
      reconnectLater();
      return;
    }
    if (s.epoch() > host.epoch()) {
      host.depose(
          id, "STATUS with epoch " + s.epoch() + " (this repeater's is " + host.epoch() + ")");
      return;
    }
    if (transfer != null) {
      onStatusWhileRejoining(s);
      return;
    }
    if (fenced) {
      // A new plugin of a fenced duplicate: tell it too.
      sendFencedAndClose(fenceReason);
      return;
    }
    if (s.state() == DuplicateState.FENCED) {
      fence("its plugin reports it is fenced", true);
      return;
    }
    if (leftOutOfClaim != null) {
      fence("left out of the claim of epoch " + host.epoch() + ": " + leftOutOfClaim, true);
      return;
    }
    if (fencedForOrphans(s.epoch(), s.appliedSeq())) {
      return;
    }
    acked(s.appliedSeq());
    resume(s.appliedSeq());
  }

  /**
   * Fences the duplicate if it reports having applied, under an epoch older than this repeater's,
   * writes beyond {@link LinkHost#claimedSeq()}: those are a deposed repeater's, not this one's
   * (see docs/reliability.md, "A rolled-back duplicate"). Resuming it would leave it silently
   * different.
   *
   * @return whether it fenced
   */
  private boolean fencedForOrphans(long epoch, long appliedSeq) {
    if (epoch >= host.epoch() || appliedSeq <= host.claimedSeq()) {
      return false;
    }
    fence(
        "it applied up to seq "
            + appliedSeq
            + " under epoch "
            + epoch
            + ", older than this repeater's "
            + host.epoch()
            + ", past seq "
            + host.claimedSeq()
            + " where this repeater's writes begin: writes of a deposed repeater (was it rolled back,"
            + " say restored from a backup?)",
        true);
    return true;
  }

  /**
   * Streams from {@code appliedSeq} on: from the log, or fenced if the log no longer holds what
   * follows.
   */
  private void resume(long appliedSeq) {
    RetransmissionLog log = host.log();
    switch (log.resume(appliedSeq)) {
      case UP_TO_DATE, FROM_LOG -> {
        cursor = appliedSeq;
        failures = 0;
        setState(LinkState.STREAMING);
        LOG.info(
            "duplicate {}: streaming from seq {} (sequenced up to {})",
            id,
            cursor + 1,
            log.lastSeq());
        pump();
      }
      case GONE ->
          fence(
              "it has applied seq "
                  + appliedSeq
                  + " and needs "
                  + (appliedSeq + 1)
                  + ", which the log no longer holds (it holds "
                  + describeLog()
                  + ")",
              true);
      case AHEAD ->
          fence(
              "it has applied seq "
                  + appliedSeq
                  + ", beyond this repeater's last seq "
                  + log.lastSeq()
                  + ": another repeater has written to it",
              false);
    }
  }

  // -------------------------------------------------------------------------------------------
  // state transfer

  /**
   * Starts bringing this duplicate back by state transfer: no longer fenced, it is connected
   * afresh; its plugin's STATUS makes the repeater ask the source for the snapshot, whose chunks
   * are relayed here; the STATUS after the install resumes the stream from the snapshot's seq.
   */
  void beginRejoin(Transfer t) {
    assert onLoop() : ON_LOOP;
    transfer = t;
    heldByOperator = false;
    leftOutOfClaim = null; // the transfer replaces what it held
    fenced = false;
    fenceReason = null;
    connectAfresh();
    host.changed(view());
  }

  /**
   * Drops the current connection, if any, and connects afresh to the target endpoint (or waits for
   * one).
   */
  private void connectAfresh() {
    cancelRetry();
    failures = 0;
    if (channel != null) {
      Channel old = channel;
      detach();
      old.close();
    }
    if (target.isPresent()) {
      connect();
    } else {
      setState(LinkState.WAITING_FOR_ENDPOINT);
    }
  }

  private void onStatusWhileRejoining(Message.Status s) {
    Transfer t = transfer;
    if (!t.requested) {
      t.requested = true;
      LOG.info(
          "duplicate {}: plugin at seq {} ({}); asking duplicate {} for a snapshot (state transfer {})",
          id,
          s.appliedSeq(),
          s.state(),
          t.source.id(),
          t.id);
      if (!t.source.send(new Message.TransferRequest(t.id, id))) {
        transferFailed("the source duplicate " + t.source.id() + " is no longer streaming");
      }
      return;
    }
    if (!t.relayedLast) {
      return; // a STATUS the plugin sent for another reason
    }
    if (s.state() == DuplicateState.FENCED || s.appliedSeq() != t.snapshotSeq) {
      transferFailed(
          "after the install its plugin reports seq "
              + s.appliedSeq()
              + " ("
              + s.state()
              + "), not the snapshot's seq "
              + t.snapshotSeq);
      return;
    }
    transfer = null;
    ackedSeq = s.appliedSeq();
    resume(s.appliedSeq());
    if (fenced) {
      host.transferEnded(
          t, "the log no longer holds the writes after the snapshot: " + fenceReason);
    } else {
      host.transferEnded(t, null);
    }
  }

  /** Relays a chunk of the transfer to this duplicate's plugin; false if it cannot be sent. */
  boolean relay(Message.TransferChunk chunk) {
    return send(chunk);
  }

  /** Sends {@code m} on the current connection, if it is up; false otherwise. */
  boolean send(Message m) {
    assert onLoop() : ON_LOOP;
    if (channel == null || raw == null) {
      return false;
    }
    channel.writeAndFlush(m, channel.voidPromise());
    return true;
  }

  /** The transfer to this duplicate failed: it is fenced again (and not rejoined automatically). */
  void transferFailed(String reason) {
    assert onLoop() : ON_LOOP;
    Transfer t = transfer;
    if (t == null) {
      return;
    }
    transfer = null;
    fence("state transfer " + t.id + " failed: " + reason, false); // before the caller hears of it
    host.transferEnded(t, reason);
  }

  /**
   * The operator fences this duplicate: it is sent nothing more and serves no reads, until
   * rejoined.
   */
  void fenceByOperator() {
    assert onLoop() : ON_LOOP;
    heldByOperator = true;
    if (transfer != null) {
      transfer.retryable = false;
      transferFailed("fenced by the operator");
    } else {
      fence("fenced by the operator", false);
    }
  }

  /**
   * The duplicate is retired from the deployment ({@link MembershipChanges}): fenced (its plugin
   * hears FENCED and records it), a transfer to it abandoned, the connection closed, and it never
   * connects again, whatever its endpoint does.
   */
  void retire() {
    assert onLoop() : ON_LOOP;
    retired = true;
    heldByOperator = true;
    if (transfer != null) {
      transfer.retryable = false;
      transferFailed("retired from the deployment");
    } else {
      fence("retired from the deployment", false);
    }
    shutdown();
  }

  private void onAck(Message.Ack a) {
    if (a.epoch() > host.epoch()) {
      host.depose(id, "ACK with epoch " + a.epoch() + " (this repeater's is " + host.epoch() + ")");
      return;
    }
    if (fencedForOrphans(a.epoch(), a.appliedSeq())) {
      return;
    }
    acked(a.appliedSeq());
  }

  private void acked(long appliedSeq) {
    if (probeSeq != 0 && appliedSeq >= probeSeq) {
      meters.ackLatency(System.nanoTime() - probeSentNanos, probeFromIdle);
      probeSeq = 0;
    }
    if (appliedSeq > ackedSeq) {
      ackedSeq = appliedSeq;
      host.acked();
    }
  }

  private void onRetransmit(Message.Retransmit r) {
    if (r.epoch() > host.epoch()) {
      host.depose(
          id, "RETRANSMIT with epoch " + r.epoch() + " (this repeater's is " + host.epoch() + ")");
      return;
    }
    RetransmissionLog log = host.log();
    switch (log.retransmit(r.fromSeq())) {
      case NOTHING ->
          LOG.debug(
              "duplicate {}: RETRANSMIT {}..{} of nothing sequenced yet",
              id,
              r.fromSeq(),
              r.toSeq());
      case GONE ->
          fence(
              "it asked to retransmit seq "
                  + r.fromSeq()
                  + ".."
                  + r.toSeq()
                  + ", which the log no longer"
                  + " holds (it holds "
                  + describeLog()
                  + ")",
              true);
      case SERVE -> {
        // Seqs after the cursor have not been sent on this connection yet: the stream brings them
        // in order.
        long to = Math.min(r.toSeq(), cursor);
        for (long seq = r.fromSeq(); seq <= to; seq++) {
          raw.write(log.get(seq).retainedDuplicate(), raw.voidPromise());
        }
        LOG.debug("duplicate {}: retransmitted {}..{}", id, r.fromSeq(), to);
        channel.flush();
        dirty = false;
      }
    }
  }

  private void onError(Message.Error e) {
    switch (e.code()) {
      case STALE_EPOCH -> host.depose(id, "STALE_EPOCH: " + e.message());
      case FENCED -> fence("its plugin reports FENCED: " + e.message(), true);
      case TRANSFER_TOO_LARGE, TRANSFER_FAILED -> host.transferError(this, e);
      default -> {
        LOG.warn("duplicate {}: plugin sent ERROR {}: {}", id, e.code(), e.message());
        host.pluginError(id, e.code(), e.message());
        if (e.code() == ErrorCode.NOT_LEADER || e.code() == ErrorCode.SHUTTING_DOWN) {
          channel.close(); // reconnects after a delay, or to the new endpoint
        }
      }
    }
  }

  // -------------------------------------------------------------------------------------------
  // streaming

  /**
   * Writes {@code firstSeq..lastSeq} were sequenced, their frames back to back in {@code frames}:
   * send them now, in one write, if this connection is streaming, caught up and not paused.
   * Otherwise {@link #pump} sends them from the log.
   */
  void offer(long firstSeq, long lastSeq, ByteBuf frames) {
    assert onLoop() : ON_LOOP;
    if (state != LinkState.STREAMING || cursor != firstSeq - 1 || !channel.isWritable()) {
      return;
    }
    boolean idle = cursor == ackedSeq;
    if (idle) {
      heardOrOwedSinceNanos = System.nanoTime(); // the first write owed: its ACK is due from now
    }
    raw.write(frames.retainedDuplicate(), raw.voidPromise());
    cursor = lastSeq;
    dirty = true;
    probe(lastSeq, idle);
  }

  void flushIfDirty() {
    assert onLoop() : ON_LOOP;
    if (dirty) {
      dirty = false;
      channel.flush();
    }
  }

  /**
   * Drops a streaming connection that has owed acknowledgements, hearing nothing from the plugin,
   * for longer than the ack timeout: its other end is likely gone without a goodbye (half-open).
   * Connecting again resumes it from its applied seq, or waits until it can be reached.
   */
  void checkAcks(long nowNanos, long timeoutNanos) {
    assert onLoop() : ON_LOOP;
    if (state == LinkState.STREAMING
        && cursor > ackedSeq
        && nowNanos - heardOrOwedSinceNanos > timeoutNanos) {
      LOG.warn(
          "duplicate {}: nothing heard for {} ms while seq {}..{} await its ACK; dropping the connection to {}",
          id,
          TimeUnit.NANOSECONDS.toMillis(nowNanos - heardOrOwedSinceNanos),
          ackedSeq + 1,
          cursor,
          target.map(PluginEndpoint::address).orElse("?"));
      Channel ch = channel;
      detach();
      ch.close();
      host.streamLost(this);
      reconnectLater();
    }
  }

  /**
   * Sends from the log after {@link #cursor} while the connection takes it; resumed when it drains.
   */
  private void pump() {
    assert onLoop() : ON_LOOP;
    RetransmissionLog log = host.log();
    long last = log.lastSeq();
    if (cursor == ackedSeq && cursor < last) {
      heardOrOwedSinceNanos = System.nanoTime();
    }
    while (cursor < last && channel.isWritable()) {
      ByteBuf frame = log.get(cursor + 1);
      if (frame == null) {
        fence(
            "it needs seq "
                + (cursor + 1)
                + ", which the full log evicted before it could be sent (it holds "
                + describeLog()
                + ")",
            false);
        return;
      }
      raw.write(frame.retainedDuplicate(), raw.voidPromise());
      cursor++;
    }
    dirty = false;
    channel.flush();
  }

  /**
   * The log evicted {@code seq}: a streaming connection that has not been sent it can never be;
   * fence it now.
   */
  void evicted(long seq) {
    assert onLoop() : ON_LOOP;
    Transfer t = transfer;
    if (t != null && seq > (t.snapshotSeq >= 0 ? t.snapshotSeq : t.holdSeq)) {
      transferFailed(
          "the full log evicted seq "
              + seq
              + ", which it needs after the snapshot"
              + (t.snapshotSeq >= 0 ? " at seq " + t.snapshotSeq : "")
              + ": more writes were sequenced during the"
              + " transfer than the log holds (raise the repeater's logCapacity)");
      return;
    }
    if (!fenced && state == LinkState.STREAMING && cursor < seq) {
      fence(
          "it fell behind: seq " + seq + " was evicted from the full log before it could be sent",
          false);
    }
  }

  // -------------------------------------------------------------------------------------------
  // fencing

  /**
   * @param rejoinable whether the repeater may rejoin it by itself (when configured to, {@link
   *     CoreConfig#autoRejoin}): a duplicate that came back needing writes the log no longer holds,
   *     or whose plugin reports it is fenced; not a slow consumer (a transfer would not make it
   *     faster), nor one fenced by the operator or after a failed transfer
   */
  private void fence(String reason, boolean rejoinable) {
    assert onLoop() : ON_LOOP;
    if (fenced) {
      return;
    }
    fenced = true;
    fenceReason = reason;
    LOG.warn("duplicate {} fenced: {}", id, reason);
    cancelRetry();
    if (channel != null) {
      sendFencedAndClose(reason);
    } else {
      setState(LinkState.CLOSED);
    }
    host.fenced(this, reason, rejoinable);
  }

  private void sendFencedAndClose(String reason) {
    Channel ch = channel;
    detach();
    setState(LinkState.CLOSED);
    Channels.errorAndClose(
        ch, Message.Error.of(ErrorCode.FENCED, "duplicate " + id + " is fenced: " + reason));
  }

  private String describeLog() {
    RetransmissionLog log = host.log();
    return log.isEmpty() ? "nothing" : log.firstSeq() + ".." + log.lastSeq();
  }

  private void setState(LinkState next) {
    if (state != next) {
      state = next;
      host.changed(view());
    }
  }

  /** Inbound events of one plugin connection; runs on the sequencer loop. */
  private final class PluginHandler extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      if (msg instanceof Message m) {
        onMessage(ctx.channel(), m);
      } else {
        ReferenceCountUtil.release(msg);
      }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
      if (ctx.channel() == channel && state == LinkState.STREAMING && ctx.channel().isWritable()) {
        pump();
      }
      ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      if (ctx.channel() == channel) {
        lost("closed");
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      if (ctx.channel() != channel) {
        return;
      }
      if (cause instanceof WireException) {
        LOG.warn(
            "duplicate {}: bad frame from the plugin: {}",
            id,
            cause.getMessage()); // the codec closes
      } else if (cause instanceof IOException || TlsSettings.isTlsFailure(cause)) {
        LOG.info("duplicate {}: {}", id, cause.toString());
        ctx.close();
      } else {
        LOG.warn("duplicate {}: unexpected failure; reconnecting", id, cause);
        ctx.close();
      }
    }
  }
}
