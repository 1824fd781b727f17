package io.zoolander.client;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * How a partitioned deployment splits the namespace: by an application path's <em>top-level
 * name</em>, its first component ({@code users} in {@code /users/42/profile}). Each partition is a
 * deployment of its own (a repeater and its duplicates); every path under one top-level name lives
 * in one partition, so a subtree never straddles two, parents and children stay together, and one
 * partition's writes are sequenced by its own repeater without waiting for any other. Names without
 * a route go to the default partition.
 *
 * <p>Immutable; built and validated by {@link #builder()}:
 *
 * <pre>{@code
 * Partitioning partitioning =
 *     Partitioning.builder().partitions(2).route("users", 0).route("orders", 1).build();
 * }</pre>
 */
public final class Partitioning {
  private final int partitions;
  private final Map<String, Integer> routes;
  private final int defaultPartition;

  private Partitioning(Builder b) {
    this.partitions = b.partitions;
    this.routes = Map.copyOf(b.routes);
    this.defaultPartition = b.defaultPartition;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The number of partitions, numbered from 0. */
  public int partitions() {
    return partitions;
  }

  /** Top-level name to partition, for the names routed explicitly. */
  public Map<String, Integer> routes() {
    return routes;
  }

  /** The partition of every top-level name without a route. */
  public int defaultPartition() {
    return defaultPartition;
  }

  /**
   * The partition that holds {@code path}.
   *
   * @throws IllegalArgumentException if {@code path} is not absolute, or is the root (which every
   *     partition has: it belongs to none)
   */
  public int partitionOf(String path) {
    Objects.requireNonNull(path, "path must not be null");
    if (!path.startsWith("/")) {
      throw new IllegalArgumentException("path must start with '/': " + path);
    }
    if (path.length() == 1) {
      throw new IllegalArgumentException("path: / is in every partition, not in one");
    }
    int end = path.indexOf('/', 1);
    String name = end < 0 ? path.substring(1) : path.substring(1, end);
    return routes.getOrDefault(name, defaultPartition);
  }

  @Override
  public String toString() {
    return "Partitioning[partitions="
        + partitions
        + ", routes="
        + routes
        + ", default="
        + defaultPartition
        + "]";
  }

  /** Builds a {@link Partitioning}; every setter validates its argument. */
  public static final class Builder {
    private int partitions;
    private final Map<String, Integer> routes = new LinkedHashMap<>();
    private int defaultPartition;

    private Builder() {}

    /**
     * @throws IllegalArgumentException if {@code partitions < 1}
     */
    public Builder partitions(int partitions) {
      if (partitions < 1) {
        throw new IllegalArgumentException("partitions must be >= 1, was " + partitions);
      }
      this.partitions = partitions;
      return this;
    }

    /**
     * Routes every path under {@code /<topLevelName>} to {@code partition}.
     *
     * @throws IllegalArgumentException if the name is empty or contains '/', or is routed already
     * @throws IllegalArgumentException if {@code partition < 0}
     */
    public Builder route(String topLevelName, int partition) {
      Objects.requireNonNull(topLevelName, "topLevelName must not be null");
      if (topLevelName.isEmpty() || topLevelName.contains("/")) {
        throw new IllegalArgumentException(
            "topLevelName must be one path component, without '/': '" + topLevelName + "'");
      }
      if (partition < 0) {
        throw new IllegalArgumentException("partition must be >= 0, was " + partition);
      }
      if (routes.putIfAbsent(topLevelName, partition) != null) {
        throw new IllegalArgumentException("topLevelName " + topLevelName + " is routed already");
      }
      return this;
    }

    /**
     * The partition of unrouted names; 0 if not set.
     *
     * @throws IllegalArgumentException if {@code partition < 0}
     */
    public Builder defaultPartition(int partition) {
      if (partition < 0) {
        throw new IllegalArgumentException("defaultPartition must be >= 0, was " + partition);
      }
      this.defaultPartition = partition;
      return this;
    }

    /**
     * @throws IllegalStateException if {@code partitions} was not set, or a route or the default
     *     names a partition beyond it
     */
    public Partitioning build() {
      if (partitions == 0) {
        throw new IllegalStateException("partitions must be set");
      }
      if (defaultPartition >= partitions) {
        throw new IllegalStateException(
            "defaultPartition " + defaultPartition + " is not one of the " + partitions);
      }
      routes.forEach(
          (name, partition) -> {
            if (partition >= partitions) {
              throw new IllegalStateException(
                  "route " + name + " -> " + partition + ": not one of the " + partitions);
            }
          });
      return new Partitioning(this);
    }
  }
}
