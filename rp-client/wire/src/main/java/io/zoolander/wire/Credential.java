package io.zoolander.wire;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.InvalidKeyException;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Objects;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * How a peer proves who it is when a server challenges it (see {@link AccessControl}): either a
 * principal name with a shared secret, proven by an HMAC-SHA256 over the server's fresh nonce (the
 * secret never crosses the wire), or the peer's TLS client certificate, whose subject CN the server
 * takes as the principal.
 *
 * <p>Immutable. {@link #toString()} never shows the secret.
 */
public final class Credential {
  /** Shortest accepted shared secret: 16 bytes (128 bits). */
  public static final int MIN_SECRET_BYTES = 16;

  /** Longest accepted shared secret: 4 KiB. */
  public static final int MAX_SECRET_BYTES = 4096;

  private static final byte[] LABEL = "zoolander-auth-v2".getBytes(StandardCharsets.US_ASCII);

  /** The repeater's name as a server, in its CHALLENGE. */
  public static final String REPEATER = "repeater";

  /**
   * For a peer that does not know which duplicate's plugin it connects to (a fixed address): any
   * duplicate's name is expected ({@link #answer(Role, String, String, Message.Challenge)}).
   */
  public static final String ANY_DUPLICATE = "duplicate-*";

  private static final String DUPLICATE_PREFIX = "duplicate-";

  /** The name of duplicate {@code duplicateId}'s plugin as a server, in its CHALLENGE. */
  public static String duplicate(int duplicateId) {
    return DUPLICATE_PREFIX + duplicateId;
  }

  private final String principal;
  private final byte[] secret; // null: certificate

  private Credential(String principal, byte[] secret) {
    this.principal = principal;
    this.secret = secret;
  }

  /**
   * A principal proven by a shared secret; the server must know the same secret for it.
   *
   * @param principal 1 to {@link WireSettings#MAX_PRINCIPAL_BYTES} UTF-8 bytes, no control
   *     characters, no {@code =} or {@code ,} (they separate entries in configuration files)
   * @param secret {@link #MIN_SECRET_BYTES} to {@link #MAX_SECRET_BYTES} bytes; copied
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if an argument is out of bounds; the message names it
   */
  public static Credential secret(String principal, byte[] secret) {
    checkPrincipal(principal, "principal");
    Objects.requireNonNull(secret, "secret must not be null");
    checkSecret(secret.length, "secret");
    return new Credential(principal, secret.clone());
  }

  /**
   * A principal proven by a shared secret read from a file: its bytes, less trailing line breaks.
   *
   * @throws IllegalArgumentException if the file is missing, unreadable or holds a secret out of
   *     bounds; the message names the file
   */
  public static Credential secretFile(String principal, Path secretFile) {
    checkPrincipal(principal, "principal");
    return new Credential(principal, readSecret(secretFile, "secretFile"));
  }

  /**
   * The peer's TLS client certificate: the server takes its subject CN as the principal. Needs
   * mutual TLS.
   */
  public static Credential certificate() {
    return new Credential("", null);
  }

  /** The principal name; empty for {@link #certificate()}. */
  public String principal() {
    return principal;
  }

  /** Whether this credential is the TLS client certificate. */
  public boolean isCertificate() {
    return secret == null;
  }

  /**
   * The AUTH answering {@code challenge} for a peer that said {@code HELLO(role, helloId)} to the
   * server {@code expectedServer}: {@link #REPEATER}, {@link #duplicate} or {@link #ANY_DUPLICATE}.
   *
   * @throws IllegalArgumentException if the challenge names another server: it was relayed from the
   *     server the proof would be good for, and is not answered
   */
  public Message.Auth answer(
      Role role, String helloId, String expectedServer, Message.Challenge challenge) {
    Objects.requireNonNull(expectedServer, "expectedServer must not be null");
    Objects.requireNonNull(challenge, "challenge must not be null");
    String server = challenge.server();
    boolean expected =
        expectedServer.equals(ANY_DUPLICATE)
            ? server.startsWith(DUPLICATE_PREFIX) && !server.equals(ANY_DUPLICATE)
            : server.equals(expectedServer);
    if (!expected) {
      throw new IllegalArgumentException(
          "the CHALLENGE names the server '"
              + server
              + "', not '"
              + expectedServer
              + "' this peer connected to: a challenge relayed from another server; not answered");
    }
    return answer(role, helloId, challenge);
  }

  /**
   * The AUTH answering {@code challenge} for a peer that said {@code HELLO(role, helloId)}, for the
   * server the challenge names, whichever it is: a peer should check it first ({@link #answer(Role,
   * String, String, Message.Challenge)}).
   */
  public Message.Auth answer(Role role, String helloId, Message.Challenge challenge) {
    Objects.requireNonNull(role, "role must not be null");
    Objects.requireNonNull(helloId, "helloId must not be null");
    Objects.requireNonNull(challenge, "challenge must not be null");
    if (secret == null) {
      return new Message.Auth("", new byte[0]);
    }
    return new Message.Auth(
        principal, proof(secret, role, helloId, principal, challenge.server(), challenge.nonce()));
  }

  /**
   * The proof of a shared-secret AUTH: {@code HMAC-SHA256(secret, "zoolander-auth-v2" 0 role id 0
   * principal 0 server 0 nonce)}, where {@code role} is one byte (its wire code) and strings are
   * UTF-8. Binding role, HELLO id and principal stops a proof from being replayed for another
   * identity; the server's name, from being relayed to another server (a plugin's challenge passed
   * on by the repeater, or the other way round); the nonce, from being replayed on another
   * connection.
   */
  static byte[] proof(
      byte[] secret, Role role, String helloId, String principal, String server, byte[] nonce) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret, "HmacSHA256"));
      mac.update(LABEL);
      mac.update((byte) 0);
      mac.update((byte) role.code());
      mac.update(helloId.getBytes(StandardCharsets.UTF_8));
      mac.update((byte) 0);
      mac.update(principal.getBytes(StandardCharsets.UTF_8));
      mac.update((byte) 0);
      mac.update(server.getBytes(StandardCharsets.UTF_8));
      mac.update((byte) 0);
      mac.update(nonce);
      return mac.doFinal();
    } catch (NoSuchAlgorithmException | InvalidKeyException e) {
      throw new IllegalStateException("HmacSHA256 is not available", e); // every JDK has it
    }
  }

  static void checkPrincipal(String principal, String name) {
    Objects.requireNonNull(principal, name + " must not be null");
    if (principal.isBlank() || !principal.equals(principal.strip())) {
      throw new IllegalArgumentException(
          name + " must be non-blank without surrounding spaces, was '" + principal + "'");
    }
    if (principal.getBytes(StandardCharsets.UTF_8).length > WireSettings.MAX_PRINCIPAL_BYTES) {
      throw new IllegalArgumentException(
          name + " must be at most " + WireSettings.MAX_PRINCIPAL_BYTES + " UTF-8 bytes");
    }
    for (int i = 0; i < principal.length(); i++) {
      char c = principal.charAt(i);
      if (Character.isISOControl(c) || c == '=' || c == ',') {
        throw new IllegalArgumentException(
            name + " must not contain control characters, '=' or ',': '" + principal + "'");
      }
    }
  }

  static void checkSecret(int length, String name) {
    if (length < MIN_SECRET_BYTES || length > MAX_SECRET_BYTES) {
      throw new IllegalArgumentException(
          name
              + " must be "
              + MIN_SECRET_BYTES
              + " to "
              + MAX_SECRET_BYTES
              + " bytes, was "
              + length);
    }
  }

  static byte[] readSecret(Path file, String name) {
    Objects.requireNonNull(file, name + " must not be null");
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      throw new IllegalArgumentException(name + ": " + file + " does not exist");
    } catch (IOException e) {
      throw new IllegalArgumentException(name + ": cannot read " + file + ": " + e.getMessage());
    }
    int end = bytes.length;
    while (end > 0 && (bytes[end - 1] == '\n' || bytes[end - 1] == '\r')) {
      end--;
    }
    byte[] secret = Arrays.copyOf(bytes, end);
    Arrays.fill(bytes, (byte) 0);
    try {
      checkSecret(secret.length, name + " " + file);
    } catch (IllegalArgumentException e) {
      Arrays.fill(secret, (byte) 0);
      throw e;
    }
    return secret;
  }

  @Override
  public String toString() {
    return secret == null
        ? "Credential[certificate]"
        : "Credential[principal=" + principal + ", secret=***]";
  }
}
