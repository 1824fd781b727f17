package io.zoolander.server.jmx;

import java.beans.ConstructorProperties;

/**
 * One duplicate as the repeater sees it; a row of {@link RepeaterMXBean#getDuplicates()} (a {@code
 * CompositeData} to a JMX client).
 */
public final class DuplicateInfo {
  private final int id;
  private final String state;
  private final long appliedSeq;
  private final long lag;
  private final String endpoint;
  private final String connectString;
  private final String fenceReason;

  /**
   * @param id the duplicate id
   * @param state {@code FENCED}, or the repeater's link state to its plugin ({@code STREAMING},
   *     ...)
   * @param appliedSeq the highest seq the duplicate acknowledged
   * @param lag writes sequenced that it has not acknowledged
   * @param endpoint its active plugin's {@code host:port}, empty while none is published
   * @param connectString its ensemble's ZooKeeper connect string
   * @param fenceReason why it is fenced, empty when it is not
   */
  @ConstructorProperties({
    "id",
    "state",
    "appliedSeq",
    "lag",
    "endpoint",
    "connectString",
    "fenceReason"
  })
  public DuplicateInfo(
      int id,
      String state,
      long appliedSeq,
      long lag,
      String endpoint,
      String connectString,
      String fenceReason) {
    this.id = id;
    this.state = state;
    this.appliedSeq = appliedSeq;
    this.lag = lag;
    this.endpoint = endpoint;
    this.connectString = connectString;
    this.fenceReason = fenceReason;
  }

  public int getId() {
    return id;
  }

  public String getState() {
    return state;
  }

  public long getAppliedSeq() {
    return appliedSeq;
  }

  public long getLag() {
    return lag;
  }

  public String getEndpoint() {
    return endpoint;
  }

  public String getConnectString() {
    return connectString;
  }

  public String getFenceReason() {
    return fenceReason;
  }

  @Override
  public String toString() {
    return "duplicate "
        + id
        + " "
        + state
        + " applied "
        + appliedSeq
        + " lag "
        + lag
        + " at "
        + endpoint;
  }
}
