package io.zoolander.client;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.zoolander.client.internal.ClientSettings;
import io.zoolander.client.internal.DefaultZoolanderClient;
import io.zoolander.client.internal.DuplicateTarget;
import io.zoolander.wire.Credential;
import io.zoolander.wire.Ticker;
import io.zoolander.wire.TlsSettings;
import io.zoolander.wire.Znodes;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Builds a {@link ZoolanderClient}. Every setter validates its argument (NPE/IAE naming the
 * setting); {@link #build()} checks that the required settings are present (ISE) and connects.
 */
public final class ZoolanderClientBuilder {
  /** Default time a write may take before it fails with {@code OPERATIONTIMEOUT}. */
  public static final long DEFAULT_REQUEST_TIMEOUT_MS = 10_000;

  /** Default time {@link #build()} waits for the repeater and the duplicates' plugins. */
  public static final long DEFAULT_CONNECT_TIMEOUT_MS = 15_000;

  /**
   * Default ZooKeeper session timeout of the discovery sessions; also how long a peer stays
   * SUSPENDED before LOST.
   */
  public static final int DEFAULT_SESSION_TIMEOUT_MS = 10_000;

  /**
   * Default time after which an unanswered write is sent again (same request id: applied at most
   * once).
   */
  public static final long DEFAULT_WRITE_RETRY_MS = 2_000;

  /** Default time a read waits for one duplicate before asking the next. */
  public static final long DEFAULT_READ_ATTEMPT_TIMEOUT_MS = 2_000;

  /** Default tau of the observed-SLA meter. */
  public static final double DEFAULT_SLA_TAU_MS = 5;

  private final List<InetSocketAddress> repeaters = new ArrayList<>();
  private final List<DuplicateTarget> duplicates = new ArrayList<>();
  private Znodes znodes = Znodes.defaults();
  private long requestTimeoutMs = DEFAULT_REQUEST_TIMEOUT_MS;
  private long connectTimeoutMs = DEFAULT_CONNECT_TIMEOUT_MS;
  private int sessionTimeoutMs = DEFAULT_SESSION_TIMEOUT_MS;
  private long clientId = ThreadLocalRandom.current().nextLong(Long.MAX_VALUE);
  private long writeRetryMs = DEFAULT_WRITE_RETRY_MS;
  private long readAttemptTimeoutMs = DEFAULT_READ_ATTEMPT_TIMEOUT_MS;
  private ReadPolicy readPolicy = ReadPolicy.fixed(1);
  private Ticker ticker = Ticker.system();
  private MeterRegistry meterRegistry;
  private double slaTauMs = DEFAULT_SLA_TAU_MS;
  private TlsSettings tls;
  private RetryBudget retryBudget = RetryBudget.defaults();
  private Credential credential;

  ZoolanderClientBuilder() {}

  /**
   * The repeater's address (required). Call it again to add standby repeaters: the client connects
   * to the first and moves to the next whenever a connection fails or drops.
   */
  public ZoolanderClientBuilder repeater(String host, int port) {
    Objects.requireNonNull(host, "repeater host must not be null");
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException("repeater port must be in 1..65535, was " + port);
    }
    repeaters.add(InetSocketAddress.createUnresolved(host, port));
    return this;
  }

  /**
   * Adds a duplicate by its ensemble's ZooKeeper connect string; its active plugin is discovered
   * there.
   */
  public ZoolanderClientBuilder duplicate(String connectString) {
    Objects.requireNonNull(connectString, "duplicate connectString must not be null");
    if (connectString.isBlank()) {
      throw new IllegalArgumentException("duplicate connectString must not be blank");
    }
    duplicates.add(DuplicateTarget.discovered(connectString));
    return this;
  }

  /**
   * Adds a duplicate by a fixed plugin endpoint, without discovery (the plugin must stay there: a
   * leader change is not followed). Useful behind a load balancer or in tests.
   */
  public ZoolanderClientBuilder duplicateAt(String host, int port) {
    Objects.requireNonNull(host, "duplicate host must not be null");
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException("duplicate port must be in 1..65535, was " + port);
    }
    duplicates.add(DuplicateTarget.fixed(InetSocketAddress.createUnresolved(host, port)));
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
   * Time after which an unanswered write is sent again with the same request id (applied at most
   * once).
   */
  public ZoolanderClientBuilder writeRetryMs(long writeRetryMs) {
    this.writeRetryMs = positive(writeRetryMs, "writeRetryMs");
    return this;
  }

  /** Time a read waits for one duplicate before asking the next. */
  public ZoolanderClientBuilder readAttemptTimeoutMs(long readAttemptTimeoutMs) {
    this.readAttemptTimeoutMs = positive(readAttemptTimeoutMs, "readAttemptTimeoutMs");
    return this;
  }

  /** How many duplicates a read goes to; {@link ReadPolicy#fixed(int) fixed(1)} by default. */
  public ZoolanderClientBuilder readPolicy(ReadPolicy readPolicy) {
    this.readPolicy = Objects.requireNonNull(readPolicy, "readPolicy must not be null");
    return this;
  }

  /**
   * The time source for latencies, timeouts' bookkeeping and the adaptive policy; the system's by
   * default.
   */
  public ZoolanderClientBuilder ticker(Ticker ticker) {
    this.ticker = Objects.requireNonNull(ticker, "ticker must not be null");
    return this;
  }

  /** Where the client's meters go (names in {@code docs/client.md}); none by default. */
  public ZoolanderClientBuilder meterRegistry(MeterRegistry meterRegistry) {
    this.meterRegistry = Objects.requireNonNull(meterRegistry, "meterRegistry must not be null");
    return this;
  }

  /**
   * The bound of the observed-SLA meter ({@code zoolander.client.sla.observed}); 5 ms by default.
   */
  public ZoolanderClientBuilder slaTauMs(double slaTauMs) {
    if (!(slaTauMs > 0) || Double.isInfinite(slaTauMs)) {
      throw new IllegalArgumentException("slaTauMs must be a finite number > 0, was " + slaTauMs);
    }
    this.slaTauMs = slaTauMs;
    return this;
  }

  /**
   * TLS on every connection (to the repeater and to every plugin); plaintext by default. With
   * {@link TlsSettings#verifyHostname()} the servers' certificates must name the hosts the client
   * connects to.
   */
  public ZoolanderClientBuilder tls(TlsSettings tls) {
    this.tls = Objects.requireNonNull(tls, "tls must not be null");
    return this;
  }

  /**
   * How this client proves who it is to a repeater (and plugins) that require authentication; none
   * by default. With a credential the client waits for the repeater's CHALLENGE before it sends
   * writes, so give one only when the repeater requires authentication. {@link
   * Credential#certificate()} needs {@link #tls} with a key (mutual TLS).
   */
  public ZoolanderClientBuilder credential(Credential credential) {
    this.credential = Objects.requireNonNull(credential, "credential must not be null");
    return this;
  }

  /**
   * Connects: waits up to the connect timeout for the repeater and every duplicate's plugin, and
   * returns once the repeater and at least one plugin are connected.
   *
   * @throws IllegalStateException if the repeater or the duplicates are not set
   * @throws ZoolanderException with {@code CONNECTIONLOSS} if the repeater or no plugin could be
   *     reached in time
   */
  public ZoolanderClient build() {
    if (repeaters.isEmpty()) {
      throw new IllegalStateException("repeater must be set");
    }
    if (duplicates.isEmpty()) {
      throw new IllegalStateException(
          "duplicates must not be empty: add each duplicate's connect string");
    }
    if (credential != null && credential.isCertificate() && (tls == null || !tls.hasKey())) {
      throw new IllegalStateException(
          "credential: a certificate credential needs tls with a key and certificate");
    }
    return DefaultZoolanderClient.connect(
        new ClientSettings(
            clientId,
            List.copyOf(repeaters),
            List.copyOf(duplicates),
            znodes,
            requestTimeoutMs,
            connectTimeoutMs,
            sessionTimeoutMs,
            writeRetryMs,
            readAttemptTimeoutMs,
            readPolicy,
            ticker,
            meterRegistry != null ? meterRegistry : new CompositeMeterRegistry(),
            slaTauMs,
            tls,
            credential,
            retryBudget));
  }

  /**
   * How much shed writes and timed-out reads are retried (default {@link RetryBudget#defaults()}):
   * see {@link RetryBudget}.
   */
  public ZoolanderClientBuilder retryBudget(RetryBudget retryBudget) {
    this.retryBudget = Objects.requireNonNull(retryBudget, "retryBudget must not be null");
    return this;
  }

  private static long positive(long value, String name) {
    if (value <= 0) {
      throw new IllegalArgumentException(name + " must be > 0, was " + value);
    }
    return value;
  }
}
