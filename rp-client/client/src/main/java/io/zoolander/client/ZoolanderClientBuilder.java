package io.zoolander.client;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.zoolander.client.internal.ClientSettings;
import io.zoolander.client.internal.DefaultZoolanderClient;
import io.zoolander.client.internal.DuplicateTarget;
import io.zoolander.wire.ClientIds;
import io.zoolander.wire.Credential;
import io.zoolander.wire.Ticker;
import io.zoolander.wire.TlsSettings;
import io.zoolander.wire.Znodes;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import org.jspecify.annotations.Nullable;

/**
 * Builds a {@link ZoolanderClient}. Every setter validates its argument (NPE/IAE naming the
 * setting); {@link #build()} checks that the required settings are present (ISE) and connects.
 */
public final class ZoolanderClientBuilder {
  /** Default time an operation may take before it fails with {@code OPERATIONTIMEOUT}: 10 s. */
  public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(10);

  /** Default time {@link #build()} waits for the repeater and the duplicates' plugins: 15 s. */
  public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(15);

  /**
   * Default ZooKeeper session timeout of the discovery sessions; also how long a peer stays
   * SUSPENDED before LOST: 10 s.
   */
  public static final Duration DEFAULT_SESSION_TIMEOUT = Duration.ofSeconds(10);

  /**
   * Default time after which an unanswered write is sent again (same request id: applied at most
   * once): 2 s.
   */
  public static final Duration DEFAULT_WRITE_RETRY_DELAY = Duration.ofSeconds(2);

  /** Default time a read waits for one duplicate before asking the next: 2 s. */
  public static final Duration DEFAULT_READ_ATTEMPT_TIMEOUT = Duration.ofSeconds(2);

  /** Default tau of the observed-SLA meter: 5 ms. */
  public static final Duration DEFAULT_SLA_TAU = Duration.ofMillis(5);

  private final List<InetSocketAddress> repeaters = new ArrayList<>();
  private final List<DuplicateTarget> duplicates = new ArrayList<>();
  private Znodes znodes = Znodes.defaults();
  private long requestTimeoutMs = DEFAULT_REQUEST_TIMEOUT.toMillis();
  private long connectTimeoutMs = DEFAULT_CONNECT_TIMEOUT.toMillis();
  private int sessionTimeoutMs = Math.toIntExact(DEFAULT_SESSION_TIMEOUT.toMillis());
  private long clientId = ThreadLocalRandom.current().nextLong(Long.MAX_VALUE);
  private boolean clientIdGiven;
  private long writeRetryMs = DEFAULT_WRITE_RETRY_DELAY.toMillis();
  private long readAttemptTimeoutMs = DEFAULT_READ_ATTEMPT_TIMEOUT.toMillis();
  private ReadPolicy readPolicy = ReadPolicy.fixed(1);
  private Ticker ticker = Ticker.system();
  private @Nullable MeterRegistry meterRegistry;
  private double slaTauMs = DEFAULT_SLA_TAU.toNanos() / 1e6;
  private @Nullable TlsSettings tls;
  private RetryBudget retryBudget = RetryBudget.defaults();
  private @Nullable Credential credential;

  ZoolanderClientBuilder() {}

  /**
   * The repeater's address. Call it again to add standby repeaters: the client connects to the
   * first and moves to the next whenever a connection fails or drops. Required unless a duplicate
   * is given by its connect string: the client also reads the active repeater's record there
   * (published by repeaters running with automatic failover) and follows the newest one, ahead of
   * these addresses.
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

  /**
   * Bound of every operation (a write with its retries, a read, a barrier); {@link
   * #DEFAULT_REQUEST_TIMEOUT} by default.
   *
   * @param requestTimeout at least 1 ms (counted in whole milliseconds)
   */
  public ZoolanderClientBuilder requestTimeout(Duration requestTimeout) {
    this.requestTimeoutMs = millis(requestTimeout, "requestTimeout", Long.MAX_VALUE);
    return this;
  }

  /**
   * How long {@link #build()} waits for the repeater and the duplicates' plugins; {@link
   * #DEFAULT_CONNECT_TIMEOUT} by default.
   *
   * @param connectTimeout at least 1 ms (counted in whole milliseconds)
   */
  public ZoolanderClientBuilder connectTimeout(Duration connectTimeout) {
    this.connectTimeoutMs = millis(connectTimeout, "connectTimeout", Long.MAX_VALUE);
    return this;
  }

  /**
   * ZooKeeper session timeout of the discovery sessions, and how long a peer stays SUSPENDED before
   * LOST; {@link #DEFAULT_SESSION_TIMEOUT} by default.
   *
   * @param sessionTimeout at least 1 ms and below 2^31 ms (counted in whole milliseconds)
   */
  public ZoolanderClientBuilder sessionTimeout(Duration sessionTimeout) {
    this.sessionTimeoutMs = (int) millis(sessionTimeout, "sessionTimeout", Integer.MAX_VALUE);
    return this;
  }

