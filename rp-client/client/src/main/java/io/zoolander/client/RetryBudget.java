package io.zoolander.client;

/**
 * How much a client retries when the system is overloaded, so that retries cannot multiply the load
 * that caused them. Immutable; build with {@link #builder()}, give it to {@link
 * ZoolanderClientBuilder#retryBudget(RetryBudget)}.
 *
 * <ul>
 *   <li><b>Shed writes.</b> A write the repeater refuses with {@code OVERLOADED} (admission
 *       control, or a full log) was not sequenced; the client sends it again after the refusal's
 *       retry-after hint, doubled at each further refusal of the same write (at most {@link
 *       #MAX_SHED_BACKOFF_MS}), times a random factor in [1, 2) (jitter, so shed clients do not
 *       come back together), at most {@link #maxShedWriteRetries()} times. Then the write fails
 *       with a {@link ZoolanderException} whose {@code code()} is {@code THROTTLEDOP} and whose
 *       {@code errorCode()} is {@code OVERLOADED}: it was applied nowhere, and may be retried later
 *       by the application. The request timeout bounds the whole too.
 *   <li><b>Read retries</b> (a read sent again after an attempt timed out or was refused) draw on a
 *       token bucket, as in gRPC's and Finagle's retry budgets: every read deposits {@link
 *       #readRetryRatio()} of a token, a retry takes one, and the bucket also earns {@link
 *       #minReadRetriesPerSec()} tokens a second so a lightly used client can still retry; it holds
 *       at most {@link #maxReadRetryTokens()}. Without a token the read is not sent again; it waits
 *       for replies still outstanding (and asks again when a token is earned) until its request
 *       timeout.
 * </ul>
 */
public final class RetryBudget {
  /** Longest wait before resending a shed write, before jitter, in milliseconds. */
  public static final long MAX_SHED_BACKOFF_MS = 5_000;

  /** Default most resends of one write refused with OVERLOADED. */
  public static final int DEFAULT_MAX_SHED_WRITE_RETRIES = 8;

  /** Default tokens a read deposits: retries may add at most this fraction to the reads sent. */
  public static final double DEFAULT_READ_RETRY_RATIO = 0.2;

  /** Default tokens earned per second whatever the traffic. */
  public static final double DEFAULT_MIN_READ_RETRIES_PER_SEC = 10;

  /** Default most tokens held. */
  public static final double DEFAULT_MAX_READ_RETRY_TOKENS = 100;

  private final int maxShedWriteRetries;
  private final double readRetryRatio;
  private final double minReadRetriesPerSec;
  private final double maxReadRetryTokens;

  private RetryBudget(Builder b) {
    this.maxShedWriteRetries = b.maxShedWriteRetries;
    this.readRetryRatio = b.readRetryRatio;
    this.minReadRetriesPerSec = b.minReadRetriesPerSec;
    this.maxReadRetryTokens = b.maxReadRetryTokens;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The defaults. */
  public static RetryBudget defaults() {
    return builder().build();
  }

  public int maxShedWriteRetries() {
    return maxShedWriteRetries;
  }

  public double readRetryRatio() {
    return readRetryRatio;
  }

  public double minReadRetriesPerSec() {
    return minReadRetriesPerSec;
  }

  public double maxReadRetryTokens() {
    return maxReadRetryTokens;
  }

  @Override
  public String toString() {
    return "RetryBudget[maxShedWriteRetries="
        + maxShedWriteRetries
        + ", readRetryRatio="
        + readRetryRatio
        + ", minReadRetriesPerSec="
        + minReadRetriesPerSec
        + ", maxReadRetryTokens="
        + maxReadRetryTokens
        + "]";
  }

  /** Builds a {@link RetryBudget}; every setter validates its argument, naming it. */
  public static final class Builder {
    private int maxShedWriteRetries = DEFAULT_MAX_SHED_WRITE_RETRIES;
    private double readRetryRatio = DEFAULT_READ_RETRY_RATIO;
    private double minReadRetriesPerSec = DEFAULT_MIN_READ_RETRIES_PER_SEC;
    private double maxReadRetryTokens = DEFAULT_MAX_READ_RETRY_TOKENS;

    private Builder() {}

    /** Most resends of one shed write, 0 to 1,000 (0: fail at the first refusal). */
    public Builder maxShedWriteRetries(int retries) {
      if (retries < 0 || retries > 1_000) {
        throw new IllegalArgumentException(
            "maxShedWriteRetries must be in [0, 1000], was " + retries);
      }
      this.maxShedWriteRetries = retries;
      return this;
    }

    /** Tokens each read deposits, in [0, 10]. */
    public Builder readRetryRatio(double ratio) {
      if (!(ratio >= 0 && ratio <= 10)) {
        throw new IllegalArgumentException("readRetryRatio must be in [0, 10], was " + ratio);
      }
      this.readRetryRatio = ratio;
      return this;
    }

    /** Tokens earned per second whatever the traffic, in [0, 1,000,000]. */
    public Builder minReadRetriesPerSec(double perSec) {
      if (!(perSec >= 0 && perSec <= 1_000_000)) {
        throw new IllegalArgumentException(
            "minReadRetriesPerSec must be in [0, 1000000], was " + perSec);
      }
      this.minReadRetriesPerSec = perSec;
      return this;
    }

    /** Most tokens held, in [1, 1,000,000]. */
    public Builder maxReadRetryTokens(double tokens) {
      if (!(tokens >= 1 && tokens <= 1_000_000)) {
        throw new IllegalArgumentException(
            "maxReadRetryTokens must be in [1, 1000000], was " + tokens);
      }
      this.maxReadRetryTokens = tokens;
      return this;
    }

    public RetryBudget build() {
      return new RetryBudget(this);
    }
  }
}
