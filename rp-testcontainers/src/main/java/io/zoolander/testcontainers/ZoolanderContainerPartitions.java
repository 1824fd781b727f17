package io.zoolander.testcontainers;

import io.zoolander.client.PartitionedClient;
import io.zoolander.client.Partitioning;
import io.zoolander.client.ZoolanderClient;
import io.zoolander.client.ZoolanderClientBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.BiConsumer;
import org.testcontainers.lifecycle.Startable;
import org.testcontainers.lifecycle.Startables;

/**
 * A partitioned deployment in containers, for users' Testcontainers tests: one {@link
 * ZoolanderContainerCluster} per partition of a {@link Partitioning} (its own repeater and its own
 * duplicates, each duplicate its own ZooKeeper ensemble), all in the host's network namespace on
 * 127.0.0.1 with free ports, and {@link PartitionedClient}s that route across them by the
 * partitioning's top-level names. Usable as a JUnit 5 {@code @Container} field (it is {@link
 * Startable}); each partition is driven, and its faults injected, through {@link #partition(int)}.
 *
 * <pre>{@code
 * @Testcontainers
 * class MyTest {
 *   @Container
 *   static ZoolanderContainerPartitions deployment = ZoolanderContainerPartitions.builder()
 *       .images(ZoolanderImages.of(DockerImageName.parse("zoolander/server:0.1.0"),
 *           DockerImageName.parse("zoolander/repeater:0.1.0")))
 *       .partitioning(Partitioning.builder().partitions(2).route("orders", 1).build())
 *       .eachPartition((partition, cluster) -> cluster.duplicates(2))
 *       .build();
 *
 *   @Test
 *   void routesByTopLevelName() {
 *     try (PartitionedClient client = deployment.newClient()) {
 *       client.create("/orders", new byte[] {1}).join(); // in partition 1's duplicates only
 *       deployment.partition(1).killDuplicate(1);        // partition 0 is not touched
 *     }
 *   }
 * }
 * }</pre>
 *
 * <p>Not thread-safe, as {@link ZoolanderContainerCluster}; the clients it hands out are.
 */
public final class ZoolanderContainerPartitions implements Startable {
  private final Partitioning partitioning;
  private final List<ZoolanderContainerCluster> partitions;

  private ZoolanderContainerPartitions(
      Partitioning partitioning, List<ZoolanderContainerCluster> partitions) {
    this.partitioning = partitioning;
    this.partitions = List.copyOf(partitions);
  }

  public static Builder builder() {
    return new Builder();
  }

  /** How the namespace is split: the routes every client of {@link #newClient()} uses. */
  public Partitioning partitioning() {
    return partitioning;
  }

  /** The number of partitions. */
  public int partitions() {
    return partitions.size();
  }

  /**
   * One partition's deployment: its repeater, duplicates, digests and faults.
   *
   * @throws IllegalArgumentException if there is no such partition
   */
  public ZoolanderContainerCluster partition(int partition) {
    if (partition < 0 || partition >= partitions.size()) {
      throw new IllegalArgumentException(
          "no partition " + partition + " (partitions: 0.." + (partitions.size() - 1) + ")");
    }
    return partitions.get(partition);
  }

  /**
   * Starts every partition, side by side (each its servers, then its repeater, as {@link
   * ZoolanderContainerCluster#start()}). If one fails, every partition is stopped, so that no
   * container outlives the failed start (there is no reaper where images cannot be pulled), and the
   * failure is thrown.
   */
  @Override
  public void start() {
    try {
      Startables.deepStart(partitions).join();
    } catch (RuntimeException e) {
      try {
        stop();
      } catch (RuntimeException stopping) {
        e.addSuppressed(stopping);
      }
      throw e;
    }
  }

  /** Stops and removes every partition's containers. */
  @Override
  public void stop() {
    partitions.forEach(ZoolanderContainerCluster::stop);
  }

  /**
   * A client routing by {@link #partitioning()} over the partitions' repeaters and duplicates; the
   * caller closes it (which closes every partition's client).
   */
  public PartitionedClient newClient() {
    return newClient((partition, builder) -> {});
  }

  /**
   * As {@link #newClient()}, each partition's client set up by {@code customize} (given the
   * partition and its builder, pre-set by {@link ZoolanderContainerCluster#clientBuilder()}), e.g.
   * with a read policy. If one partition's client cannot be built, those already built are closed.
   */
  public PartitionedClient newClient(BiConsumer<Integer, ZoolanderClientBuilder> customize) {
    Objects.requireNonNull(customize, "customize must not be null");
    List<ZoolanderClient> built = new ArrayList<>();
    try {
      PartitionedClient.Builder builder = PartitionedClient.builder().partitioning(partitioning);
      for (int p = 0; p < partitions.size(); p++) {
        ZoolanderClientBuilder client = partitions.get(p).clientBuilder();
        customize.accept(p, client);
        ZoolanderClient partitionClient = client.build();
        built.add(partitionClient);
        builder.partition(p, partitionClient);
      }
      return builder.build();
    } catch (RuntimeException e) {
      built.forEach(ZoolanderClient::close);
      throw e;
    }
  }

  /** Settings of a {@link ZoolanderContainerPartitions}. */
  public static final class Builder {
    private ZoolanderImages images;
    private Partitioning partitioning;
    private BiConsumer<Integer, ZoolanderContainerCluster.Builder> eachPartition =
        (partition, cluster) -> {};

    private Builder() {}

    /** The server and repeater images of every partition (required). */
    public Builder images(ZoolanderImages images) {
      this.images = Objects.requireNonNull(images, "images must not be null");
      return this;
    }

    /**
     * How many partitions, and which top-level names go to which (required): one deployment is
     * started per partition, and {@link ZoolanderContainerPartitions#newClient()} routes by it.
     */
    public Builder partitioning(Partitioning partitioning) {
      this.partitioning = Objects.requireNonNull(partitioning, "partitioning must not be null");
      return this;
    }

    /**
     * Sets up each partition's {@link ZoolanderContainerCluster.Builder} (duplicates, servers per
     * duplicate, ZooKeeper identity, log consumer), given the partition (from 0) and its builder,
     * pre-set with {@link #images}; each partition is a cluster's defaults unless set.
     */
    public Builder eachPartition(BiConsumer<Integer, ZoolanderContainerCluster.Builder> customize) {
      this.eachPartition = Objects.requireNonNull(customize, "eachPartition must not be null");
      return this;
    }

    /**
     * Every partition's containers, with free ports picked now (distinct across partitions); {@link
     * ZoolanderContainerPartitions#start()} starts them.
     *
     * @throws IllegalStateException if no images or no partitioning are set
     */
    public ZoolanderContainerPartitions build() {
      if (images == null) {
        throw new IllegalStateException("images are not set: call images(ZoolanderImages)");
      }
      if (partitioning == null) {
        throw new IllegalStateException("partitioning is not set: call partitioning(Partitioning)");
      }
      List<ZoolanderContainerCluster> clusters = new ArrayList<>();
      for (int p = 0; p < partitioning.partitions(); p++) {
        ZoolanderContainerCluster.Builder cluster =
            ZoolanderContainerCluster.builder().images(images);
        eachPartition.accept(p, cluster);
        clusters.add(cluster.build());
      }
      return new ZoolanderContainerPartitions(partitioning, clusters);
    }
  }
}