  /**
   * This client's id ({@code >= 0}); random by default. Two live clients must not share one. With a
   * {@link #credential}, servers that authenticate clients accept only an id of the credential's
   * principal ({@link ClientIds}): the default is then drawn for that principal, and an id given
   * here must belong to it.
   */
  public ZoolanderClientBuilder clientId(long clientId) {
    if (clientId < 0) {
      throw new IllegalArgumentException("clientId must be >= 0, was " + clientId);
    }
    this.clientId = clientId;
    this.clientIdGiven = true;
    return this;
  }

  /**
   * Time after which an unanswered write is sent again with the same request id (applied at most
   * once); {@link #DEFAULT_WRITE_RETRY_DELAY} by default.
   *
   * @param writeRetryDelay at least 1 ms (counted in whole milliseconds)
   */
  public ZoolanderClientBuilder writeRetryDelay(Duration writeRetryDelay) {
    this.writeRetryMs = millis(writeRetryDelay, "writeRetryDelay", Long.MAX_VALUE);
    return this;
  }

  /**
   * Time a read waits for one duplicate before asking the next; {@link
   * #DEFAULT_READ_ATTEMPT_TIMEOUT} by default.
   *
   * @param readAttemptTimeout at least 1 ms (counted in whole milliseconds)
   */
  public ZoolanderClientBuilder readAttemptTimeout(Duration readAttemptTimeout) {
    this.readAttemptTimeoutMs = millis(readAttemptTimeout, "readAttemptTimeout", Long.MAX_VALUE);
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
   * The bound tau of the observed-SLA meter ({@code zoolander.client.sla.observed}); {@link
   * #DEFAULT_SLA_TAU} (5 ms) by default. Kept to the nanosecond: a tau may be a fraction of a
   * millisecond, as the repeater's {@code slaTau} may.
   *
   * @throws NullPointerException if {@code slaTau} is null
   * @throws IllegalArgumentException unless {@code slaTau} is positive
   */
  public ZoolanderClientBuilder slaTau(Duration slaTau) {
    Objects.requireNonNull(slaTau, "slaTau must not be null");
    if (slaTau.isNegative() || slaTau.isZero()) {
      throw new IllegalArgumentException("slaTau must be positive, was " + slaTau);
    }
    this.slaTauMs = slaTau.toNanos() / 1e6;
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
    if (repeaters.isEmpty() && duplicates.stream().allMatch(d -> d.connectString() == null)) {
      throw new IllegalStateException(
          "repeater must be set, or a duplicate given by its connect string (where the active"
              + " repeater is discovered)");
    }
    if (duplicates.isEmpty()) {
      throw new IllegalStateException(
          "duplicates must not be empty: add each duplicate's connect string");
    }
    if (credential != null && credential.isCertificate() && (tls == null || !tls.hasKey())) {
      throw new IllegalStateException(
          "credential: a certificate credential needs tls with a key and certificate");
    }
    long id = clientId;
    String principal = principal();
    if (principal != null && !clientIdGiven) {
      id = ClientIds.random(principal);
    } else if (principal != null && !ClientIds.belongsTo(id, principal)) {
      throw new IllegalStateException(
          "clientId: "
              + id
              + " is not a client id of principal '"
              + principal
              + "'; leave it unset, or draw one with ClientIds.random(principal)");
    }
    return DefaultZoolanderClient.connect(
        new ClientSettings(
            id,
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

  /** The principal this client authenticates as, if it has a credential and it is known. */
  private @Nullable String principal() {
    if (credential == null) {
      return null;
    }
    if (!credential.isCertificate()) {
      return credential.principal();
    }
    return tls == null ? null : tls.keyPrincipal().orElse(null);
  }

  /**
   * How much shed writes and timed-out reads are retried (default {@link RetryBudget#defaults()}):
   * see {@link RetryBudget}.
   */
  public ZoolanderClientBuilder retryBudget(RetryBudget retryBudget) {
    this.retryBudget = Objects.requireNonNull(retryBudget, "retryBudget must not be null");
    return this;
  }

  /**
   * @return {@code value} in whole milliseconds
   * @throws NullPointerException naming the setting if {@code value} is null
   * @throws IllegalArgumentException naming the setting unless {@code value} is at least 1 ms and
   *     at most {@code maxMillis} ms
   */
  private static long millis(Duration value, String name, long maxMillis) {
    Objects.requireNonNull(value, name + " must not be null");
    if (value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(name + " must be positive, was " + value);
    }
    if (value.compareTo(Duration.ofMillis(1)) < 0
        || value.compareTo(Duration.ofMillis(maxMillis)) > 0) {
      throw new IllegalArgumentException(
          name + " must be at least 1 ms and at most " + maxMillis + " ms, was " + value);
    }
    return value.toMillis();
  }
}
