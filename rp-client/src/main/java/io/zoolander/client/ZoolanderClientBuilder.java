package io.zoolander.client;

import io.zoolander.client.internal.DefaultZoolanderClient;
import io.zoolander.wire.Znodes;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Builds a {@link ZoolanderClient}. Every setter validates its argument (NPE/IAE naming the setting); {@link #build()}
 * checks that the required settings are present (ISE) and connects.
 */
public final class ZoolanderClientBuilder {
  /** Default time a write may take before it fails with {@code OPERATIONTIMEOUT}. */
  public static final long DEFAULT_REQUEST_TIMEOUT_MS = 10_000;
  /** Default time {@link #build()} waits for the repeater and the duplicates' plugins. */
  public static final long DEFAULT_CONNECT_TIMEOUT_MS = 15_000;
  /** Default ZooKeeper session timeout of the discovery sessions. */
  public static final int DEFAULT_SESSION_TIMEOUT_MS = 10_000;

  private InetSocketAddress repeater;
  private final List<String> duplicates = new ArrayList<>();
  private Znodes znodes = Znodes.defaults();
  private long requestTimeoutMs = DEFAULT_REQUEST_TIMEOUT_MS;
  private long connectTimeoutMs = DEFAULT_CONNECT_TIMEOUT_MS;
  private int sessionTimeoutMs = DEFAULT_SESSION_TIMEOUT_MS;
  private long clientId = ThreadLocalRandom.current().nextLong(Long.MAX_VALUE);

  ZoolanderClientBuilder() {}

  /** The repeater's address (required). */
  public ZoolanderClientBuilder repeater(String host, int port) {
    Objects.requireNonNull(host, "repeater host must not be null");
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException("repeater port must be in 1..65535, was " + port);
    }
    this.repeater = InetSocketAddress.createUnresolved(host, port);
    return this;
  }

  /** Adds a duplicate by its ensemble's ZooKeeper connect string; its active plugin is discovered there. */
  public ZoolanderClientBuilder duplicate(String connectString) {
    Objects.requireNonNull(connectString, "duplicate connectString must not be null");
    if (connectString.isBlank()) {
      throw new IllegalArgumentException("duplicate connectString must not be blank");
    }
    duplicates.add(connectString);
    return this;
  }

  /** Base path of Zoolander's znodes in every duplicate; {@code /zoolander} by default. */
  public ZoolanderClientBuilder basePath(String basePath) {
    this.znodes = new Znodes(basePath);
    return this;
  }

  public ZoolanderClientBuilder requestTimeoutMs(long requestTimeoutMs) {
    this.requestTimeoutMs = positive(requestTimeoutMs, "requestTimeoutMs");
    return this;
  }

  public ZoolanderClientBuilder connectTimeoutMs(long connectTimeoutMs) {
    this.connectTimeoutMs = positive(connectTimeoutMs, "connectTimeoutMs");
    return this;
  }

  public ZoolanderClientBuilder sessionTimeoutMs(int sessionTimeoutMs) {
    this.sessionTimeoutMs = (int) positive(sessionTimeoutMs, "sessionTimeoutMs");
    return this;
  }

  /** This client's id ({@code >= 0}); random by default. Two live clients must not share one. */
  public ZoolanderClientBuilder clientId(long clientId) {
    if (clientId < 0) {
      throw new IllegalArgumentException("clientId must be >= 0, was " + clientId);
    }
    this.clientId = clientId;
    return this;
  }

  /**
   * Connects: waits up to the connect timeout for the repeater and every duplicate's plugin, and returns once the
   * repeater and at least one plugin are connected.
   *
   * @throws IllegalStateException if the repeater or the duplicates are not set
   * @throws ZoolanderException with {@code CONNECTIONLOSS} if the repeater or no plugin could be reached in time
   */
  public ZoolanderClient build() {
    if (repeater == null) {
      throw new IllegalStateException("repeater must be set");
    }
    if (duplicates.isEmpty()) {
      throw new IllegalStateException("duplicates must not be empty: add each duplicate's connect string");
    }
    return DefaultZoolanderClient.connect(
        clientId, repeater, List.copyOf(duplicates), znodes, requestTimeoutMs, connectTimeoutMs, sessionTimeoutMs);
  }

  private static long positive(long value, String name) {
    if (value <= 0) {
      throw new IllegalArgumentException(name + " must be > 0, was " + value);
    }
    return value;
  }
}
