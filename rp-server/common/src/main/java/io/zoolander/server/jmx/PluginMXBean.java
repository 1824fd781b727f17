package io.zoolander.server.jmx;

/**
 * The Zoolander plugin of one server while it leads its duplicate, as an MXBean: {@link
 * ZoolanderJmx#plugin(int, long)}, registered in the platform MBean server when the plugin starts
 * and unregistered when it stops.
 */
public interface PluginMXBean {
  /** The duplicate this plugin serves. */
  int getDuplicateId();

  /** The ZooKeeper server ({@code myid}) it runs on. */
  long getServerId();

  /**
   * {@code STARTING}, {@code CATCHING_UP}, {@code ACTIVE}, {@code FENCED} or {@code STOPPED}, as it
   * reports in STATUS.
   */
  String getState();

  /** The seq of the last write applied. */
  long getAppliedSeq();

  /** The highest repeater epoch this duplicate recorded. */
  long getEpoch();

  /**
   * The published endpoint, {@code host:port}; empty until the plugin listens and after it stopped.
   */
  String getEndpoint();

  /** Retried writes recognised and not applied again since start. */
  long getDuplicateRequests();
}
