package io.zoolander.server.internal.repeater;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.zoolander.server.internal.security.ConnectionLimits;
import io.zoolander.testsupport.ScriptedPeer;
import io.zoolander.wire.BookkeepingState;
import io.zoolander.wire.ErrorCode;
import io.zoolander.wire.Message;
import io.zoolander.wire.Op;
import io.zoolander.wire.PluginEndpoint;
import io.zoolander.wire.Role;
import io.zoolander.wire.WireSettings;
import io.zoolander.wire.internal.Codec;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The repeater's client port bounds what a peer can hold: a handshake deadline, a deadline on a
 * frame left half sent, and a cap on open connections (issue 19, item 9a). Over real sockets,
 * against a repeater whose duplicate is static (no ZooKeeper).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ClientPortLimitsTest {
  private final List<AutoCloseable> closeables = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
  }

  @Test
  void aConnectionThatNeverSaysHelloIsClosedAtTheHandshakeDeadline() throws Exception {
    InetSocketAddress port = start(new ConnectionLimits(300, 60_000, 60_000, 100));
    ScriptedPeer silent = peer(ScriptedPeer.connect("127.0.0.1", port.getPort()));

    Message.Error error = silent.next(Message.Error.class);
    assertThat(error.code()).isEqualTo(ErrorCode.UNEXPECTED_MESSAGE);
    assertThat(error.message()).contains("handshakeTimeoutMs");
    silent.expectClosed();
  }

  @Test
  void aClientThatSaidHelloAndThenNothingStaysConnected() throws Exception {
    // A handshake deadline a loaded machine meets (the repeater does not answer a client's HELLO,
    // so the test cannot wait for it), then quiet for longer than it and many idle periods.
    InetSocketAddress port = start(new ConnectionLimits(2_000, 200, 60_000, 100));
    ScriptedPeer idle = peer(ScriptedPeer.connect("127.0.0.1", port.getPort()));
    idle.send(new Message.Hello(Role.CLIENT, "7", WireSettings.PROTOCOL_VERSION));

    idle.expectNothing(Duration.ofMillis(3_000)); // a quiet client is healthy
    assertThat(idle.isConnected()).isTrue();
  }

  @Test
  void aFrameLeftHalfSentIsDroppedAfterTheIdleTimeout() throws Exception {
    InetSocketAddress port = start(new ConnectionLimits(60_000, 200, 60_000, 100));
    ScriptedPeer stalled = peer(ScriptedPeer.connect("127.0.0.1", port.getPort()));
    stalled.send(new Message.Hello(Role.CLIENT, "7", WireSettings.PROTOCOL_VERSION));
    // A length prefix announcing 64 KiB, then 3 bytes of it, then nothing.
    stalled.sendRaw(new byte[] {0, 1, 0, 0, 1, 2, 3});

    Message.Error error = stalled.next(Message.Error.class);
    assertThat(error.code()).isEqualTo(ErrorCode.MALFORMED_FRAME);
    assertThat(error.message()).contains("frameIdleTimeoutMs");
    stalled.expectClosed();
  }

  @Test
  void aClientTricklingOneFrameIsDroppedAfterTheFrameTimeout() throws Exception {
    // An idle timeout far above the trickle's pace (a loaded machine may pause the trickler for a
    // while: that must not look idle), a frame timeout below it: only the frame timeout can fire.
    InetSocketAddress port = start(new ConnectionLimits(60_000, 10_000, 500, 100));
    ScriptedPeer trickler = peer(ScriptedPeer.connect("127.0.0.1", port.getPort()));
    trickler.send(new Message.Hello(Role.CLIENT, "7", WireSettings.PROTOCOL_VERSION));
    trickler.sendRaw(new byte[] {0, 1, 0, 0}); // a length prefix announcing 64 KiB
    // Then a byte every 50 ms: never quiet for the 10 s idle timeout.
    closeables.add(trickler.trickle(Duration.ofMillis(50)));

    Message.Error error = trickler.next(Message.Error.class);
    assertThat(error.code()).isEqualTo(ErrorCode.MALFORMED_FRAME);
    assertThat(error.message()).contains("frameTimeoutMs");
    trickler.expectClosed();
  }

  @Test
  void aClientWhoseFramesKeepCompletingIsNeverTimedOut() throws Exception {
    // Timeouts far above a frame's 100 ms (a loaded machine may stretch a sleep several times), yet
    // below the whole sequence's 4 s.
    InetSocketAddress port = start(new ConnectionLimits(60_000, 2_000, 2_000, 100));
    ScriptedPeer steady = peer(ScriptedPeer.connect("127.0.0.1", port.getPort()));
    steady.send(new Message.Hello(Role.CLIENT, "7", WireSettings.PROTOCOL_VERSION));
    // Every 100 ms the tail of one WRITE and the head of the next, for 4 s: the connection always
    // holds part of a frame, for twice the 2 s frame timeout, but each frame takes 100 ms.
    byte[] frame = write(1);
    int half = frame.length / 2;
    steady.sendRaw(Arrays.copyOfRange(frame, 0, half));
    for (int requestId = 2; requestId <= 41; requestId++) {
      Thread.sleep(100);
      byte[] next = write(requestId);
      byte[] tailAndHead = new byte[frame.length];
      System.arraycopy(frame, half, tailAndHead, 0, frame.length - half);
      System.arraycopy(next, 0, tailAndHead, frame.length - half, half);
      steady.sendRaw(tailAndHead);
      frame = next;
    }
    steady.sendRaw(Arrays.copyOfRange(frame, half, frame.length));
    steady.expectNothing(Duration.ofMillis(500));
    assertThat(steady.isConnected()).isTrue();
  }

  /** A WRITE of client 7 as a frame: length prefix, then the encoded message. */
  private static byte[] write(long requestId) {
    ByteBuf body = Unpooled.buffer();
    Codec.encode(
        new Message.Write(7, requestId, List.of(Op.setData("/a", new byte[32], -1))), body);
    ByteBuf framed = Unpooled.buffer().writeInt(body.readableBytes()).writeBytes(body);
    byte[] bytes = ByteBufUtil.getBytes(framed);
    body.release();
    framed.release();
    return bytes;
  }

  @Test
  void connectionsBeyondTheCapAreRefusedWithOverloaded() throws Exception {
    InetSocketAddress port = start(new ConnectionLimits(60_000, 60_000, 60_000, 2));
    ScriptedPeer first = peer(ScriptedPeer.connect("127.0.0.1", port.getPort()));
    ScriptedPeer second = peer(ScriptedPeer.connect("127.0.0.1", port.getPort()));
    first.send(new Message.Hello(Role.CLIENT, "1", WireSettings.PROTOCOL_VERSION));
    second.send(new Message.Hello(Role.CLIENT, "2", WireSettings.PROTOCOL_VERSION));

    ScriptedPeer third = peer(ScriptedPeer.connect("127.0.0.1", port.getPort()));
    Message.Error error = third.next(Message.Error.class);
    assertThat(error.code()).isEqualTo(ErrorCode.OVERLOADED);
    assertThat(error.message()).contains("maxConnections");
    third.expectClosed();
    assertThat(first.isConnected()).isTrue();

    first.close(); // a slot frees up, once the repeater has seen the close
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (true) {
      ScriptedPeer fourth = peer(ScriptedPeer.connect("127.0.0.1", port.getPort()));
      fourth.send(new Message.Hello(Role.CLIENT, "4", WireSettings.PROTOCOL_VERSION));
      try {
        fourth.expectNothing(Duration.ofMillis(200)); // a refusal comes at once
        assertThat(fourth.isConnected()).isTrue();
        break;
      } catch (AssertionError refused) {
        fourth.close(); // the close was not seen yet: try again
      }
      assertThat(System.nanoTime())
          .as("a slot frees up when a connection closes")
          .isLessThan(deadline);
    }
  }

  private ScriptedPeer peer(ScriptedPeer peer) {
    closeables.add(peer);
    return peer;
  }

  private InetSocketAddress start(ConnectionLimits limits) throws Exception {
    int unused;
    try (ServerSocket s = new ServerSocket(0)) {
      unused = s.getLocalPort(); // the duplicate's plugin is never reachable: not needed here
    }
    PluginEndpoint endpoint = new PluginEndpoint(1, 1, "127.0.0.1", unused);
    CoreConfig config = TestCoreConfigs.loopback();
    RepeaterCore core =
        new RepeaterCore(
            config, List.of(new StaticDuplicateSource(endpoint, new BookkeepingState(0, 0))), null);
    core.connectionLimits(limits);
    closeables.add(core);
    core.start();
    return core.boundAddress();
  }
}
