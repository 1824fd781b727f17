package io.zoolander.server.internal.repeater;

import static org.assertj.core.api.Assertions.assertThat;

import io.zoolander.client.ZoolanderClient;
import io.zoolander.server.internal.security.LinkSecurity;
import io.zoolander.testsupport.ScriptedPeer;
import io.zoolander.wire.AccessControl;
import io.zoolander.wire.BookkeepingState;
import io.zoolander.wire.Credential;
import io.zoolander.wire.ErrorCode;
import io.zoolander.wire.Message;
import io.zoolander.wire.Op;
import io.zoolander.wire.PluginEndpoint;
import io.zoolander.wire.Role;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.zookeeper.CreateMode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 19, item 9d: a proof is bound to the server it was made for. A rogue server posing as a
 * duplicate's plugin relays the repeater's CHALLENGE to a real client that connects to it, and the
 * client's answer back to the repeater, to be let in as that client and write in its name: the
 * repeater must not accept it.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ProofRelayTest {
  private static final byte[] SECRET =
      "writer-1-secret-0123456789".getBytes(StandardCharsets.UTF_8);

  @Test
  void aProofRelayedFromAPluginsChallengeDoesNotAuthenticateAtTheRepeater() throws Exception {
    AccessControl access =
        AccessControl.builder().secret("writer-1", SECRET).allow(Role.CLIENT, "writer-1").build();
    try (RepeaterCore repeater = startRepeater(access);
        ScriptedPeer rogue = ScriptedPeer.listen(); // where the client believes a plugin is
        ScriptedPeer attacker =
            ScriptedPeer.connect("127.0.0.1", repeater.boundAddress().getPort())) {
      CompletableFuture<Message.Auth> relayed = new CompletableFuture<>();
      AtomicBoolean saidHello = new AtomicBoolean();
      rogue.on(
          Message.Hello.class,
          (p, m) -> {
            // The client's (first) HELLO, to the rogue "plugin": say it to the repeater, pass its
            // CHALLENGE on as the rogue's own.
            if (!saidHello.getAndSet(true)) {
              attacker.post(m);
            }
          });
      attacker.on(Message.Challenge.class, (p, m) -> rogue.post(m));
      rogue.on(Message.Auth.class, (p, m) -> relayed.complete((Message.Auth) m));

      CompletableFuture<ZoolanderClient> victim =
          CompletableFuture.supplyAsync(
              () ->
                  ZoolanderClient.builder()
                      .repeater("127.0.0.1", unusedPort()) // the victim writes nothing here
                      .duplicateAt("127.0.0.1", rogue.port())
                      .credential(Credential.secret("writer-1", SECRET))
                      .connectTimeout(Duration.ofSeconds(5))
                      .build());
      try {
        Message.Hello hello = rogue.nextOf(Message.Hello.class);
        Message.Auth auth;
        try {
          auth = relayed.get(3, TimeUnit.SECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
          auth = new Message.Auth("writer-1", new byte[32]); // the client would not answer
        }
        attacker.send(auth);
        // Posted, not sent: the repeater may refuse the proof and close before the write is out,
        // which is as good an answer as refusing the write.
        attacker.post(
            new Message.Write(
                Long.parseLong(hello.id()),
                1,
                List.of(new Op.Create("/stolen", new byte[0], CreateMode.PERSISTENT))));

        Message.Error refused = attacker.nextOf(Message.Error.class);
        assertThat(refused.code()).isEqualTo(ErrorCode.UNAUTHENTICATED);
        attacker.expectClosed();
      } finally {
        victim
            .handle((c, e) -> c)
            .thenAccept(
                c -> {
                  if (c != null) {
                    c.close();
                  }
                });
      }
    }
  }

  private static int unusedPort() {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static RepeaterCore startRepeater(AccessControl access) throws Exception {
    PluginEndpoint endpoint = new PluginEndpoint(1, 1, "127.0.0.1", unusedPort());
    CoreConfig config = TestCoreConfigs.loopback();
    RepeaterCore core =
        new RepeaterCore(
            config,
            List.of(new StaticDuplicateSource(endpoint, new BookkeepingState(0, 0))),
            null,
            new LinkSecurity(null, access, null));
    try {
      core.start();
    } catch (Exception e) {
      core.close();
      throw e;
    }
    InetSocketAddress unusedAddress = core.boundAddress();
    assertThat(unusedAddress.getPort()).isPositive();
    return core;
  }
}
