package io.zoolander.server.internal.leader;

import static org.assertj.core.api.Assertions.assertThat;

import io.zoolander.server.LeaderContext;
import io.zoolander.server.LeaderPlugin;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The plugin lifecycle of one server, in process, without ZooKeeper. */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
class LeaderPluginHostTest {

  private static final Duration STOP_TIMEOUT = Duration.ofMillis(300);

  private final List<String> events = new CopyOnWriteArrayList<>();

  @Test
  void startsAsynchronouslyAndStopsOnceWhenLeadershipEnds() throws Exception {
    CountDownLatch started = new CountDownLatch(1);
    LeaderPluginHost host =
        new LeaderPluginHost(
            () ->
                new RecordingPlugin() {
                  @Override
                  public void start(LeaderContext context) {
                    super.start(context);
                    started.countDown();
                  }
                },
            STOP_TIMEOUT);

    host.leadershipStarted(context(7));
    assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();
    assertThat(host.isActive()).isTrue();

    host.leadershipEnded("test");
    host.leadershipEnded("again");
    host.close("closed");
    assertThat(events).containsExactly("start 7", "stop");
    assertThat(host.isActive()).isFalse();
  }

  @Test
  void aNewTermGetsAFreshPluginAndEndsThePreviousOne() throws Exception {
    LeaderPluginHost host = new LeaderPluginHost(RecordingPlugin::new, STOP_TIMEOUT);
    host.leadershipStarted(context(1));
    awaitEvents(1);
    host.leadershipStarted(context(2));
    awaitEvents(3);
    host.leadershipEnded("test");
    assertThat(events).containsExactly("start 1", "stop", "start 2", "stop");
  }

  @Test
  void aTermThatEndsBeforeItsPluginStartsNeitherStartsNorStopsIt() {
    CountDownLatch release = new CountDownLatch(1);
    LeaderPluginHost host =
        new LeaderPluginHost(
            () -> {
              while (true) { // a slow factory that ignores interrupts: leadership ends meanwhile
                try {
                  release.await();
                  return new RecordingPlugin();
                } catch (InterruptedException e) {
                  // ignored on purpose
                }
              }
            },
            Duration.ofSeconds(5));
    host.leadershipStarted(context(1));
    Thread releaser =
        new Thread(
            () -> {
              try {
                Thread.sleep(100);
              } catch (InterruptedException e) {
                // release now
              }
              release.countDown();
            });
    releaser.start();
    host.leadershipEnded("test"); // waits for the term, which sees the stop request before start
    assertThat(events).isEmpty();
  }

