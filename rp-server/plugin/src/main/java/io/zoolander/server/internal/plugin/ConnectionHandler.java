package io.zoolander.server.internal.plugin;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.zoolander.server.internal.security.ConnectionGuard;
import io.zoolander.server.internal.security.ServerAuth;
import io.zoolander.server.plugin.ZoolanderPluginView.Snapshot;
import io.zoolander.wire.AccessControl;
import io.zoolander.wire.Credential;
import io.zoolander.wire.ErrorCode;
import io.zoolander.wire.Message;
import io.zoolander.wire.Role;
import io.zoolander.wire.TlsSettings;
import io.zoolander.wire.WireException;
import io.zoolander.wire.WirePipeline;
import io.zoolander.wire.WireSettings;
import io.zoolander.wire.internal.WriteTrace;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connection to the plugin, on Netty's event loop. The first message must be HELLO (anything
 * else: ERROR UNEXPECTED_MESSAGE and the connection is closed, after a linger in which whatever
 * else arrives is discarded); it is answered with STATUS. Then a REPEATER may send SEQUENCED,
 * RETRANSMIT (a repeater taking over asks for the writes this duplicate applied recently: {@link
 * Applier#recentWritesRequested}), TRANSFER_REQUEST and TRANSFER_CHUNK (a state transfer, from this
 * duplicate or to it: {@link StateTransfer}) and ERROR (of which FENCED matters), a CLIENT, whose
 * HELLO id is its client id in decimal, gets its REPLYs and WATCH_EVENTs here and may send READ,
 * WATCH and UNWATCH ({@link Watches}); any role may say HELLO only to get STATUS (an admin tool).
 * Anything else is answered with ERROR UNEXPECTED_MESSAGE and the connection stays open. Messages
 * are handed to the {@link Applier}; nothing here waits. Its state (the role, the SEQUENCED of the
 * current read) is confined to the connection's event loop (asserted).
 *
 * <p>A role the plugin authenticates (see {@link AccessControl}) gets CHALLENGE instead of STATUS;
 * the next message must be an AUTH that verifies for a principal allowed in that role, and only
 * then is the peer registered and answered with STATUS. Anything else (a SEQUENCED or RETRANSMIT
 * before AUTH included) is answered with ERROR UNAUTHENTICATED or UNAUTHORIZED, and the connection
 * is closed without applying anything.
 */
final class ConnectionHandler extends SimpleChannelInboundHandler<Message> {

  private static final Logger LOG = LoggerFactory.getLogger(ConnectionHandler.class);

  private static final String EVENT_LOOP_ONLY = "must run on the connection's event loop";

  private final int duplicateId;
  private final Supplier<Snapshot> status;
  private final Applier applier;
  private final Peers peers;
  private final ServerAuth auth;
  private Role role; // null until HELLO (and, for a role that authenticates, until AUTH verifies)
  private boolean closing; // an ERROR that closes was sent: nothing more the peer sends counts
  private final List<Message.Sequenced> received = new ArrayList<>();

  ConnectionHandler(int duplicateId, Supplier<Snapshot> status, Applier applier, Peers peers) {
    this(
        duplicateId,
        status,
        applier,
        peers,
        new ServerAuth(AccessControl.none(), Credential.duplicate(duplicateId)));
  }

  ConnectionHandler(
      int duplicateId, Supplier<Snapshot> status, Applier applier, Peers peers, ServerAuth auth) {
    this.auth = auth;
    this.duplicateId = duplicateId;
    this.status = status;
    this.applier = applier;
    this.peers = peers;
  }

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, Message message) {
    assert ctx.executor().inEventLoop() : EVENT_LOOP_ONLY;
    if (closing) {
      return; // read only so the peer's FIN is seen while the ERROR lingers: nothing it sends
      // counts
    }
    if (auth.awaiting()) {
      authenticate(ctx, message);
      return;
    }
    if (role == null) {
      if (message instanceof Message.Hello hello) {
        hello(ctx, hello);
      } else {
        errorAndClose(
            ctx,
            ErrorCode.UNEXPECTED_MESSAGE,
            "the first message must be HELLO, not " + message.getClass().getSimpleName());
      }
      return;
    }
    if (message instanceof Message.Sequenced sequenced && role == Role.REPEATER) {
      WriteTrace.mark(WriteTrace.Stage.PLUGIN_READ, sequenced.clientId(), sequenced.requestId());
      received.add(
          sequenced); // handed over at the end of this read, together: see channelReadComplete
      return;
    }
    handOverSequenced(ctx);
    if (message instanceof Message.Retransmit request && role == Role.REPEATER) {
      applier.recentWritesRequested(ctx.channel(), request);
    } else if (message instanceof Message.TransferRequest request && role == Role.REPEATER) {
      applier.transferRequested(ctx.channel(), request);
    } else if (message instanceof Message.TransferChunk chunk && role == Role.REPEATER) {
      applier.transferChunk(ctx.channel(), chunk);
    } else if (message instanceof Message.Read read && role == Role.CLIENT) {
      applier.read(ctx.channel(), read);
    } else if (message instanceof Message.Watch watch && role == Role.CLIENT) {
      applier.watch(ctx.channel(), watch);
    } else if (message instanceof Message.Unwatch unwatch && role == Role.CLIENT) {
      applier.unwatch(ctx.channel(), unwatch);
    } else if (message instanceof Message.Error error) {
      onError(ctx, error);
    } else {
      ctx.writeAndFlush(
          new Message.Error(
              ErrorCode.UNEXPECTED_MESSAGE,
              requestIdOf(message),
              0,
              "the plugin does not accept "
                  + message.getClass().getSimpleName()
                  + " from a "
                  + role));
    }
  }

  /**
   * The SEQUENCED frames of one read (the repeater writes a handoff's frames as one buffer) go to
   * the applier as one list, so it can apply consecutive writes as one batch ({@link Batch}).
   */
  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    handOverSequenced(ctx);
    ctx.fireChannelReadComplete();
  }

  private void handOverSequenced(ChannelHandlerContext ctx) {
    assert ctx.executor().inEventLoop() : EVENT_LOOP_ONLY; // received is confined to it
    if (!received.isEmpty()) {
      applier.sequenced(ctx.channel(), List.copyOf(received));
      received.clear();
    }
  }

  private void hello(ChannelHandlerContext ctx, Message.Hello hello) {
    if (hello.protocolVersion() != WireSettings.PROTOCOL_VERSION) {
      errorAndClose(
          ctx,
          ErrorCode.UNSUPPORTED_VERSION,
          "the plugin speaks protocol version "
              + WireSettings.PROTOCOL_VERSION
              + ", not "
              + hello.protocolVersion());
      return;
    }
    if (hello.role() == Role.CLIENT) {
      long clientId;
      try {
        clientId = Long.parseLong(hello.id());
      } catch (NumberFormatException e) {
        clientId = -1;
      }
      if (clientId < 0) {
        errorAndClose(
            ctx,
            ErrorCode.UNEXPECTED_MESSAGE,
            "a CLIENT's HELLO id must be its client id in decimal, not '" + hello.id() + "'");
        return;
      }
    }
    Message.Challenge challenge = auth.begin(hello);
    if (challenge != null) {
      ctx.writeAndFlush(challenge); // the role counts once AUTH verifies
      return;
    }
    accept(ctx, hello);
  }

  /**
   * The message after CHALLENGE: an AUTH that verifies admits the peer in its role; anything else
   * closes.
   */
  private void authenticate(ChannelHandlerContext ctx, Message message) {
    AccessControl.Decision decision = auth.finish(ctx.channel(), message);
    if (decision.ok()) {
      LOG.debug(
          "Duplicate {}: {} '{}' authenticated as '{}'",
          duplicateId,
          auth.hello().role(),
          auth.hello().id(),
          decision.principal());
      accept(ctx, auth.hello());
      return;
    }
    LOG.warn(
        "Duplicate {}: connection from {} refused: {}: {}",
        duplicateId,
        ctx.channel().remoteAddress(),
        decision.error(),
        decision.reason());
    closing = true;
    WirePipeline.errorAndClose(
        ctx.channel(),
        new Message.Error(decision.error(), requestIdOf(message), 0, decision.reason()));
  }

  /** The peer is who it says: registers it in its role and answers STATUS. */
  private void accept(ChannelHandlerContext ctx, Message.Hello hello) {
    if (hello.role() == Role.CLIENT) {
      peers.addClient(Long.parseLong(hello.id()), ctx.channel());
    } else if (hello.role() == Role.REPEATER) {
      peers.addRepeater(ctx.channel());
    }
    role = hello.role();
    ConnectionGuard.handshakeDone(ctx.channel());
    Snapshot s = status.get();
    LOG.info(
        "Duplicate {}: {} '{}' connected from {} (repeater epoch {}, appliedSeq {}, {})",
        duplicateId,
        role,
        hello.id(),
        ctx.channel().remoteAddress(),
        s.epoch(),
        s.appliedSeq(),
        s.state());
    ctx.writeAndFlush(new Message.Status(duplicateId, s.epoch(), s.appliedSeq(), s.state()));
  }

  /**
   * Refuses the connection: the ERROR, then a close that lets the peer read it (see WirePipeline).
   */
  private void errorAndClose(ChannelHandlerContext ctx, ErrorCode code, String message) {
    closing = true;
    LOG.info(
        "Duplicate {}: refusing the connection from {}: {}",
        duplicateId,
        ctx.channel().remoteAddress(),
        message);
    WirePipeline.errorAndClose(ctx.channel(), Message.Error.of(code, message));
  }

  private void onError(ChannelHandlerContext ctx, Message.Error error) {
    if (role == Role.REPEATER && error.code() == ErrorCode.FENCED) {
      applier.fenced(
          "ERROR(FENCED) from the repeater at "
              + ctx.channel().remoteAddress()
              + ": "
              + error.message());
    } else {
      LOG.warn(
          "Duplicate {}: ERROR from {} {}: {} (request {}): {}",
          duplicateId,
          role,
          ctx.channel().remoteAddress(),
          error.code(),
          error.requestId(),
          error.message());
    }
  }

  private static long requestIdOf(Message message) {
    if (message instanceof Message.Sequenced s) {
      return s.seq();
    } else if (message instanceof Message.Read r) {
      return r.requestId();
    } else if (message instanceof Message.Watch w) {
      return w.watchId();
    } else if (message instanceof Message.Write w) {
      return w.requestId();
    }
    return Message.Error.NO_REQUEST;
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (cause instanceof WireException) {
      // The wire pipeline has answered with an ERROR and is closing the connection.
      LOG.warn(
          "Duplicate {}: bad frame from {}: {}",
          duplicateId,
          ctx.channel().remoteAddress(),
          cause.toString());
    } else if (TlsSettings.isTlsFailure(cause)) {
      LOG.info(
          "Duplicate {}: connection from {}: TLS failed: {}",
          duplicateId,
          ctx.channel().remoteAddress(),
          cause.toString());
      ctx.close();
    } else if (cause instanceof IOException) {
      LOG.debug(
          "Duplicate {}: connection from {} failed: {}",
          duplicateId,
          ctx.channel().remoteAddress(),
          cause.toString());
      ctx.close();
    } else {
      LOG.warn(
          "Duplicate {}: closing the connection from {}",
          duplicateId,
          ctx.channel().remoteAddress(),
          cause);
      ctx.close();
    }
  }
}
