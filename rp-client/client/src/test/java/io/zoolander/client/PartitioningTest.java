package io.zoolander.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class PartitioningTest {
  private final Partitioning partitioning =
      Partitioning.builder()
          .partitions(3)
          .route("orders", 1)
          .route("carts", 2)
          .defaultPartition(0)
          .build();

  @Test
  void aPathGoesWhereItsTopLevelNameIsRouted() {
    assertThat(partitioning.partitionOf("/orders")).isEqualTo(1);
    assertThat(partitioning.partitionOf("/orders/42/lines/1")).isEqualTo(1);
    assertThat(partitioning.partitionOf("/carts/7")).isEqualTo(2);
    assertThat(partitioning.partitionOf("/users/7")).as("unrouted: the default").isEqualTo(0);
    assertThat(partitioning.partitionOf("/ordersX/1")).as("a whole name, not a prefix").isZero();
    assertThat(partitioning.partitionOf("/orders/w-")).as("a sequential prefix").isEqualTo(1);
  }

  @Test
  void theRootAndRelativePathsBelongToNoPartition() {
    assertThatThrownBy(() -> partitioning.partitionOf("/"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("every partition");
    assertThatThrownBy(() -> partitioning.partitionOf("orders/1"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("path must start with '/'");
  }

  @Test
  void theBuilderNamesWhatIsWrong() {
    assertThatThrownBy(() -> Partitioning.builder().partitions(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("partitions must be >= 1");
    assertThatThrownBy(() -> Partitioning.builder().route("a/b", 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("topLevelName");
    assertThatThrownBy(() -> Partitioning.builder().route("", 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("topLevelName");
    assertThatThrownBy(() -> Partitioning.builder().route("a", 0).route("a", 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("routed already");
    assertThatThrownBy(() -> Partitioning.builder().route("a", -1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("partition must be >= 0");
    assertThatThrownBy(() -> Partitioning.builder().build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("partitions must be set");
    assertThatThrownBy(() -> Partitioning.builder().partitions(2).route("a", 2).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("route a -> 2");
    assertThatThrownBy(() -> Partitioning.builder().partitions(2).defaultPartition(2).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("defaultPartition 2");
  }

  @Test
  @SuppressWarnings("NullAway") // passes null on purpose
  void aPartitionedClientNeedsEveryPartitionsClient() {
    assertThatThrownBy(() -> PartitionedClient.builder().build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("partitioning must be set");
    assertThatThrownBy(
            () ->
                PartitionedClient.builder()
                    .partitioning(Partitioning.builder().partitions(2).build())
                    .build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("partition 0's client must be given");
    assertThatThrownBy(() -> PartitionedClient.builder().partition(-1, null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("client must not be null");
  }
}
