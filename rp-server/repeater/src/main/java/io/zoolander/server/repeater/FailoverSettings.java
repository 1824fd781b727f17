package io.zoolander.server.repeater;

import java.util.Objects;

/**
 * How a repeater takes part in automatic failover ({@link Failover}): where it is advertised, and
 * the heartbeat by which standbys notice the active repeater's death. Built by {@link #builder()},
 * which validates every value and names the field in its message.
 *
 * @param advertisedHost the host clients and standbys reach this repeater at, published when it
 *     becomes active; null for the client listener's host (which must then not be a wildcard)
 * @param heartbeatPort the port the heartbeat listens on (bound on the client listener's host); 0
 *     for a free one (it is published)
 * @param heartbeatIntervalMillis how often the active repeater sends each standby a heartbeat
 * @param heartbeatTimeoutMillis how long a standby waits for a heartbeat before it takes the active
 *     repeater for dead (a killed process's connection closes at once; this bounds a dead host or a
 *     cut network); also how long each standby further down the candidate order waits for the ones
 *     ahead of it
 */
public record FailoverSettings(
    String advertisedHost,
    int heartbeatPort,
    long heartbeatIntervalMillis,
    long heartbeatTimeoutMillis) {

  /** Default heartbeat period (ms). */
  public static final long DEFAULT_HEARTBEAT_INTERVAL_MILLIS = 100;

  /**
   * Default heartbeat timeout (ms): with a killed process detected at once on its host, it bounds
   * the takeover after a host's death to about this plus the claim, within the 2 s target.
   */
  public static final long DEFAULT_HEARTBEAT_TIMEOUT_MILLIS = 1_000;

  /** Smallest heartbeat interval (ms). */
  public static final long MIN_HEARTBEAT_INTERVAL_MILLIS = 10;

  /** Largest heartbeat interval or timeout (ms). */
  public static final long MAX_HEARTBEAT_MILLIS = 60_000;

  /** Validated; see {@link Builder}. */
  public FailoverSettings {
    if (advertisedHost != null && (advertisedHost.isBlank() || advertisedHost.contains(" "))) {
      throw new IllegalArgumentException(
          "advertisedHost must be a host name or address, was '" + advertisedHost + "'");
    }
    if (heartbeatPort < 0 || heartbeatPort > 65_535) {
      throw new IllegalArgumentException("heartbeatPort must be 0 to 65535, was " + heartbeatPort);
    }
    if (heartbeatIntervalMillis < MIN_HEARTBEAT_INTERVAL_MILLIS
        || heartbeatIntervalMillis > MAX_HEARTBEAT_MILLIS) {
      throw new IllegalArgumentException(
          "heartbeatIntervalMillis must be "
              + MIN_HEARTBEAT_INTERVAL_MILLIS
              + " to "
              + MAX_HEARTBEAT_MILLIS
              + ", was "
              + heartbeatIntervalMillis);
    }
    if (heartbeatTimeoutMillis < 2 * heartbeatIntervalMillis
        || heartbeatTimeoutMillis > MAX_HEARTBEAT_MILLIS) {
      throw new IllegalArgumentException(
          "heartbeatTimeoutMillis must be at least twice heartbeatIntervalMillis ("
              + 2 * heartbeatIntervalMillis
              + ") and at most "
              + MAX_HEARTBEAT_MILLIS
              + ", was "
              + heartbeatTimeoutMillis);
    }
  }

  /** The defaults: advertised at the client listener's host, a free heartbeat port. */
  public static FailoverSettings defaults() {
    return builder().build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Builds {@link FailoverSettings}; every value is validated by {@link #build()}. */
  public static final class Builder {
    private String advertisedHost;
    private int heartbeatPort;
    private long heartbeatIntervalMillis = DEFAULT_HEARTBEAT_INTERVAL_MILLIS;
    private long heartbeatTimeoutMillis = DEFAULT_HEARTBEAT_TIMEOUT_MILLIS;

    private Builder() {}

    /** The host clients and standbys reach this repeater at (default: the client listener's). */
    public Builder advertisedHost(String host) {
      this.advertisedHost = Objects.requireNonNull(host, "advertisedHost must not be null");
      return this;
    }

    /** The heartbeat's port, 0 (the default) for a free one. */
    public Builder heartbeatPort(int port) {
      this.heartbeatPort = port;
      return this;
    }

    /** How often the active repeater sends a heartbeat (default 100 ms). */
    public Builder heartbeatIntervalMillis(long millis) {
      this.heartbeatIntervalMillis = millis;
      return this;
    }

    /** How long without a heartbeat makes a standby take over (default 1000 ms). */
    public Builder heartbeatTimeoutMillis(long millis) {
      this.heartbeatTimeoutMillis = millis;
      return this;
    }

    /**
     * @throws IllegalArgumentException naming the invalid field
     */
    public FailoverSettings build() {
      return new FailoverSettings(
          advertisedHost, heartbeatPort, heartbeatIntervalMillis, heartbeatTimeoutMillis);
    }
  }
}