  private void awaitEvents(int count) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (events.size() < count) {
      assertThat(System.nanoTime() - deadline)
          .as("events %s, waiting for %d", events, count)
          .isNegative();
      Thread.sleep(10);
    }
  }

  @Test
  void failedStartIsContainedAndStillStopped() throws Exception {
    CountDownLatch stopped = new CountDownLatch(1);
    LeaderPluginHost host =
        new LeaderPluginHost(
            () ->
                new LeaderPlugin() {
                  @Override
                  public void start(LeaderContext context) {
                    throw new IllegalStateException("boom");
                  }

                  @Override
                  public void stop() {
                    stopped.countDown();
                  }
                },
            STOP_TIMEOUT);
    host.leadershipStarted(context(1));
    assertThat(stopped.await(5, TimeUnit.SECONDS)).as("stop releases a failed start").isTrue();
    host.leadershipEnded("test"); // nothing left to stop, no exception
  }

  @Test
  void failingFactoryIsContained() {
    LeaderPluginHost host =
        new LeaderPluginHost(
            () -> {
              throw new IllegalStateException("no plugin today");
            },
            STOP_TIMEOUT);
    host.leadershipStarted(context(1));
    host.leadershipEnded("test");
    LeaderPluginHost nullFactory = new LeaderPluginHost(() -> null, STOP_TIMEOUT);
    nullFactory.leadershipStarted(context(1));
    nullFactory.leadershipEnded("test");
  }

  @Test
  void blockedStartIsInterruptedAndFollowedByStop() throws Exception {
    CountDownLatch inStart = new CountDownLatch(1);
    LeaderPluginHost host =
        new LeaderPluginHost(
            () ->
                new RecordingPlugin() {
                  @Override
                  public void start(LeaderContext context) {
                    inStart.countDown();
                    try {
                      new CountDownLatch(1).await(); // e.g. waiting to connect to its own server
                    } catch (InterruptedException e) {
                      events.add("start interrupted");
                      Thread.currentThread().interrupt();
                    }
                  }
                },
            Duration.ofSeconds(5));
    host.leadershipStarted(context(1));
    assertThat(inStart.await(5, TimeUnit.SECONDS)).isTrue();
    host.leadershipEnded("test");
    assertThat(events).containsExactly("start interrupted", "stop");
  }

  @Test
  void stopIsBoundedInTime() throws Exception {
    CountDownLatch started = new CountDownLatch(1);
    LeaderPluginHost host =
        new LeaderPluginHost(
            () ->
                new LeaderPlugin() {
                  @Override
                  public void start(LeaderContext context) {
                    started.countDown();
                  }

                  @Override
                  public void stop() {
                    while (true) {
                      try {
                        Thread.sleep(60_000); // a plugin that never stops, even when interrupted
                      } catch (InterruptedException e) {
                        // ignored on purpose
                      }
                    }
                  }
                },
            STOP_TIMEOUT);
    host.leadershipStarted(context(1));
    assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();
    long t0 = System.nanoTime();
    host.leadershipEnded("test");
    long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
    assertThat(tookMillis).isBetween(STOP_TIMEOUT.toMillis() - 50, STOP_TIMEOUT.toMillis() + 2_000);
  }

  @Test
  void closedHostStartsNothing() {
    LeaderPluginHost host = new LeaderPluginHost(RecordingPlugin::new, STOP_TIMEOUT);
    host.close("test");
    host.leadershipStarted(context(1));
    assertThat(host.isActive()).isFalse();
    assertThat(events).isEmpty();
  }

  @Test
  void withoutFactoryNothingRuns() {
    LeaderPluginHost host = new LeaderPluginHost(null, STOP_TIMEOUT);
    assertThat(host.hasPlugin()).isFalse();
    host.leadershipStarted(context(1));
    assertThat(host.isActive()).isFalse();
    host.leadershipEnded("test");
  }

  @Test
  void contextGivesALocalConnectString() {
    assertThat(
            new LeaderTermContext(
                    1, 1, new InetSocketAddress("0.0.0.0", 2181), Path.of("."), Map.of(), null)
                .localConnectString())
        .isEqualTo("127.0.0.1:2181");
    assertThat(
            new LeaderTermContext(
                    1, 1, new InetSocketAddress("127.0.0.2", 2181), Path.of("."), Map.of(), null)
                .localConnectString())
        .isEqualTo("127.0.0.2:2181");
    LeaderContext context =
        new LeaderTermContext(1, 1, null, Path.of("."), Map.of("zoolander.a", "b"), null);
    assertThat(context.localConnectString()).isNull();
    assertThat(context.property("zoolander.a")).contains("b");
  }

  // AddressSelection: the IPv4 loopback literal on purpose, as a server's clientPortAddress
  // would be; getLoopbackAddress() would be ::1 when IPv6 is preferred.
  @SuppressWarnings("AddressSelection")
  private static LeaderContext context(long epoch) {
    return new LeaderTermContext(
        1, epoch, new InetSocketAddress("127.0.0.1", 2181), Path.of("."), Map.of(), null);
  }

  private class RecordingPlugin implements LeaderPlugin {
    @Override
    public void start(LeaderContext context) {
      events.add("start " + context.epoch());
    }

    @Override
    public void stop() {
      events.add("stop");
    }
  }
}
