package io.zoolander.it;

import io.zoolander.server.testing.EmbeddedCluster;
import io.zoolander.server.testing.RepeaterProcess;
import io.zoolander.testsupport.Await;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Two repeaters with automatic failover in child JVMs, at two fixed client ports: one active, one
 * its standby. {@link #killActive()} kills the active one like {@code kill -9}, waits until the
 * standby has taken over by itself, and starts a new standby at the dead one's port, so clients
 * that list both ports always have both.
 */
final class FailoverPair implements AutoCloseable {
  private final EmbeddedCluster cluster;
  private final Duration wait;
  private RepeaterProcess active;
  private RepeaterProcess standby;

  private FailoverPair(EmbeddedCluster cluster, Duration wait) {
    this.cluster = cluster;
    this.wait = wait;
  }

  /** Starts the first repeater (it elects itself), then its standby. */
  static FailoverPair start(EmbeddedCluster cluster, Duration wait) throws Exception {
    FailoverPair pair = new FailoverPair(cluster, wait);
    pair.active = cluster.repeaterProcess().startStandby();
    pair.active.awaitListening(wait);
    pair.standby = pair.standbyAt(0);
    return pair;
  }

  private RepeaterProcess standbyAt(int port) throws Exception {
    RepeaterProcess.Builder builder = cluster.repeaterProcess();
    if (port > 0) {
      builder.clientPort(port);
    }
    RepeaterProcess next = builder.startStandby();
    long epoch = active.epoch();
    Await.await(
        wait,
        "the new standby watching repeater epoch " + epoch,
        () -> next.output().contains("active repeater epoch " + epoch),
        next::output);
    return next;
  }

  /** Both client addresses, the active one's first. */
  List<InetSocketAddress> addresses() {
    return List.of(active.address(), standby.address());
  }

  /**
   * Kills the active repeater (SIGKILL), waits until the standby serves, and starts a new standby
   * at the dead one's port.
   *
   * @return how long the takeover took by the new active repeater's own count (ms)
   */
  long killActive() throws Exception {
    int port = active.address().getPort();
    active.kill();
    standby.awaitListening(wait);
    active.close();
    active = standby;
    standby = standbyAt(port);
    long took = active.takeoverMillis();
    if (took > SLOW_TAKEOVER_MILLIS) {
      // What the new repeater did meanwhile: which step took the time (its log goes with it).
      System.out.println(
          "SLOW TAKEOVER ("
              + took
              + " ms):\n"
              + active
                  .output()
                  .lines()
                  .filter(
                      l ->
                          l.contains("failover")
                              || l.contains("claim")
                              || l.contains("recover")
                              || l.contains("left out")
                              || l.contains("WARN"))
                  .collect(Collectors.joining("\n  ", "  ", "")));
    }
    return took;
  }

  /** A takeover slower than this prints the new repeater's account of it. */
  private static final long SLOW_TAKEOVER_MILLIS = 2_000;

  /** The active repeater's epoch. */
  long epoch() {
    return active.epoch();
  }

  @Override
  public void close() {
    standby.close();
    active.close();
  }
}
