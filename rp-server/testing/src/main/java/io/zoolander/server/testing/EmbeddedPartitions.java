package io.zoolander.server.testing;

import io.zoolander.client.PartitionedClient;
import io.zoolander.client.Partitioning;
import io.zoolander.client.ZoolanderClientBuilder;
import io.zoolander.client.balance.PartitionLoad;
import io.zoolander.client.balance.PartitionProbe;
import io.zoolander.server.repeater.Repeater;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * A partitioned deployment on one machine: one {@link EmbeddedCluster} per partition (its own
 * duplicates and repeater, on free ports of 127.0.0.1), and {@link PartitionedClient}s that route
 * across them. Each partition is driven, and its faults injected, through {@link #partition(int)}.
 *
 * <pre>{@code
 * try (EmbeddedPartitions deployment = EmbeddedPartitions.builder().partitions(2).start()) {
 *   PartitionedClient client =
 *       deployment.newClient(Partitioning.builder().partitions(2).route("orders", 1).build());
 *   client.create("/orders", data).join();   // in partition 1's duplicates only
 *   deployment.partition(1).killRepeater();  // partition 0 goes on writing
 * }
 * }</pre>
 *
 * <p>Not thread-safe, as {@link EmbeddedCluster}; the clients it hands out are.
 */
public final class EmbeddedPartitions implements AutoCloseable {
  private final List<EmbeddedCluster> partitions;
  private final List<PartitionedClient> clients = new ArrayList<>();

  private EmbeddedPartitions(List<EmbeddedCluster> partitions) {
    this.partitions = List.copyOf(partitions);
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The number of partitions. */
  public int partitions() {
    return partitions.size();
  }

  /**
   * One partition's deployment.
   *
   * @throws IndexOutOfBoundsException if there is no such partition
   */
  public EmbeddedCluster partition(int partition) {
    return partitions.get(partition);
  }

  /**
   * A client routing by {@code partitioning} over these partitions' current repeaters, closed with
   * the deployment.
   *
   * @throws IllegalArgumentException if {@code partitioning} has another number of partitions
   */
  public PartitionedClient newClient(Partitioning partitioning) {
    return newClient(partitioning, (partition, builder) -> {});
  }

  /**
   * As {@link #newClient(Partitioning)}, each partition's client set up by {@code customize} (given
   * the partition and its builder, pre-set with the partition's repeater and duplicates).
   *
   * @throws IllegalArgumentException if {@code partitioning} has another number of partitions
   */
  public PartitionedClient newClient(
      Partitioning partitioning, BiConsumer<Integer, ZoolanderClientBuilder> customize) {
    Objects.requireNonNull(partitioning, "partitioning must not be null");
    Objects.requireNonNull(customize, "customize must not be null");
    if (partitioning.partitions() != partitions.size()) {
      throw new IllegalArgumentException(
          "partitioning has "
              + partitioning.partitions()
              + " partitions, the deployment "
              + partitions.size());
    }
    PartitionedClient.Builder builder = PartitionedClient.builder().partitioning(partitioning);
    for (int p = 0; p < partitions.size(); p++) {
      ZoolanderClientBuilder client = partitions.get(p).clientBuilder();
      customize.accept(p, client);
      builder.partition(p, client.build());
    }
    PartitionedClient client = builder.build();
    synchronized (clients) {
      clients.add(client);
    }
    return client;
  }

  /**
   * How a {@link io.zoolander.client.balance.PartitionBalancer} sees partition {@code partition}:
   * its current repeater's {@link Repeater#nameWriteRates()} and {@link
   * Repeater#writeCapacityPerSec} at the target. The repeater is looked up at each call, so the
   * probe follows a restarted one.
   *
   * @throws IndexOutOfBoundsException if there is no such partition
   * @throws IllegalArgumentException if the target is out of range
   */
  public PartitionProbe probe(int partition, double targetSla, double tauMs) {
    EmbeddedCluster cluster = partitions.get(partition);
    if (!(targetSla > 0 && targetSla < 1)) {
      throw new IllegalArgumentException("targetSla must be in (0, 1), was " + targetSla);
    }
    if (!(tauMs > 0) || Double.isInfinite(tauMs)) {
      throw new IllegalArgumentException("tauMs must be finite and > 0, was " + tauMs);
    }
    return () -> {
      Repeater repeater = cluster.repeater();
      return new PartitionLoad(
          repeater.nameWriteRates(), repeater.writeCapacityPerSec(targetSla, tauMs));
    };
  }

  /** Closes the clients, then every partition. */
  @Override
  public void close() {
    synchronized (clients) {
      clients.forEach(PartitionedClient::close);
      clients.clear();
    }
    partitions.forEach(EmbeddedCluster::close);
  }

  /** Builds and starts the partitions, one after the other. */
  public static final class Builder {
    private int partitions;
    private Consumer<EmbeddedCluster.Builder> eachPartition = b -> {};

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
     * Sets up each partition's {@link EmbeddedCluster.Builder} (duplicates, servers, properties);
     * by default its defaults.
     */
    public Builder eachPartition(Consumer<EmbeddedCluster.Builder> customize) {
      this.eachPartition = Objects.requireNonNull(customize, "customize must not be null");
      return this;
    }

    /**
     * Starts every partition; if one fails, those already started are closed.
     *
     * @throws IllegalStateException if {@code partitions} was not set
     */
    public EmbeddedPartitions start() throws IOException, InterruptedException, TimeoutException {
      if (partitions == 0) {
        throw new IllegalStateException("partitions must be set");
      }
      List<EmbeddedCluster> started = new ArrayList<>();
      try {
        for (int p = 0; p < partitions; p++) {
          EmbeddedCluster.Builder builder = EmbeddedCluster.builder();
          eachPartition.accept(builder);
          started.add(builder.start());
        }
      } catch (IOException | InterruptedException | TimeoutException | RuntimeException e) {
        started.forEach(EmbeddedCluster::close);
        throw e;
      }
      return new EmbeddedPartitions(started);
    }
  }
}
