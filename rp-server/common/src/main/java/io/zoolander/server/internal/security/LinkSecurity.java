package io.zoolander.server.internal.security;

import io.zoolander.wire.AccessControl;
import io.zoolander.wire.Credential;
import io.zoolander.wire.TlsSettings;
import java.util.Objects;

/**
 * The security of a server's Netty links, validated by the public builders and configs. Internal.
 *
 * @param tls TLS on every link, null for plaintext
 * @param access who may connect in which role; {@link AccessControl#none()} for everyone
 * @param credential how this process proves who it is when it connects to a server that challenges
 *     it, null for none
 */
public record LinkSecurity(TlsSettings tls, AccessControl access, Credential credential) {
  /** Plaintext, no authentication: the behaviour before security existed. */
  public static final LinkSecurity NONE = new LinkSecurity(null, AccessControl.none(), null);

  public LinkSecurity {
    Objects.requireNonNull(access, "access must not be null");
  }
}
