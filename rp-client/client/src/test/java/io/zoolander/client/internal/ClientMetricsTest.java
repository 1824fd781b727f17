package io.zoolander.client.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.zoolander.client.ReadPolicy;
import org.junit.jupiter.api.Test;

/** The client's per-duplicate meters grow with the set of duplicates; indexes never move. */
class ClientMetricsTest {

  @Test
  void aDuplicateAddedLaterGetsItsOwnMetersAndTheOthersKeepTheirs() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    AdaptiveConcurrency concurrency =
        new AdaptiveConcurrency(ReadPolicy.fixed(1), 1, System::nanoTime);
    ClientMetrics metrics = new ClientMetrics(registry, 1, concurrency, 10);
    metrics.readReply(0, 1_000_000, true);
    assertThat(registry.find("zoolander.client.read.wins").tag("duplicate", "1").counter())
        .isNull();

    assertThat(metrics.add()).isEqualTo(1);
    metrics.readReply(1, 2_000_000, true);
    metrics.readReply(1, 3_000_000, false);
    assertThat(registry.get("zoolander.client.read.wins").tag("duplicate", "0").counter().count())
        .isEqualTo(1);
    assertThat(registry.get("zoolander.client.read.wins").tag("duplicate", "1").counter().count())
        .isEqualTo(1);
    assertThat(
            registry
                .get("zoolander.client.read.latency")
                .tag("duplicate", "1")
                .tag("reply", "other")
                .timer()
                .count())
        .isEqualTo(1);
  }
}
