package io.zoolander.server.testing;

import io.zoolander.client.ZoolanderClient;
import io.zoolander.server.internal.testing.FourLetterWords;
import io.zoolander.server.repeater.LinkState;
import io.zoolander.server.repeater.Repeater;
import io.zoolander.testsupport.Await;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A closed client leaves no ZooKeeper session behind: it watches records in every duplicate (the
 * active repeater's, the membership, the plugin endpoints), and closes all of those sessions, the
 * repeater discovery's with the others, before {@code close()} returns.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class ClientCloseTest {
  private static final Duration WAIT = Duration.ofSeconds(30);

  @Test
  void closingAClientEndsEveryZooKeeperSessionItOpened() throws Exception {
    try (EmbeddedCluster cluster =
        EmbeddedCluster.builder()
            .duplicates(2)
            .serverMode(ServerMode.IN_PROCESS)
            .startRepeater(false)
            .start()) {
      // The periodic epoch check opens sessions of its own, which would move the counts.
      Repeater repeater = cluster.startRepeater(b -> b.epochCheckInterval(Duration.ZERO));
      // Streaming to every duplicate: its watcher of their plugin endpoints is connected.
      Await.await(
          WAIT,
          "the repeater streaming to every duplicate",
          () -> repeater.duplicates().stream().allMatch(d -> d.linkState() == LinkState.STREAMING),
          repeater::duplicates);
      Map<Integer, Integer> before = connections(cluster);

      ZoolanderClient client = cluster.clientBuilder().build();
      client.create("/x", new byte[] {1}).get(30, TimeUnit.SECONDS);
      Await.await(
          WAIT,
          "the client's watchers connected to every duplicate",
          () -> {
            Map<Integer, Integer> now = connections(cluster);
            return before.keySet().stream().allMatch(id -> now.get(id) > before.get(id));
          },
          () -> "before " + before + ", now " + connections(cluster));

      client.close();

      // A session's connection ends when its close is answered, before close() returns; the
      // server may count it a moment longer. A session left open would stay for good.
      Await.await(
          WAIT,
          "every duplicate back to its connections before the client",
          () -> connections(cluster).equals(before),
          () -> "before " + before + ", now " + connections(cluster));
    }
  }

  /** The client connections each duplicate's server counts ({@code srvr}), by duplicate id. */
  private static Map<Integer, Integer> connections(EmbeddedCluster cluster) {
    Map<Integer, Integer> counts = new TreeMap<>();
    for (int id : cluster.duplicateIds()) {
      ZooKeeperEnsemble ensemble = cluster.duplicate(id);
      int sum = 0;
      for (int server : ensemble.serverIds()) {
        sum += connections(ensemble, server);
      }
      counts.put(id, sum);
    }
    return counts;
  }

  private static int connections(ZooKeeperEnsemble ensemble, int server) {
    String answer;
    try {
      answer = FourLetterWords.send(ensemble.clientAddress(server), "srvr", 5_000);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    for (String line : answer.split("\\R")) {
      if (line.startsWith("Connections:")) {
        // srvr's own connection, if counted, is counted in every answer alike.
        return Integer.parseInt(line.substring("Connections:".length()).trim());
      }
    }
    throw new AssertionError("no Connections line in srvr's answer: " + answer);
  }
}
