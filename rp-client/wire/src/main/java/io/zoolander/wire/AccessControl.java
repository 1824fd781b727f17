package io.zoolander.wire;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Who may connect to a Zoolander server in which {@link Role}: the server side of authentication.
 *
 * <p>A role with an allow-list must authenticate: a HELLO in that role is answered with a {@link
 * Message.Challenge}; the peer answers {@link Message.Auth} with either a shared-secret proof (see
 * {@link Credential#secret}) for a principal whose secret this object holds, or an empty proof,
 * meaning its TLS client certificate, whose subject CN is then the principal (mutual TLS must be
 * on). The principal must then be on the role's allow-list. A role without an allow-list is open,
 * as before security existed. {@link #none()} opens every role.
 *
 * <p>The repeater allow-lists {@link Role#CLIENT} (who may write); a plugin allow-lists {@link
 * Role#REPEATER} (who may send SEQUENCED) and optionally {@link Role#CLIENT} (who may read and
 * receive replies).
 *
 * <p>Immutable and thread-safe; {@link #toString()} never shows a secret.
 */
public final class AccessControl {
  private static final AccessControl NONE = new AccessControl(Map.of(), Map.of());
  private static final SecureRandom RANDOM = new SecureRandom();

  private final Map<String, byte[]> secrets;
  private final Map<Role, Set<String>> allowed;

  private AccessControl(Map<String, byte[]> secrets, Map<Role, Set<String>> allowed) {
    this.secrets = secrets;
    this.allowed = allowed;
  }

  /** Every role open: no authentication. */
  public static AccessControl none() {
    return NONE;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Whether a peer saying HELLO in {@code role} must authenticate. */
  public boolean requires(Role role) {
    return allowed.containsKey(role);
  }

  /** Whether any role must authenticate. */
  public boolean isEnabled() {
    return !allowed.isEmpty();
  }

  /** The principals allowed in {@code role}; empty for an open role. */
  public Set<String> allowed(Role role) {
    return allowed.getOrDefault(role, Set.of());
  }

  /**
   * A challenge with a fresh random nonce, for one connection.
   *
   * @param server this server's name ({@link Credential#REPEATER} or {@link Credential#duplicate}),
   *     which the proof must bind
   */
  public Message.Challenge challenge(String server) {
    byte[] nonce = new byte[WireSettings.NONCE_BYTES];
    RANDOM.nextBytes(nonce);
    return new Message.Challenge(nonce, server);
  }

  /**
   * Checks an AUTH.
   *
   * @param hello the peer's HELLO
   * @param challenge the challenge this connection was sent (naming this server: a proof made for
   *     another server does not verify)
   * @param auth the peer's answer
   * @param certificatePrincipal the subject CN of the peer's verified TLS client certificate, if it
   *     presented one
   * @return the decision: the authenticated principal, or the error to answer with and why
   */
  public Decision verify(
      Message.Hello hello,
      Message.Challenge challenge,
      Message.Auth auth,
      Optional<String> certificatePrincipal) {
    Objects.requireNonNull(hello, "hello must not be null");
    Objects.requireNonNull(challenge, "challenge must not be null");
    Objects.requireNonNull(auth, "auth must not be null");
    Objects.requireNonNull(certificatePrincipal, "certificatePrincipal must not be null");
    String principal;
    if (auth.byCertificate()) {
      if (certificatePrincipal.isEmpty()) {
        return Decision.refused(
            ErrorCode.UNAUTHENTICATED,
            "AUTH by certificate, but the connection has no verified TLS client certificate");
      }
      principal = certificatePrincipal.get();
    } else {
      byte[] secret = secrets.get(auth.principal());
      // Compute a proof even for an unknown principal, so the answer takes as long either way.
      byte[] expected =
          Credential.proof(
              secret != null ? secret : new byte[Credential.MIN_SECRET_BYTES],
              hello.role(),
              hello.id(),
              auth.principal(),
              challenge.server(),
              challenge.nonce());
      if (!MessageDigest.isEqual(expected, auth.proof()) || secret == null) {
        return Decision.refused(
            ErrorCode.UNAUTHENTICATED,
            "the proof for principal '" + auth.principal() + "' does not verify");
      }
      principal = auth.principal();
    }
    if (!allowed(hello.role()).contains(principal)) {
      return Decision.refused(
          ErrorCode.UNAUTHORIZED,
          "principal '" + principal + "' is not allowed as " + hello.role());
    }
    return new Decision(principal, null, null);
  }

  @Override
  public String toString() {
    return "AccessControl[allowed="
        + allowed
        + ", principals with secrets="
        + secrets.keySet()
        + "]";
  }

  /**
   * The outcome of {@link #verify}.
   *
   * @param principal the authenticated principal, null if refused
   * @param error why not, null if authenticated
   * @param reason a human-readable reason, null if authenticated
   */
  public record Decision(String principal, ErrorCode error, String reason) {
    static Decision refused(ErrorCode error, String reason) {
      return new Decision(null, error, reason);
    }

    /** Whether the peer is authenticated and allowed. */
    public boolean ok() {
      return error == null;
    }
  }

  /**
   * Builds an {@link AccessControl}; every method validates its arguments (NPE/IAE naming them).
   */
  public static final class Builder {
    private final Map<String, byte[]> secrets = new LinkedHashMap<>();
    private final Map<Role, Set<String>> allowed = new EnumMap<>(Role.class);

    private Builder() {}

    /**
     * Knows {@code principal}'s shared secret ({@value Credential#MIN_SECRET_BYTES}+ bytes;
     * copied).
     */
    public Builder secret(String principal, byte[] secret) {
      Credential.checkPrincipal(principal, "principal");
      Objects.requireNonNull(secret, "secret must not be null");
      Credential.checkSecret(secret.length, "secret of " + principal);
      if (secrets.containsKey(principal)) {
        throw new IllegalArgumentException("principal '" + principal + "' already has a secret");
      }
      secrets.put(principal, secret.clone());
      return this;
    }

    /**
     * Knows every secret in a file of {@code principal=secret} lines (UTF-8; blank lines and lines
     * starting with {@code #} skipped; the secret is the rest of the line, its UTF-8 bytes). Keep
     * the file readable by the server only.
     *
     * @throws IllegalArgumentException if the file is missing or unreadable or a line is invalid;
     *     the message names the file and line, never a secret
     */
    public Builder secretsFile(Path file) {
      Objects.requireNonNull(file, "secretsFile must not be null");
      List<String> lines;
      try {
        lines = Files.readAllLines(file, StandardCharsets.UTF_8);
      } catch (NoSuchFileException e) {
        throw new IllegalArgumentException("secretsFile: " + file + " does not exist");
      } catch (IOException e) {
        throw new IllegalArgumentException(
            "secretsFile: cannot read " + file + ": " + e.getMessage());
      }
      for (int i = 0; i < lines.size(); i++) {
        String line = lines.get(i).strip();
        if (line.isEmpty() || line.startsWith("#")) {
          continue;
        }
        int eq = line.indexOf('=');
        if (eq <= 0) {
          throw new IllegalArgumentException(
              "secretsFile: " + file + " line " + (i + 1) + ": expected principal=secret");
        }
        try {
          secret(
              line.substring(0, eq).strip(),
              line.substring(eq + 1).strip().getBytes(StandardCharsets.UTF_8));
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException(
              "secretsFile: " + file + " line " + (i + 1) + ": " + e.getMessage());
        }
      }
      return this;
    }

    /**
     * Makes {@code role} authenticate and allows these principals in it (shared-secret principals
     * or certificate CNs). Calling it again for a role adds principals.
     *
     * @throws IllegalArgumentException if no principal is given or one is invalid
     */
    public Builder allow(Role role, String... principals) {
      Objects.requireNonNull(role, "role must not be null");
      Objects.requireNonNull(principals, "principals must not be null");
      if (principals.length == 0) {
        throw new IllegalArgumentException("allow(" + role + "): at least one principal");
      }
      Set<String> set = allowed.computeIfAbsent(role, r -> new LinkedHashSet<>());
      for (String p : principals) {
        Credential.checkPrincipal(p, "principal allowed as " + role);
        set.add(p);
      }
      return this;
    }

    /**
     * The access control; {@link AccessControl#none()}-like if no role was allowed.
     *
     * @throws IllegalArgumentException if two principals allowed as clients share a client id tag
     *     ({@link ClientIds}): each could use the other's client ids; rename one
     */
    public AccessControl build() {
      Map<Long, String> tags = new java.util.HashMap<>();
      for (String p : allowed.getOrDefault(Role.CLIENT, Set.of())) {
        String other = tags.putIfAbsent(ClientIds.tag(p), p);
        if (other != null) {
          throw new IllegalArgumentException(
              "principals '"
                  + other
                  + "' and '"
                  + p
                  + "' allowed as clients share a client id tag (see ClientIds): rename one");
        }
      }
      Map<Role, Set<String>> roles = new EnumMap<>(Role.class);
      allowed.forEach((r, s) -> roles.put(r, Collections.unmodifiableSet(new LinkedHashSet<>(s))));
      Map<String, byte[]> copy = new LinkedHashMap<>();
      secrets.forEach((p, s) -> copy.put(p, Arrays.copyOf(s, s.length)));
      return new AccessControl(
          Collections.unmodifiableMap(copy), Collections.unmodifiableMap(roles));
    }
  }
}
