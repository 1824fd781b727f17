package io.zoolander.server.internal.repeater;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import io.zoolander.server.internal.security.ConnectionGuard;
import io.zoolander.server.internal.security.ServerAuth;
import io.zoolander.server.repeater.RepeaterSettings;
import io.zoolander.wire.AccessControl;
import io.zoolander.wire.ErrorCode;
import io.zoolander.wire.Message;
import io.zoolander.wire.Role;
import io.zoolander.wire.TlsSettings;
import io.zoolander.wire.WireException;
import io.zoolander.wire.WireSettings;
import io.zoolander.wire.internal.WriteTrace;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection, on a client I/O thread. The client must start with {@code HELLO(CLIENT,
 * clientId)} (the id in decimal) of this protocol version; anything else first is answered with
 * ERROR UNEXPECTED_MESSAGE (or UNSUPPORTED_VERSION) and the connection is closed. Then it sends
 * WRITEs for that client id; the WRITEs of one read burst are handed to the sequencer in one task,
 * in order. The repeater never answers a WRITE it sequences (the plugins reply); it answers ERROR
 * naming the request only to refuse one: a write that must not be sequenced ({@link
 * Sequencer#refusal}) is refused here, before the handoff.
 *
 * <p>When the repeater authenticates clients, HELLO is answered with CHALLENGE and the next message
 * must be an AUTH that verifies for a principal allowed as a client; otherwise (a WRITE first
 * included) the connection is answered with ERROR UNAUTHENTICATED or UNAUTHORIZED, naming the WRITE
 * if there was one, and closed: nothing is sequenced.
 */
final class ClientHandler extends ChannelInboundHandlerAdapter {
  private static final Logger LOG = LoggerFactory.getLogger(ClientHandler.class);

  private final Sequencer sequencer;
  private final ClientFlow flow;
  private final ServerAuth auth;
  private final AtomicInteger pendingHandoffs = new AtomicInteger();
  private Channel channel;
  private long clientId = -1;
  private boolean rejected;
  private List<Message.Write> batch;

  /**
   * @param sequencer where this client's WRITEs are handed over
   * @param flow the open client connections, and whether they are read
   */
  ClientHandler(Sequencer sequencer, ClientFlow flow, ServerAuth auth) {
    this.sequencer = sequencer;
    this.flow = flow;
    this.auth = auth;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    channel = ctx.channel();
    flow.connected(this);
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!(msg instanceof Message m)) {
      ReferenceCountUtil.release(msg);
      return;
    }
    if (rejected) {
      return;
    }
    if (auth.awaiting()) {
      authenticate(m);
      return;
    }
    if (clientId < 0) {
      hello(m);
      return;
    }
    if (m instanceof Message.Write w) {
      WriteTrace.mark(WriteTrace.Stage.REPEATER_READ, w.clientId(), w.requestId());
      Message.Error refusal;
      if (w.clientId() != clientId) {
        refuse(
            ErrorCode.UNEXPECTED_MESSAGE,
            w.requestId(),
            0,
            "WRITE for client " + w.clientId() + " on the connection of client " + clientId);
      } else if ((refusal = sequencer.refusal(w)) != null) {
        LOG.debug("client {}: refused request {}: {}", clientId, w.requestId(), refusal.message());
        channel.writeAndFlush(refusal);
      } else if (sequencer.isDeposed()) {
        refuse(ErrorCode.STALE_EPOCH, w.requestId(), 0, sequencer.staleMessage());
      } else if (sequencer.isClosing()) {
        refuse(ErrorCode.SHUTTING_DOWN, w.requestId(), 0, "the repeater is shutting down");
      } else {
        if (batch == null) {
          batch = new ArrayList<>();
        }
        batch.add(w);
        if (batch.size() >= RepeaterSettings.MAX_WRITES_PER_HANDOFF) {
          handOff();
        }
      }
    } else {
      long requestId = m instanceof Message.Read r ? r.requestId() : Message.Error.NO_REQUEST;
      refuse(
          ErrorCode.UNEXPECTED_MESSAGE,
          requestId,
          0,
          "the repeater accepts only WRITE from a client, not " + Channels.name(m));
    }
  }

  private void hello(Message m) {
    String problem;
    ErrorCode code = ErrorCode.UNEXPECTED_MESSAGE;
    if (m instanceof Message.Hello h && h.protocolVersion() != WireSettings.PROTOCOL_VERSION) {
      code = ErrorCode.UNSUPPORTED_VERSION;
      problem =
          "the repeater speaks protocol version "
              + WireSettings.PROTOCOL_VERSION
              + ", not "
              + h.protocolVersion();
    } else if (m instanceof Message.Hello h && h.role() == Role.CLIENT) {
      try {
        long id = Long.parseLong(h.id());
        if (id >= 0) {
          Message.Challenge challenge = auth.begin(h);
          if (challenge != null) {
            channel.writeAndFlush(challenge); // the client id counts once AUTH verifies
            return;
          }
          clientId = id;
          ConnectionGuard.handshakeDone(channel);
          LOG.debug("client {} connected from {}", clientId, channel.remoteAddress());
          return;
        }
      } catch (NumberFormatException e) {
        // below
      }
      problem = "HELLO(CLIENT) must carry the client id in decimal, not '" + h.id() + "'";
    } else if (m instanceof Message.Hello h) {
      problem = "the repeater accepts HELLO(CLIENT, clientId), not a HELLO from a " + h.role();
    } else {
      problem = "expected HELLO(CLIENT, clientId) first, got " + Channels.name(m);
    }
    rejected = true;
    LOG.info("client connection from {} rejected: {}", channel.remoteAddress(), problem);
    Channels.errorAndClose(channel, Message.Error.of(code, problem));
  }

  /**
   * The message after CHALLENGE: an AUTH that verifies makes the client known; anything else closes
   * the connection.
   */
  private void authenticate(Message m) {
    AccessControl.Decision decision = auth.finish(channel, m);
    if (decision.ok()) {
      clientId = Long.parseLong(auth.hello().id());
      ConnectionGuard.handshakeDone(channel);
      LOG.debug(
          "client {} authenticated as '{}' from {}",
          clientId,
          decision.principal(),
          channel.remoteAddress());
      return;
    }
    rejected = true;
    long requestId = m instanceof Message.Write w ? w.requestId() : Message.Error.NO_REQUEST;
    LOG.warn(
        "client connection from {} refused: {}: {}",
        channel.remoteAddress(),
        decision.error(),
        decision.reason());
    Channels.errorAndClose(
        channel, new Message.Error(decision.error(), requestId, 0, decision.reason()));
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    handOff();
    ctx.fireChannelReadComplete();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    handOff();
    flow.disconnected(this);
    ctx.fireChannelInactive();
  }

  /**
   * Hands the WRITEs read so far to the sequencer; stops reading if too many handoffs are queued.
   */
  private void handOff() {
    List<Message.Write> writes = batch;
    if (writes == null) {
      return;
    }
    batch = null;
    int pending = pendingHandoffs.incrementAndGet();
    if (!sequencer.submit(this, writes)) {
      pendingHandoffs.decrementAndGet();
      for (Message.Write w : writes) {
        refuse(ErrorCode.SHUTTING_DOWN, w.requestId(), 0, "the repeater is shutting down");
      }
      return;
    }
    if (pending >= RepeaterSettings.MAX_PENDING_HANDOFFS_PER_CLIENT) {
      channel.config().setAutoRead(false);
      // The sequencer may have caught up meanwhile and missed the flag: check again.
      resumeIfIdle();
    }
  }

  /** Called by the sequencer after it processed a handoff. */
  void handoffDone() {
    pendingHandoffs.decrementAndGet();
    resumeIfIdle();
  }

  /** Stops reading this connection (every duplicate is far behind). Any thread. */
  void pause() {
    channel.config().setAutoRead(false);
  }

  /**
   * Reads this connection again unless it has too many handoffs queued or the repeater pauses
   * clients. Any thread.
   */
  void resumeIfIdle() {
    if (pendingHandoffs.get() < RepeaterSettings.MAX_PENDING_HANDOFFS_PER_CLIENT
        && !flow.paused()
        && !channel.config().isAutoRead()) {
      channel.config().setAutoRead(true);
    }
  }

  /**
   * A newer repeater exists: says so and closes the connection, so the client moves on to the next
   * one. Any thread.
   */
  void deposed() {
    Channels.errorAndClose(
        channel, Message.Error.of(ErrorCode.STALE_EPOCH, sequencer.staleMessage()));
  }

  /** Refuses a request with an application ERROR; the connection stays open. Any thread. */
  void refuse(ErrorCode code, long requestId, long retryAfterMillis, String message) {
    channel.writeAndFlush(new Message.Error(code, requestId, retryAfterMillis, message));
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (cause instanceof WireException) {
      LOG.info(
          "client {} at {}: bad frame: {}",
          clientId,
          channel.remoteAddress(),
          cause.getMessage()); // codec closes
    } else if (cause instanceof IOException) {
      LOG.debug("client {} at {}: {}", clientId, channel.remoteAddress(), cause.toString());
      ctx.close();
    } else if (TlsSettings.isTlsFailure(cause)) {
      LOG.info(
          "client connection from {}: TLS failed: {}", channel.remoteAddress(), cause.toString());
      ctx.close();
    } else {
      LOG.warn(
          "client {} at {}: unexpected failure; closing", clientId, channel.remoteAddress(), cause);
      ctx.close();
    }
  }
}
