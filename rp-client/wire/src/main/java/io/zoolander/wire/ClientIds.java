package io.zoolander.wire;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Objects;

/**
 * Client ids bound to principals. When a server authenticates clients, a client id belongs to one
 * principal: its top {@value #TAG_BITS} value bits (bits 62 to 43; ids are non-negative) are the
 * principal's <em>tag</em>, the first bits of {@code SHA-256("zoolander-client-id-v1" 0
 * principal)}, and the other {@value #RANDOM_BITS} bits are the client's own. A server that
 * authenticated a HELLO(CLIENT, id) as principal P refuses it with {@code UNAUTHORIZED} unless
 * {@link #belongsTo(long, String) id belongs to P}; every WRITE on the connection must carry that
 * id. So a principal can neither receive another principal's replies nor write in its name (the ids
 * listed under {@code <base>/clients} are of no use to it), and no state is needed to tell: every
 * repeater and plugin decides alike, across restarts and takeovers.
 *
 * <p>Two principals allowed as clients must not share a tag: {@link AccessControl.Builder#build}
 * refuses such an allow-list. A client of one principal draws {@value #RANDOM_BITS} random bits:
 * the chance that two of a principal's client instances ever draw the same id is below 1e-5 for
 * 10,000 instances. The SDK draws such an id by itself when it has a credential.
 */
public final class ClientIds {
  /** Bits of the principal's tag. */
  public static final int TAG_BITS = 20;

  /** Bits a client draws at random. */
  public static final int RANDOM_BITS = 63 - TAG_BITS;

  private static final byte[] LABEL =
      "zoolander-client-id-v1\0".getBytes(StandardCharsets.US_ASCII);
  private static final SecureRandom RANDOM = new SecureRandom();

  private ClientIds() {}

  /**
   * @return the tag of {@code principal}: {@value #TAG_BITS} bits
   */
  public static long tag(String principal) {
    Objects.requireNonNull(principal, "principal must not be null");
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      sha.update(LABEL);
      byte[] digest = sha.digest(principal.getBytes(StandardCharsets.UTF_8));
      long bits =
          ((digest[0] & 0xffL) << 24)
              | ((digest[1] & 0xffL) << 16)
              | ((digest[2] & 0xffL) << 8)
              | (digest[3] & 0xffL);
      return bits >>> (32 - TAG_BITS);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is not available", e);
    }
  }

  /**
   * @return a new client id of {@code principal}, its other bits drawn at random
   */
  public static long random(String principal) {
    return of(principal, RANDOM.nextLong());
  }

  /**
   * @return the client id of {@code principal} whose own bits are the low {@value #RANDOM_BITS}
   *     bits of {@code bits}
   */
  public static long of(String principal, long bits) {
    return (tag(principal) << RANDOM_BITS) | (bits & ((1L << RANDOM_BITS) - 1));
  }

  /**
   * @return whether {@code clientId} belongs to {@code principal}
   */
  public static boolean belongsTo(long clientId, String principal) {
    return clientId >= 0 && (clientId >>> RANDOM_BITS) == tag(principal);
  }
}
