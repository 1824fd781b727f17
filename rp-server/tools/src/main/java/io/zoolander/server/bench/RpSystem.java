package io.zoolander.server.bench;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.zoolander.client.Peer;
import io.zoolander.client.ReadPolicy;
import io.zoolander.client.ZoolanderClient;
import io.zoolander.client.ZoolanderClientBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * System 4: Zoolander RP through its client: reads to the first {@code duplicates} duplicates,
 * first reply wins (or hedged, for the equal-load comparison); writes sequenced by the repeater,
 * done at the first duplicate's reply. The READ requests sent are counted by the client itself
 * ({@code zoolander.client.read.requests}).
 */
final class RpSystem implements SystemUnderTest {
  private final String name;
  private final String description;
  private final ZoolanderClient client;
  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  private final AtomicLong writes = new AtomicLong();
  private final int duplicates;

  /**
   * @param builder a client builder that knows the repeater and exactly the duplicates to use
   * @param hedgePercentile NaN for first-reply reads to every duplicate, else hedged reads at that
   *     percentile
   */
  RpSystem(ZoolanderClientBuilder builder, int duplicates, double hedgePercentile) {
    this.duplicates = duplicates;
    boolean hedged = !Double.isNaN(hedgePercentile);
    this.name = "rp-" + duplicates + (hedged ? "-hedged" : "");
    this.description =
        hedged
            ? "Zoolander RP, "
                + duplicates
                + " duplicates, hedged reads (to the best-ranked duplicate, to the next after "
                + "the p"
                + PlainSystems.trim(hedgePercentile)
                + " of its recent read latency), sequenced writes"
            : "Zoolander RP, "
                + duplicates
                + " duplicate"
                + (duplicates == 1 ? "" : "s")
                + ": each read to all of them, "
                + "first reply wins; writes sequenced by the repeater, done at the first reply";
    this.client =
        builder
            .readPolicy(hedged ? ReadPolicy.hedged(hedgePercentile / 100) : ReadPolicy.all())
            .meterRegistry(meters)
            .build();
  }

  /** The path of key {@code key} in Zoolander's tree (under the data root). */
  static String path(int key) {
    return PlainSystems.path(key);
  }

  /**
   * Waits until the client is connected to the repeater and to every duplicate's plugin and has
   * read once, so that every read of the run goes to every duplicate from the start.
   */
  void connect(long timeoutSeconds)
      throws InterruptedException, ExecutionException, TimeoutException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
    List<Peer> peers = new ArrayList<>();
    peers.add(Peer.REPEATER);
    for (int i = 0; i < duplicates; i++) {
      peers.add(Peer.duplicate(i));
    }
    for (Peer peer : peers) {
      while (client.connectionState(peer) == null || !client.connectionState(peer).isConnected()) {
        if (System.nanoTime() - deadline > 0) {
          throw new TimeoutException(
              name + ": no connection to " + peer + " within " + timeoutSeconds + " s");
        }
        Thread.sleep(20);
      }
    }
    client.getData(path(0)).get(timeoutSeconds, TimeUnit.SECONDS);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public String description() {
    return description;
  }

  @Override
  public CompletableFuture<?> read(int key) {
    return client.getData(path(key));
  }

  @Override
  public CompletableFuture<?> write(int key, byte[] value) {
    writes.incrementAndGet();
    return client.setData(path(key), value, -1);
  }

  @Override
  public long readMessages() {
    return (long) meters.counter("zoolander.client.read.requests").count();
  }

  @Override
  public long writeMessages() {
    return writes.get();
  }

  @Override
  public void close() {
    client.close();
    meters.close();
  }
}
