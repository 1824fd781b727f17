package io.zoolander.wire;

import java.util.Objects;

/**
 * Where Zoolander keeps its znodes in every duplicate, under a base path ({@code /zoolander} by default): the data
 * root holding the application's tree, the plugin's bookkeeping record and the active plugin's endpoint.
 *
 * @param basePath absolute ZooKeeper path, without a trailing slash
 */
public record Znodes(String basePath) {
  /** The default base path. */
  public static final String DEFAULT_BASE_PATH = "/zoolander";

  public Znodes {
    Objects.requireNonNull(basePath, "basePath must not be null");
    if (!basePath.startsWith("/") || basePath.length() < 2 || basePath.endsWith("/") || basePath.contains("//")) {
      throw new IllegalArgumentException("basePath must be an absolute path like /zoolander, was '" + basePath + "'");
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
      throw new IllegalArgumentException("znode '" + znode + "' is not under the data root " + root);
    }
    return znode.substring(root.length());
  }
}
