package io.zoolander.server.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The fault proxy in front of an echo server, with plain sockets. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class FaultProxyTest {
  private ServerSocket echo;
  private final AtomicInteger echoClosed = new AtomicInteger();
  private final List<Socket> accepted = new CopyOnWriteArrayList<>();
  private FaultProxy proxy;

  @BeforeEach
  void start() throws Exception {
    echo = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread acceptor =
        new Thread(
            () -> {
              while (!echo.isClosed()) {
                try {
                  Socket s = echo.accept();
                  accepted.add(s);
                  Thread t = new Thread(() -> echoUntilClosed(s));
                  t.setDaemon(true);
                  t.start();
                } catch (IOException e) {
                  return;
                }
              }
            });
    acceptor.setDaemon(true);
    acceptor.start();
    proxy = FaultProxy.builder().target("127.0.0.1", echo.getLocalPort()).start();
  }

  private void echoUntilClosed(Socket s) {
    try (s;
        InputStream in = s.getInputStream();
        OutputStream out = s.getOutputStream()) {
      int b;
      while ((b = in.read()) >= 0) {
        out.write(b);
        out.flush();
      }
    } catch (IOException e) {
      // reset
    }
    echoClosed.incrementAndGet();
  }

  @AfterEach
  void stop() throws IOException {
    proxy.close();
    echo.close();
  }

  private Socket connect() throws IOException {
    Socket s = new Socket(InetAddress.getLoopbackAddress(), proxy.port());
    s.setSoTimeout(5_000);
    return s;
  }

  private static int roundTrip(Socket s, int b) throws IOException {
    s.getOutputStream().write(b);
    s.getOutputStream().flush();
    return s.getInputStream().read();
  }

  @Test
  void passesBothWays() throws Exception {
    try (Socket s = connect()) {
      assertThat(roundTrip(s, 7)).isEqualTo(7);
      assertThat(proxy.forwardedBytes()).isEqualTo(2);
    }
  }

  @Test
  void dropHoldsTheBytesUntilHealed() throws Exception {
    try (Socket s = connect()) {
      assertThat(roundTrip(s, 1)).isEqualTo(1);
      proxy.drop();
      s.setSoTimeout(300);
      s.getOutputStream().write(2);
      assertThatThrownBy(() -> s.getInputStream().read())
          .isInstanceOf(SocketTimeoutException.class);
      proxy.pass();
      s.setSoTimeout(5_000);
      assertThat(s.getInputStream().read()).isEqualTo(2); // nothing lost
    }
  }

  @Test
  void resetResetsOpenConnectionsAndNewOnesUntilHealed() throws Exception {
    try (Socket s = connect()) {
      assertThat(roundTrip(s, 1)).isEqualTo(1);
      proxy.reset();
      assertThatThrownBy(
              () -> {
                for (int i = 0; i < 100; i++) {
                  roundTrip(s, 2);
                }
              })
          .isInstanceOf(SocketException.class);
    }
    try (Socket s = connect()) {
      assertThatThrownBy(() -> roundTrip(s, 3)).isInstanceOf(SocketException.class);
    }
    proxy.pass();
    try (Socket s = connect()) {
      assertThat(roundTrip(s, 4)).isEqualTo(4);
    }
  }

  @Test
  void halfOpenClosesTheTargetSideAndLeavesTheInitiatorSilent() throws Exception {
    try (Socket s = connect()) {
      assertThat(roundTrip(s, 1)).isEqualTo(1);
      proxy.halfOpen();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (echoClosed.get() == 0 && System.nanoTime() < deadline) {
        Thread.sleep(5);
      }
      assertThat(echoClosed.get()).as("the target saw the connection close").isEqualTo(1);
      s.setSoTimeout(300);
      s.getOutputStream().write(2); // accepted by the proxy's socket, and lost
      assertThatThrownBy(() -> s.getInputStream().read())
          .isInstanceOf(SocketTimeoutException.class);
      proxy.pass(); // what was left half-open is reset
      s.setSoTimeout(5_000);
      assertThatThrownBy(
              () -> {
                for (int i = 0; i < 100; i++) {
                  roundTrip(s, 3);
                }
              })
          .isInstanceOf(SocketException.class);
    }
    try (Socket s = connect()) {
      assertThat(roundTrip(s, 4)).isEqualTo(4);
    }
  }

  @Test
  void delayForwardsInOrderAfterTheDelay() throws Exception {
    try (Socket s = connect()) {
      proxy.delay(Duration.ofMillis(200));
      long start = System.nanoTime();
      s.getOutputStream().write(new byte[] {1, 2, 3});
      s.getOutputStream().flush();
      byte[] back = s.getInputStream().readNBytes(3);
      assertThat(back).containsExactly(1, 2, 3);
      assertThat(System.nanoTime() - start)
          .isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(400));
    }
  }

  /**
   * Healing (or shortening the delay) while chunks still wait must not let later bytes overtake
   * them: TCP never reorders a stream, and a reordered one reaches a peer as corrupted frames.
   */
  @Test
  void healingADelayKeepsTheStreamInOrder() throws Exception {
    try (Socket s = connect()) {
      proxy.delay(Duration.ofMillis(300));
      OutputStream out = s.getOutputStream();
      byte[] sent = new byte[200];
      for (int i = 0; i < 100; i++) {
        sent[i] = (byte) i;
        out.write(i);
        out.flush();
      }
      proxy.pass();
      for (int i = 100; i < 200; i++) {
        sent[i] = (byte) i;
        out.write(i);
        out.flush();
      }
      assertThat(s.getInputStream().readNBytes(200)).containsExactly(sent);
    }
  }
}
