package io.zoolander.server.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.zoolander.client.ConnectionState;
import io.zoolander.client.Peer;
import io.zoolander.client.ZoolanderClient;
import io.zoolander.server.testing.EmbeddedCluster;
import io.zoolander.server.testing.FaultProxy;
import io.zoolander.server.testing.ServerMode;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The client's connection to the repeater goes half-open (the peer silent, the connection still
 * looking ready), as when the repeater's host dies without a goodbye. Before, every write sent on
 * it vanished until the request timeout, and the next ones too; now the client suspects the silence
 * after a few retries and connects to its next repeater address.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class HalfOpenRepeaterTest {

  @Test
  void aSilentRepeaterConnectionIsDroppedAndTheWriteGoesThroughTheNextAddress() throws Exception {
    List<ConnectionState> repeaterStates = new CopyOnWriteArrayList<>();
    try (EmbeddedCluster cluster =
            EmbeddedCluster.builder().duplicates(1).serverMode(ServerMode.IN_PROCESS).start();
        FaultProxy proxy =
            FaultProxy.builder()
                .target("127.0.0.1", cluster.repeater().boundAddress().getPort())
                .start()) {
      InetSocketAddress direct = cluster.repeater().boundAddress();
      @SuppressWarnings("AddressSelection") // 127.0.0.1 exactly, as the proxy listens there
      InetSocketAddress viaProxy = new InetSocketAddress("127.0.0.1", proxy.port());
      try (ZoolanderClient client =
          cluster
              .clientBuilder(List.of(viaProxy, direct))
              .writeRetryDelay(Duration.ofMillis(200))
              .requestTimeout(Duration.ofMinutes(2))
              .build()) {
        client.addConnectionStateListener(
            (peer, state) -> {
              if (peer.equals(Peer.REPEATER)) {
                repeaterStates.add(state);
              }
            });
        assertThat(client.create("/before", new byte[0]).get(30, TimeUnit.SECONDS).seq())
            .isPositive();
        assertThat(proxy.acceptedConnections()).as("connected through the proxy").isPositive();

        proxy.halfOpen();
        // Without the suspicion this waits for the two-minute request timeout.
        assertThat(client.create("/after", new byte[0]).get(60, TimeUnit.SECONDS).seq())
            .isPositive();
        assertThat(repeaterStates).contains(ConnectionState.RECONNECTED);
      }
    }
  }
}
