package io.zoolander.server.internal.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import io.zoolander.server.internal.security.ConnectionLimits;
import io.zoolander.server.internal.security.LinkSecurity;
import io.zoolander.server.plugin.ZoolanderPluginView.Snapshot;
import io.zoolander.testsupport.ScriptedPeer;
import io.zoolander.wire.DuplicateState;
import io.zoolander.wire.ErrorCode;
import io.zoolander.wire.Message;
import io.zoolander.wire.Role;
import io.zoolander.wire.WireSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The plugin's port, inside the ZooKeeper leader's JVM, bounds what a peer can hold there: a
 * handshake deadline, a deadline on a frame left half sent, a cap on open connections (issue 19,
 * item 9a). Real sockets against the plugin's server alone (no messages past HELLO reach the
 * applier).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PluginServerLimitsTest {
  private final List<AutoCloseable> closeables = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
  }

  @Test
  void aConnectionThatNeverSaysHelloIsClosedAtTheHandshakeDeadline() throws Exception {
    int port = start(new ConnectionLimits(300, 60_000, 60_000, 100));
    ScriptedPeer silent = peer(ScriptedPeer.connect("127.0.0.1", port));

    Message.Error error = silent.next(Message.Error.class);
    assertThat(error.code()).isEqualTo(ErrorCode.UNEXPECTED_MESSAGE);
    assertThat(error.message()).contains("handshakeTimeoutMs");
    silent.expectClosed();
  }

  @Test
  void aHalfSentFrameIsDroppedButAQuietClientStays() throws Exception {
    // The handshake deadline is not the subject: long enough for a loaded machine.
    int port = start(new ConnectionLimits(2_000, 200, 60_000, 100));
    ScriptedPeer quiet = peer(ScriptedPeer.connect("127.0.0.1", port));
    quiet.send(new Message.Hello(Role.CLIENT, "7", WireSettings.PROTOCOL_VERSION));
    quiet.next(Message.Status.class);
    ScriptedPeer stalled = peer(ScriptedPeer.connect("127.0.0.1", port));
    stalled.send(new Message.Hello(Role.CLIENT, "8", WireSettings.PROTOCOL_VERSION));
    stalled.next(Message.Status.class);
    stalled.sendRaw(new byte[] {0, 16, 0, 0, 1, 2, 3}); // 3 bytes of a 1 MiB frame, then nothing

    Message.Error error = stalled.next(Message.Error.class);
    assertThat(error.code()).isEqualTo(ErrorCode.MALFORMED_FRAME);
    stalled.expectClosed();
    quiet.expectNothing(Duration.ofMillis(600));
    assertThat(quiet.isConnected()).isTrue();
  }

  @Test
  void aPeerTricklingOneFrameIsDroppedAfterTheFrameTimeout() throws Exception {
    // An idle timeout far above the trickle's pace (a loaded machine may pause the trickler for a
    // while: that must not look idle), a frame timeout below it: only the frame timeout can fire.
    int port = start(new ConnectionLimits(60_000, 10_000, 500, 100));
    ScriptedPeer trickler = peer(ScriptedPeer.connect("127.0.0.1", port));
    trickler.send(new Message.Hello(Role.CLIENT, "8", WireSettings.PROTOCOL_VERSION));
    trickler.next(Message.Status.class);
    trickler.sendRaw(new byte[] {0, 16, 0, 0}); // a length prefix announcing 1 MiB
    // Then a byte every 50 ms: never quiet for the 10 s idle timeout.
    closeables.add(trickler.trickle(Duration.ofMillis(50)));

    Message.Error error = trickler.next(Message.Error.class);
    assertThat(error.code()).isEqualTo(ErrorCode.MALFORMED_FRAME);
    assertThat(error.message()).contains("frameTimeoutMs");
    trickler.expectClosed();
  }

  @Test
  void connectionsBeyondTheCapAreRefusedWithOverloaded() throws Exception {
    int port = start(new ConnectionLimits(60_000, 60_000, 60_000, 1));
    ScriptedPeer first = peer(ScriptedPeer.connect("127.0.0.1", port));
    first.send(new Message.Hello(Role.CLIENT, "1", WireSettings.PROTOCOL_VERSION));
    first.next(Message.Status.class);

    ScriptedPeer second = peer(ScriptedPeer.connect("127.0.0.1", port));
    Message.Error error = second.next(Message.Error.class);
    assertThat(error.code()).isEqualTo(ErrorCode.OVERLOADED);
    assertThat(error.message()).contains("maxConnections");
    second.expectClosed();
    assertThat(first.isConnected()).isTrue();
  }

  private ScriptedPeer peer(ScriptedPeer peer) {
    closeables.add(peer);
    return peer;
  }

  private int start(ConnectionLimits limits) throws Exception {
    PluginServer server =
        PluginServer.start(
            "127.0.0.1",
            0,
            5,
            () -> new Snapshot(1, 0, DuplicateState.ACTIVE),
            null, // nothing in these tests goes past HELLO
            new Peers(),
            LinkSecurity.NONE,
            PluginMeters.none(),
            limits);
    closeables.add(server);
    return server.localAddress().getPort();
  }
}
