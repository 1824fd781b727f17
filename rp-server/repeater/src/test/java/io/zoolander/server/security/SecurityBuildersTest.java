package io.zoolander.server.security;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zoolander.client.ZoolanderClient;
import io.zoolander.server.repeater.Repeater;
import io.zoolander.testsupport.TestCertificates;
import io.zoolander.wire.AccessControl;
import io.zoolander.wire.Credential;
import io.zoolander.wire.Role;
import io.zoolander.wire.TlsSettings;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The builders of the repeater and the client refuse security settings that cannot work. */
class SecurityBuildersTest {
  @TempDir Path dir;

  @Test
  void theRepeaterNeedsAKeyAndAuthenticatesOnlyClients() throws Exception {
    TlsSettings trustOnly =
        TlsSettings.builder().trustPem(TestCertificates.newCa(dir, "b").caPem()).build();
    assertThatThrownBy(() -> Repeater.builder().tls(trustOnly))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("tls");
    assertThatThrownBy(
            () ->
                Repeater.builder()
                    .access(AccessControl.builder().allow(Role.REPEATER, "r").build()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("only clients");
    assertThatThrownBy(
            () ->
                Repeater.builder()
                    .duplicate(1, "127.0.0.1:2181")
                    .credential(Credential.certificate())
                    .build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("credential");
    assertThatThrownBy(() -> Repeater.builder().tls(null)).isInstanceOf(NullPointerException.class);
  }

  @Test
  void aCertificateCredentialNeedsAClientKey() throws Exception {
    TlsSettings trustOnly =
        TlsSettings.builder().trustPem(TestCertificates.newCa(dir, "c").caPem()).build();
    assertThatThrownBy(
            () ->
                ZoolanderClient.builder()
                    .repeater("127.0.0.1", 1)
                    .duplicateAt("127.0.0.1", 2)
                    .tls(trustOnly)
                    .credential(Credential.certificate())
                    .build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("credential");
    assertThatThrownBy(() -> ZoolanderClient.builder().credential(null))
        .isInstanceOf(NullPointerException.class);
  }
}
