package io.zoolander.wire;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AccessControlTest {
  private static final byte[] SECRET = "writer-secret-0123456789".getBytes(UTF_8);
  private static final Message.Hello HELLO = Message.Hello.of(Role.CLIENT, "17");

  private final AccessControl access =
      AccessControl.builder()
          .secret("writer-1", SECRET)
          .secret("reader-1", "reader-secret-0123456789".getBytes(UTF_8))
          .allow(Role.CLIENT, "writer-1", "cert-writer")
          .build();

  @Test
  void aProofMadeWithTheSharedSecretVerifies() {
    Message.Challenge challenge = access.challenge(Credential.REPEATER);
    Message.Auth auth = Credential.secret("writer-1", SECRET).answer(Role.CLIENT, "17", challenge);
    AccessControl.Decision d = access.verify(HELLO, challenge, auth, Optional.empty());
    assertThat(d.ok()).isTrue();
    assertThat(d.principal()).isEqualTo("writer-1");
  }

  @Test
  void aProofDoesNotVerifyWithAnotherSecretNonceRoleOrId() {
    Message.Challenge challenge = access.challenge(Credential.REPEATER);
    Credential wrong = Credential.secret("writer-1", "another-secret-0123456789".getBytes(UTF_8));
    assertThat(
            access
                .verify(
                    HELLO, challenge, wrong.answer(Role.CLIENT, "17", challenge), Optional.empty())
                .error())
        .isEqualTo(ErrorCode.UNAUTHENTICATED);
    Credential right = Credential.secret("writer-1", SECRET);
    Message.Auth replayed =
        right.answer(
            Role.CLIENT, "17", access.challenge(Credential.REPEATER)); // another connection's nonce
    assertThat(access.verify(HELLO, challenge, replayed, Optional.empty()).error())
        .isEqualTo(ErrorCode.UNAUTHENTICATED);
    Message.Auth otherId = right.answer(Role.CLIENT, "18", challenge);
    assertThat(access.verify(HELLO, challenge, otherId, Optional.empty()).error())
        .isEqualTo(ErrorCode.UNAUTHENTICATED);
    Message.Auth otherRole = right.answer(Role.REPEATER, "17", challenge);
    assertThat(access.verify(HELLO, challenge, otherRole, Optional.empty()).error())
        .isEqualTo(ErrorCode.UNAUTHENTICATED);
  }

  @Test
  void aProofIsBoundToTheServerItWasMadeForAndAPeerAnswersOnlyTheServerItDialled() {
    Credential right = Credential.secret("writer-1", SECRET);
    // A plugin's challenge, relayed to the repeater under the repeater's nonce: the proof names
    // the plugin, and the repeater does not accept it.
    Message.Challenge atRepeater = access.challenge(Credential.REPEATER);
    Message.Challenge asIfFromPlugin =
        new Message.Challenge(atRepeater.nonce(), Credential.duplicate(1));
    Message.Auth madeForPlugin = right.answer(Role.CLIENT, "17", asIfFromPlugin);
    assertThat(access.verify(HELLO, atRepeater, madeForPlugin, Optional.empty()).error())
        .isEqualTo(ErrorCode.UNAUTHENTICATED);
    Message.Challenge atTwo = access.challenge(Credential.duplicate(2));
    Message.Auth madeForOne =
        right.answer(
            Role.CLIENT, "17", new Message.Challenge(atTwo.nonce(), Credential.duplicate(1)));
    assertThat(access.verify(HELLO, atTwo, madeForOne, Optional.empty()).error())
        .isEqualTo(ErrorCode.UNAUTHENTICATED);

    // A peer answers only the server it connected to.
    assertThatThrownBy(() -> right.answer(Role.CLIENT, "17", Credential.duplicate(1), atRepeater))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("relayed");
    assertThatThrownBy(() -> right.answer(Role.CLIENT, "17", Credential.ANY_DUPLICATE, atRepeater))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> right.answer(Role.CLIENT, "17", Credential.duplicate(1), atTwo))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(
            access
                .verify(
                    HELLO,
                    atTwo,
                    right.answer(Role.CLIENT, "17", Credential.ANY_DUPLICATE, atTwo),
                    Optional.empty())
                .ok())
        .isTrue();
    assertThat(
            access
                .verify(
                    HELLO,
                    atRepeater,
                    right.answer(Role.CLIENT, "17", Credential.REPEATER, atRepeater),
                    Optional.empty())
                .ok())
        .isTrue();
  }

  @Test
  void anUnknownPrincipalIsUnauthenticatedAndAKnownOneNotOnTheListUnauthorized() {
    Message.Challenge challenge = access.challenge(Credential.REPEATER);
    Message.Auth unknown = Credential.secret("nobody", SECRET).answer(Role.CLIENT, "17", challenge);
    assertThat(access.verify(HELLO, challenge, unknown, Optional.empty()).error())
        .isEqualTo(ErrorCode.UNAUTHENTICATED);
    Message.Auth reader =
        Credential.secret("reader-1", "reader-secret-0123456789".getBytes(UTF_8))
            .answer(Role.CLIENT, "17", challenge);
    AccessControl.Decision d = access.verify(HELLO, challenge, reader, Optional.empty());
    assertThat(d.error()).isEqualTo(ErrorCode.UNAUTHORIZED);
    assertThat(d.reason()).contains("reader-1").contains("CLIENT");
  }

  @Test
  void aCertificateAuthTakesThePrincipalFromTheVerifiedCertificate() {
    Message.Challenge challenge = access.challenge(Credential.REPEATER);
    Message.Auth auth = Credential.certificate().answer(Role.CLIENT, "17", challenge);
    assertThat(auth.byCertificate()).isTrue();
    assertThat(access.verify(HELLO, challenge, auth, Optional.of("cert-writer")).principal())
        .isEqualTo("cert-writer");
    assertThat(access.verify(HELLO, challenge, auth, Optional.of("cert-other")).error())
        .isEqualTo(ErrorCode.UNAUTHORIZED);
    assertThat(access.verify(HELLO, challenge, auth, Optional.empty()).error())
        .isEqualTo(ErrorCode.UNAUTHENTICATED);
  }

  @Test
  void onlyAllowListedRolesAuthenticate() {
    assertThat(access.requires(Role.CLIENT)).isTrue();
    assertThat(access.requires(Role.REPEATER)).isFalse();
    assertThat(AccessControl.none().isEnabled()).isFalse();
    assertThat(access.challenge(Credential.REPEATER).nonce())
        .isNotEqualTo(access.challenge(Credential.REPEATER).nonce());
  }

  @Test
  void secretsFileIsReadAndItsErrorsNameTheLineButNeverTheSecret(@TempDir Path dir)
      throws Exception {
    Path file =
        Files.writeString(
            dir.resolve("secrets"), "# comment\n\nwriter-1=" + new String(SECRET, UTF_8) + "\n");
    AccessControl fromFile =
        AccessControl.builder().secretsFile(file).allow(Role.CLIENT, "writer-1").build();
    Message.Challenge challenge = fromFile.challenge(Credential.REPEATER);
    assertThat(
            fromFile
                .verify(
                    HELLO,
                    challenge,
                    Credential.secret("writer-1", SECRET).answer(Role.CLIENT, "17", challenge),
                    Optional.empty())
                .ok())
        .isTrue();

    Path shortSecret = Files.writeString(dir.resolve("short"), "writer-1=tooShort\n");
    assertThatThrownBy(() -> AccessControl.builder().secretsFile(shortSecret))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("line 1")
        .hasMessageNotContaining("tooShort");
    Path noEquals = Files.writeString(dir.resolve("bad"), "writer-1\n");
    assertThatThrownBy(() -> AccessControl.builder().secretsFile(noEquals))
        .hasMessageContaining("line 1")
        .hasMessageContaining("principal=secret");
    assertThatThrownBy(() -> AccessControl.builder().secretsFile(dir.resolve("missing")))
        .hasMessageContaining("does not exist");
  }

  @Test
  void buildersValidateEveryArgument(@TempDir Path dir) throws Exception {
    assertThatThrownBy(() -> Credential.secret("w", new byte[15]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("secret");
    assertThatThrownBy(() -> Credential.secret("a,b", SECRET)).hasMessageContaining("principal");
    assertThatThrownBy(() -> Credential.secret(" ", SECRET)).hasMessageContaining("principal");
    assertThatThrownBy(() -> Credential.secret(null, SECRET))
        .isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> AccessControl.builder().allow(Role.CLIENT))
        .hasMessageContaining("at least one");
    assertThatThrownBy(() -> AccessControl.builder().secret("w", SECRET).secret("w", SECRET))
        .hasMessageContaining("already");
    assertThatThrownBy(() -> Credential.secretFile("w", dir.resolve("none")))
        .hasMessageContaining("does not exist");
    Path withNewline = Files.writeString(dir.resolve("secret"), new String(SECRET, UTF_8) + "\r\n");
    Message.Challenge c = access.challenge(Credential.REPEATER);
    assertThat(Credential.secretFile("writer-1", withNewline).answer(Role.CLIENT, "17", c))
        .isEqualTo(Credential.secret("writer-1", SECRET).answer(Role.CLIENT, "17", c));
    assertThat(Credential.secret("writer-1", SECRET).toString())
        .doesNotContain(new String(SECRET, UTF_8));
  }

  @Test
  void authMessagesAreValidated() {
    assertThatThrownBy(() -> new Message.Auth("w", new byte[31])).hasMessageContaining("proof");
    assertThatThrownBy(() -> new Message.Auth("", new byte[32])).hasMessageContaining("proof");
    assertThatThrownBy(() -> new Message.Auth("w", new byte[0])).hasMessageContaining("proof");
    assertThatThrownBy(() -> new Message.Challenge(new byte[16], Credential.REPEATER))
        .hasMessageContaining("nonce");
  }

  @Test
  void twoClientPrincipalsWithTheSameClientIdTagAreRefused() {
    String first = "writer-1";
    String twin = null;
    for (int i = 0; twin == null; i++) {
      if (ClientIds.tag("w" + i) == ClientIds.tag(first)) {
        twin = "w" + i;
      }
    }
    String other = twin;
    assertThatThrownBy(() -> AccessControl.builder().allow(Role.CLIENT, first, other).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(first)
        .hasMessageContaining(other)
        .hasMessageContaining("client id");
    // Only client principals own client ids.
    assertThat(AccessControl.builder().allow(Role.REPEATER, first, other).build().isEnabled())
        .isTrue();
  }
}
