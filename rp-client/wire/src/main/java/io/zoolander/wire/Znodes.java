package io.zoolander.wire;

import java.util.Objects;

/**
 * Where Zoolander keeps its znodes in every duplicate, under a base path ({@code /zoolander} by
 * default): the data root holding the application's tree, the plugin's bookkeeping record, the
 * per-client records of applied requests, the active plugin's endpoint and the (test and demo)
 * anomaly injector's settings.
 *
 * @param basePath absolute ZooKeeper path, without a trailing slash
 */
public record Znodes(String basePath) {
  /** The default base path. */
  public static final String DEFAULT_BASE_PATH = "/zoolander";

  public Znodes {
    Objects.requireNonNull(basePath, "basePath must not be null");
    if (!basePath.startsWith("/")
        || basePath.length() < 2
        || basePath.endsWith("/")
        || basePath.contains("//")) {
      throw new IllegalArgumentException(
          "basePath must be an absolute path like /zoolander, was '" + basePath + "'");
    }
  }

  public static Znodes defaults() {
    return new Znodes(DEFAULT_BASE_PATH);
  }

  /** The data root: application path {@code /a/b} lives at {@code dataRoot() + "/a/b"}. */
  public String dataRoot() {
    return basePath + "/data";
  }

  /** The bookkeeping znode holding {@link BookkeepingState}. */
  public String state() {
    return basePath + "/state";
  }

  /** The ephemeral znode holding the active plugin's {@link PluginEndpoint}. */
  public String endpoint() {
    return basePath + "/endpoint";
  }

  /** The parent of the per-client records, {@link #client(long)}. */
  public String clients() {
    return basePath + "/clients";
  }

  /**
   * The record of the requests applied for client {@code clientId} ({@code ClientRecord}), updated
   * in the same ZooKeeper multi as each of that client's writes: {@code <base>/clients/<clientId in
   * decimal>}.
   *
   * @throws IllegalArgumentException if {@code clientId < 0}
   */
  public String client(long clientId) {
    if (clientId < 0) {
      throw new IllegalArgumentException("clientId must be >= 0, was " + clientId);
    }
    return clients() + "/" + clientId;
  }

  /**
   * The anomaly injector's settings (a test and demo tool): absent means off. Not replicated: each
   * duplicate's own ensemble has its own.
   */
  public String anomaly() {
    return basePath + "/anomaly";
  }

  /**
   * Present while a state transfer installs a snapshot in this duplicate: created before the data
   * root is replaced, deleted in the same multi as the state update that ends the install. A plugin
   * that finds it at start knows an install was interrupted and starts fenced.
   */
  public String transferMarker() {
    return basePath + "/transfer";
  }

  /**
   * Present while this duplicate is fenced, holding the reason (UTF-8): written when the plugin
   * fences it, deleted when a state transfer begins to install (the transfer marker takes over). A
   * plugin that finds it at start, on this server after a restart or on another after a change of
   * leader, starts fenced: a fence lasts until a state transfer, whatever happens to the server.
   */
  public String fenceRecord() {
    return basePath + "/fenced";
  }

  /**
   * The {@link Membership} record (persistent): the duplicates the deployment runs now, written by
   * the active repeater when a duplicate is added or retired online, read by a repeater that takes
   * over and watched by clients. Absent until the first change: the configured duplicates are the
   * set.
   */
  public String members() {
    return basePath + "/members";
  }

  /**
   * The active repeater's {@link ActiveRepeater} record (persistent): written by each repeater that
   * takes over with automatic failover, read and watched by standbys (to follow it) and by clients
   * (to find it).
   */
  public String activeRepeater() {
    return basePath + "/repeater";
  }

  /**
   * The parent of the repeater candidates' ephemeral sequential znodes: the failover election's
   * order.
   */
  public String repeaterCandidates() {
    return basePath + "/repeaters";
  }

  /**
   * The parent of the records of duplicates an epoch claim left out ({@code <base>/leftOut/<id>},
   * holding the epoch in decimal): their state is not trusted until they rejoin by state transfer.
   */
  public String leftOut() {
    return basePath + "/leftOut";
  }

  /** The znode path of an application path ({@code "/"} is the data root itself). */
  public String toZnode(String applicationPath) {
    return applicationPath.equals("/") ? dataRoot() : dataRoot() + applicationPath;
  }

  /** The application path of a znode under the data root. */
  public String toApplicationPath(String znode) {
    String root = dataRoot();
    if (znode.equals(root)) {
      return "/";
    }
    if (!znode.startsWith(root + "/")) {
      throw new IllegalArgumentException(
          "znode '" + znode + "' is not under the data root " + root);
    }
    return znode.substring(root.length());
  }
}
