package io.zoolander.server.internal.security;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.embedded.EmbeddedChannel;
import io.zoolander.wire.AccessControl;
import io.zoolander.wire.ClientIds;
import io.zoolander.wire.Credential;
import io.zoolander.wire.ErrorCode;
import io.zoolander.wire.Message;
import io.zoolander.wire.Op;
import io.zoolander.wire.Role;
import java.util.List;
import org.junit.jupiter.api.Test;

class ServerAuthTest {
  private static final byte[] SECRET = "repeater-secret-0123456789".getBytes(UTF_8);
  private static final AccessControl ACCESS =
      AccessControl.builder().secret("repeater", SECRET).allow(Role.REPEATER, "repeater").build();

  @Test
  void anOpenRoleIsNotChallenged() {
    ServerAuth auth = new ServerAuth(ACCESS, Credential.REPEATER);
    assertThat(auth.begin(Message.Hello.of(Role.CLIENT, "1"))).isNull();
    assertThat(auth.awaiting()).isFalse();
    assertThat(
            new ServerAuth(AccessControl.none(), Credential.REPEATER)
                .begin(Message.Hello.of(Role.REPEATER, "r")))
        .isNull();
  }

  @Test
  void aChallengedRoleMustAnswerWithAnAuthThatVerifies() {
    ServerAuth auth = new ServerAuth(ACCESS, Credential.REPEATER);
    Message.Hello hello = Message.Hello.of(Role.REPEATER, "repeater");
    Message.Challenge challenge = auth.begin(hello);
    assertThat(challenge).isNotNull();
    assertThat(auth.awaiting()).isTrue();
    Message.Auth answer =
        Credential.secret("repeater", SECRET).answer(Role.REPEATER, "repeater", challenge);
    AccessControl.Decision d = auth.finish(new EmbeddedChannel(), answer);
    assertThat(d.ok()).isTrue();
    assertThat(d.principal()).isEqualTo("repeater");
    assertThat(auth.awaiting()).isFalse();
    assertThat(auth.hello()).isEqualTo(hello);
  }

  @Test
  void anAuthenticatedClientMayUseOnlyClientIdsOfItsOwnPrincipal() {
    byte[] mallorySecret = "mallory-secret-0123456789".getBytes(UTF_8);
    AccessControl clients =
        AccessControl.builder()
            .secret("writer-1", SECRET)
            .secret("mallory", mallorySecret)
            .allow(Role.CLIENT, "writer-1", "mallory")
            .build();
    long victim = ClientIds.random("writer-1");
    String victimId = Long.toString(victim);

    ServerAuth own = new ServerAuth(clients, Credential.REPEATER);
    Message.Challenge c1 = own.begin(Message.Hello.of(Role.CLIENT, victimId));
    AccessControl.Decision ok =
        own.finish(
            new EmbeddedChannel(),
            Credential.secret("writer-1", SECRET).answer(Role.CLIENT, victimId, c1));
    assertThat(ok.ok()).isTrue();
    assertThat(ok.principal()).isEqualTo("writer-1");

    // mallory proves she is mallory, but says HELLO with writer-1's client id: refused.
    int[] failures = new int[1];
    ServerAuth stolen = new ServerAuth(clients, Credential.REPEATER, () -> failures[0]++);
    Message.Challenge c2 = stolen.begin(Message.Hello.of(Role.CLIENT, victimId));
    AccessControl.Decision refused =
        stolen.finish(
            new EmbeddedChannel(),
            Credential.secret("mallory", mallorySecret).answer(Role.CLIENT, victimId, c2));
    assertThat(refused.ok()).isFalse();
    assertThat(refused.error()).isEqualTo(ErrorCode.UNAUTHORIZED);
    assertThat(refused.reason()).contains(victimId).contains("mallory");
    assertThat(failures[0]).isEqualTo(1);

    // An id without the principal's tag (the SDK's random ids before binding) is refused too.
    ServerAuth plain = new ServerAuth(clients, Credential.REPEATER);
    String untagged = Long.toString(ClientIds.of("writer-1", 5) ^ (1L << 62));
    Message.Challenge c3 = plain.begin(Message.Hello.of(Role.CLIENT, untagged));
    assertThat(
            plain
                .finish(
                    new EmbeddedChannel(),
                    Credential.secret("writer-1", SECRET).answer(Role.CLIENT, untagged, c3))
                .error())
        .isEqualTo(ErrorCode.UNAUTHORIZED);
  }

  @Test
  void anythingButAuthAfterTheChallengeIsUnauthenticated() {
    ServerAuth auth = new ServerAuth(ACCESS, Credential.REPEATER);
    auth.begin(Message.Hello.of(Role.REPEATER, "repeater"));
    AccessControl.Decision d =
        auth.finish(
            new EmbeddedChannel(),
            new Message.Sequenced(9, 1, 1, 1, List.of(Op.create("/x", new byte[0]))));
    assertThat(d.error()).isEqualTo(ErrorCode.UNAUTHENTICATED);
    assertThat(d.reason()).contains("expected AUTH");
    assertThat(auth.awaiting()).isFalse();
  }

  @Test
  void aCertificateAuthOnAChannelWithoutTlsIsUnauthenticated() {
    ServerAuth auth = new ServerAuth(ACCESS, Credential.REPEATER);
    Message.Challenge challenge = auth.begin(Message.Hello.of(Role.REPEATER, "repeater"));
    AccessControl.Decision d =
        auth.finish(
            new EmbeddedChannel(),
            Credential.certificate().answer(Role.REPEATER, "repeater", challenge));
    assertThat(d.error()).isEqualTo(ErrorCode.UNAUTHENTICATED);
  }
}
