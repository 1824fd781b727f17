package io.zoolander.server.internal.repeater;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zoolander.testsupport.Await;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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

  @Test
  void connectionsBeyondTheCapAreClosedAtOnce() throws Exception {
    List<Socket> peers = new ArrayList<>();
    try (HeartbeatServer server = new HeartbeatServer("127.0.0.1", 0)) {
      server.start(10, () -> false);
      for (int i = 0; i < HeartbeatServer.MAX_STANDBYS; i++) {
        peers.add(new Socket("127.0.0.1", server.port()));
      }
      Await.await(
          WAIT,
          "the cap's worth of connections kept",
          () -> server.standbys() == HeartbeatServer.MAX_STANDBYS,
          () -> server.standbys() + " kept");
      try (Socket extra = new Socket("127.0.0.1", server.port())) {
        extra.setSoTimeout(Math.toIntExact(WAIT.toMillis()));
        assertThat(extra.getInputStream().read()).as("closed without a beat").isEqualTo(-1);
      }
      assertThat(server.standbys()).isEqualTo(HeartbeatServer.MAX_STANDBYS);
      assertThat(server.dropped()).isEqualTo(1);
    } finally {
      for (Socket peer : peers) {
        peer.close();
      }
    }
  }

  @Test
  void aPeerThatDoesNotReadIsDroppedAndTheStandbysKeepTheirBeats() throws Exception {
    try (HeartbeatServer server = new HeartbeatServer("127.0.0.1", 0);
        HeartbeatMonitor monitor = new HeartbeatMonitor(LONG_TIMEOUT_MILLIS);
        Socket stuck = new Socket()) {
      server.start(5, () -> false);
      CompletableFuture<String> loss = watch(monitor, server.port());
      Await.await(WAIT, "the standby connected", () -> server.standbys() == 1, () -> "");
      stuck.setReceiveBufferSize(1_024);
      stuck.connect(new InetSocketAddress("127.0.0.1", server.port()));
      Await.await(
          WAIT,
          "the peer that never reads dropped",
          () -> server.dropped() == 1,
          () -> server.standbys() + " connected");
      // What it was sent before, then the end: the server closed it.
      stuck.setSoTimeout(Math.toIntExact(WAIT.toMillis()));
      InputStream in = stuck.getInputStream();
      while (in.read() == 1) {
        // the beats it did not read
      }
      assertThat(server.standbys()).isEqualTo(1);
      assertThat(loss).as("the reading standby still hears its beats").isNotDone();
    }
  }
}
