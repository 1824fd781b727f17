package io.zoolander.server.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zoolander.testsupport.TestCertificates;
import io.zoolander.wire.TlsSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Building {@link TlsSettings} from every supported kind of file, and its errors. */
class TlsSettingsTest {
  @TempDir static Path dir;
  private static TestCertificates ca;
  private static TestCertificates.Issued issued;

  @BeforeAll
  static void certificates() throws Exception {
    ca = TestCertificates.newCa(dir, "unit");
    issued = ca.issue("node");
  }

  @Test
  void keysAndTrustComeFromPemFilesOrStores() throws Exception {
    TlsSettings pem =
        TlsSettings.builder()
            .keyCertChainPem(issued.certificate(), issued.key())
            .trustPem(ca.caPem())
            .requireClientCertificate(true)
            .build();
    assertThat(pem.hasKey()).isTrue();
    assertThat(pem.requireClientCertificate()).isTrue();
    assertThat(pem.verifyHostname()).isTrue();
    assertThat(
            TlsSettings.builder()
                .keyCertChainPem(
                    issued.certificate(), issued.encryptedKey(), TestCertificates.PASSWORD)
                .trustPem(ca.caPem())
                .build()
                .hasKey())
        .isTrue();
    assertThat(
            TlsSettings.builder()
                .keyStore(issued.pkcs12(), TestCertificates.PASSWORD)
                .trustStore(ca.trustStore("PKCS12"), TestCertificates.PASSWORD)
                .build()
                .hasKey())
        .isTrue();
    assertThat(
            TlsSettings.builder()
                .keyStore(issued.jks(), TestCertificates.PASSWORD)
                .trustStore(ca.trustStore("JKS"), TestCertificates.PASSWORD, "jks")
                .build()
                .hasKey())
        .isTrue();
    TlsSettings trustOnly =
        TlsSettings.builder().trustPem(ca.caPem()).verifyHostname(false).build();
    assertThat(trustOnly.hasKey()).isFalse();
    assertThat(trustOnly.verifyHostname()).isFalse();
  }

  @Test
  void wrongPasswordsAreNamed() {
    char[] wrong = "wrong".toCharArray();
    assertThatThrownBy(
            () ->
                TlsSettings.builder().keyStore(issued.pkcs12(), wrong).trustPem(ca.caPem()).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("keyStorePassword")
        .hasMessageContaining(issued.pkcs12().toString());
    assertThatThrownBy(() -> TlsSettings.builder().trustStore(ca.trustStore("JKS"), wrong).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("trustStorePassword");
    assertThatThrownBy(
            () ->
                TlsSettings.builder()
                    .keyCertChainPem(issued.certificate(), issued.encryptedKey(), wrong)
                    .trustPem(ca.caPem())
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("privateKeyPassword");
    assertThatThrownBy(
            () ->
                TlsSettings.builder()
                    .keyCertChainPem(issued.certificate(), issued.encryptedKey())
                    .trustPem(ca.caPem())
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("password is required");
  }

  @Test
  void missingAndUnreadableFilesAreNamed() throws Exception {
    Path missing = dir.resolve("missing.pem");
    assertThatThrownBy(() -> TlsSettings.builder().trustPem(missing).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("trustCertificates")
        .hasMessageContaining("does not exist");
    assertThatThrownBy(
            () ->
                TlsSettings.builder()
                    .keyCertChainPem(missing, issued.key())
                    .trustPem(ca.caPem())
                    .build())
        .hasMessageContaining("certificateChain")
        .hasMessageContaining("does not exist");
    assertThatThrownBy(
            () ->
                TlsSettings.builder()
                    .keyCertChainPem(issued.certificate(), dir)
                    .trustPem(ca.caPem())
                    .build())
        .hasMessageContaining("privateKey")
        .hasMessageContaining("not a readable file");
    Path garbage = Files.writeString(dir.resolve("garbage.pem"), "not a certificate");
    assertThatThrownBy(() -> TlsSettings.builder().trustPem(garbage).build())
        .hasMessageContaining("trustCertificates")
        .hasMessageContaining("garbage.pem");
    assertThatThrownBy(
            () ->
                TlsSettings.builder()
                    .keyCertChainPem(issued.certificate(), garbage)
                    .trustPem(ca.caPem())
                    .build())
        .hasMessageContaining("privateKey")
        .hasMessageContaining("PKCS#8");
    assertThatThrownBy(
            () ->
                TlsSettings.builder()
                    .keyStore(garbage, TestCertificates.PASSWORD)
                    .trustPem(ca.caPem())
                    .build())
        .hasMessageContaining("keyStore")
        .hasMessageContaining("garbage.pem");
    assertThatThrownBy(
            () ->
                TlsSettings.builder()
                    .keyStore(ca.trustStore("PKCS12"), TestCertificates.PASSWORD)
                    .trustPem(ca.caPem())
                    .build())
        .hasMessageContaining("no private key");
  }

  @Test
  void incompleteSettingsAreRefused() {
    assertThatThrownBy(() -> TlsSettings.builder().build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("trust");
    assertThatThrownBy(
            () -> TlsSettings.builder().trustPem(ca.caPem()).requireClientCertificate(true).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("key");
    assertThatThrownBy(
            () -> TlsSettings.builder().keyStore(issued.pkcs12(), TestCertificates.PASSWORD, "PEM"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("keyStoreType");
    assertThatThrownBy(() -> TlsSettings.builder().handshakeTimeoutMs(0))
        .hasMessageContaining("handshakeTimeoutMs");
    assertThatThrownBy(() -> TlsSettings.builder().trustPem(null))
        .isInstanceOf(NullPointerException.class);
  }
}
