package io.zoolander.server.internal.repeater;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zoolander.testsupport.Await;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** How a standby tells the active repeater's death, on loopback. No timing is asserted. */
class HeartbeatTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final long LONG_TIMEOUT_MILLIS = 60_000;

  private static CompletableFuture<String> watch(HeartbeatMonitor monitor, int port) {
    return CompletableFuture.supplyAsync(
        () -> {
          try {
            return monitor.awaitLoss("127.0.0.1", port);
          } catch (InterruptedException e) {
            throw new CompletionException(e);
          }
        });
  }

  @Test
  void theEndOfTheConnectionIsSeenAtOnceWithoutWaitingForTheTimeout() throws Exception {
    try (HeartbeatServer server = new HeartbeatServer("127.0.0.1", 0);
        HeartbeatMonitor monitor = new HeartbeatMonitor(LONG_TIMEOUT_MILLIS)) {
      server.start(10, () -> false);
      CompletableFuture<String> loss = watch(monitor, server.port());
      Await.await(WAIT, "the standby connected", () -> server.standbys() == 1, () -> "");
      assertThat(loss).isNotDone();
      server.close(); // what the kernel does for a killed process
      assertThat(loss.get(WAIT.toSeconds(), TimeUnit.SECONDS))
          .isEqualTo("its heartbeat connection was closed");
    }
  }

  @Test
  void aRepeaterDeposedOrClosedStopsBeatingSoItsStandbysMoveOn() throws Exception {
    AtomicBoolean deposed = new AtomicBoolean();
    try (HeartbeatServer server = new HeartbeatServer("127.0.0.1", 0);
        HeartbeatMonitor monitor = new HeartbeatMonitor(LONG_TIMEOUT_MILLIS)) {
      server.start(10, deposed::get);
      CompletableFuture<String> loss = watch(monitor, server.port());
      Await.await(WAIT, "the standby connected", () -> server.standbys() == 1, () -> "");
      deposed.set(true);
      assertThat(loss.get(WAIT.toSeconds(), TimeUnit.SECONDS))
          .isEqualTo("its heartbeat connection was closed");
    }
  }

  @Test
  void aHeartbeatThatSendsNothingTimesOut() throws Exception {
    // Bound but not started: a standby's heartbeat port, or a host that stopped answering.
    try (HeartbeatServer silent = new HeartbeatServer("127.0.0.1", 0);
        HeartbeatMonitor monitor = new HeartbeatMonitor(200)) {
      assertThat(monitor.awaitLoss("127.0.0.1", silent.port()))
          .isEqualTo("no heartbeat for 200 ms");
    }
  }

  @Test
  void closingTheMonitorEndsTheWatch() throws Exception {
    try (HeartbeatServer server = new HeartbeatServer("127.0.0.1", 0)) {
      server.start(10, () -> false);
      HeartbeatMonitor monitor = new HeartbeatMonitor(LONG_TIMEOUT_MILLIS);
      CompletableFuture<String> loss = watch(monitor, server.port());
      Await.await(WAIT, "the standby connected", () -> server.standbys() == 1, () -> "");
      monitor.close();
      assertThatThrownBy(() -> loss.get(WAIT.toSeconds(), TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .hasCauseInstanceOf(InterruptedException.class);
    }
  }
}
