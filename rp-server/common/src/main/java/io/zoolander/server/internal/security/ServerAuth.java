package io.zoolander.server.internal.security;

import io.netty.channel.Channel;
import io.zoolander.wire.AccessControl;
import io.zoolander.wire.ClientIds;
import io.zoolander.wire.Credential;
import io.zoolander.wire.ErrorCode;
import io.zoolander.wire.Message;
import io.zoolander.wire.Role;
import io.zoolander.wire.TlsSettings;
import java.util.Optional;

/**
 * The server side of one connection's authentication handshake: HELLO in a role that must
 * authenticate is answered with CHALLENGE, and the next message must be an AUTH that verifies. A
 * client's HELLO id must moreover be a client id of the principal it authenticated as ({@link
 * ClientIds}), or it is refused as {@code UNAUTHORIZED}: the repeater and the plugins share this
 * rule, so a client can neither write under nor receive the replies of another principal's id.
 * Confined to the connection's event loop. Internal.
 */
public final class ServerAuth {
  private final AccessControl access;
  private final String server;
  private final Runnable onFailure;
  private Message.Hello hello;
  private Message.Challenge challenge;

  /**
   * @param server this server's name in its challenges ({@link Credential#REPEATER} or {@link
   *     Credential#duplicate}): a proof made for another server does not verify here
   */
  public ServerAuth(AccessControl access, String server) {
    this(access, server, () -> {});
  }

  /**
   * @param server this server's name in its challenges ({@link Credential#REPEATER} or {@link
   *     Credential#duplicate}): a proof made for another server does not verify here
   * @param onFailure runs once for every handshake that ends refused (it feeds a security-failures
   *     meter)
   */
  public ServerAuth(AccessControl access, String server, Runnable onFailure) {
    this.access = access;
    this.server = server;
    this.onFailure = onFailure;
  }

  /**
   * Starts the handshake for {@code hello}, if its role must authenticate.
   *
   * @return the challenge to send, or null if the role is open (go on as after HELLO)
   */
  public Message.Challenge begin(Message.Hello hello) {
    if (!access.requires(hello.role())) {
      return null;
    }
    this.hello = hello;
    this.challenge = access.challenge(server);
    return challenge;
  }

  /** Whether a challenge was sent and no AUTH has been checked yet. */
  public boolean awaiting() {
    return challenge != null;
  }

  /** The HELLO being authenticated. */
  public Message.Hello hello() {
    return hello;
  }

  /**
   * Checks the message that followed the challenge; after it the handshake is over either way.
   *
   * @return the decision; a message other than AUTH is refused as UNAUTHENTICATED
   */
  public AccessControl.Decision finish(Channel channel, Message m) {
    Message.Challenge sent = challenge;
    challenge = null;
    AccessControl.Decision decision;
    if (m instanceof Message.Auth auth) {
      Optional<String> certificate = TlsSettings.peerPrincipal(channel);
      decision = access.verify(hello, sent, auth, certificate);
      if (decision.ok() && hello.role() == Role.CLIENT && !ownsId(decision.principal())) {
        decision =
            new AccessControl.Decision(
                null,
                ErrorCode.UNAUTHORIZED,
                "client id "
                    + hello.id()
                    + " does not belong to principal '"
                    + decision.principal()
                    + "' (see ClientIds: the SDK draws one with a credential)");
      }
    } else {
      decision =
          new AccessControl.Decision(
              null,
              ErrorCode.UNAUTHENTICATED,
              "authentication required: expected AUTH in answer to CHALLENGE, got "
                  + m.getClass().getSimpleName());
    }
    if (!decision.ok()) {
      onFailure.run();
    }
    return decision;
  }

  private boolean ownsId(String principal) {
    try {
      return ClientIds.belongsTo(Long.parseLong(hello.id()), principal);
    } catch (NumberFormatException e) {
      return false;
    }
  }
}
