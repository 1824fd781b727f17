package io.zoolander.server.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zoolander.testsupport.TestCertificates;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The security keys of the repeater's properties file. */
class RepeaterSecurityConfigTest {
  @TempDir Path dir;

  @Test
  void securityKeysAreReadValidatedAndListedInTheHelp() throws Exception {
    TestCertificates ca = TestCertificates.newCa(dir, "repeater");
    TestCertificates.Issued node = ca.issue("repeater");
    Path secrets = TestCertificates.write(dir, "secrets", "writer-1=0123456789abcdef0123\n");
    Path secret = TestCertificates.write(dir, "secret", "0123456789abcdef-repeater\n");
    RepeaterConfig c =
        RepeaterConfig.parse(
            List.of(
                "duplicate.1=127.0.0.1:2181",
                "tls.enabled=true",
                "tls.certificate=" + node.certificate(),
                "tls.privateKey=" + node.key(),
                "tls.trustCertificates=" + ca.caPem(),
                "tls.requireClientCertificate=true",
                "auth.secretsFile=" + secrets,
                "auth.allow.client=writer-1,writer-cert",
                "auth.principal=repeater",
                "auth.secretFile=" + secret),
            "repeater.properties");
    assertThat(c.security()).containsEntry("auth.allow.client", "writer-1,writer-cert").hasSize(9);
    assertThat(c.toBuilder().build()).isNotNull();
    assertThat(RepeaterCommand.settingsHelp())
        .anyMatch(l -> l.contains("tls.keyStore="))
        .anyMatch(l -> l.contains("auth.allow.client="))
        .anyMatch(l -> l.contains("auth.certificate="));

    assertThat(RepeaterConfig.parse(List.of("duplicate.1=127.0.0.1:2181"), "plain").security())
        .isEmpty();
  }

  @Test
  void invalidSecurityEntriesAreNamed() throws Exception {
    assertThatThrownBy(
            () ->
                RepeaterConfig.parse(
                    List.of(
                        "duplicate.1=127.0.0.1:2181",
                        "tls.enabled=true",
                        "tls.trustCertificates=" + dir.resolve("none.pem")),
                    "r.properties"))
        .isInstanceOf(CliException.class)
        .hasMessageContaining("r.properties")
        .hasMessageContaining("does not exist");
    assertThatThrownBy(
            () ->
                RepeaterConfig.parse(
                    List.of("duplicate.1=127.0.0.1:2181", "auth.principal=repeater"),
                    "r.properties"))
        .hasMessageContaining("auth.secretFile");
    assertThatThrownBy(
            () ->
                RepeaterConfig.parse(
                    List.of("duplicate.1=127.0.0.1:2181", "auth.allow.repeater=x"), "r.properties"))
        .hasMessageContaining("unknown key 'auth.allow.repeater'");
  }

  @Test
  void theZooKeeperIdentityGoesTogetherAndIsRead() throws Exception {
    Path password = TestCertificates.write(dir, "zk-password", "plugin-password\n");
    RepeaterConfig c =
        RepeaterConfig.parse(
            List.of(
                "duplicate.1=127.0.0.1:2181",
                "zookeeper.user=zoolander-plugin",
                "zookeeper.passwordFile=" + password),
            "repeater.properties");
    assertThat(c.security()).containsEntry("zookeeper.user", "zoolander-plugin").hasSize(2);
    assertThat(c.toBuilder().build()).isNotNull();
    assertThat(RepeaterCommand.settingsHelp()).anyMatch(l -> l.contains("zookeeper.passwordFile="));
    assertThatThrownBy(
            () ->
                RepeaterConfig.parse(
                    List.of("duplicate.1=127.0.0.1:2181", "zookeeper.user=u"), "r.properties"))
        .hasMessageContaining("zookeeper.user and zookeeper.passwordFile go together");
    assertThatThrownBy(
            () ->
                RepeaterConfig.parse(
                    List.of(
                        "duplicate.1=127.0.0.1:2181",
                        "zookeeper.user=u",
                        "zookeeper.passwordFile=" + dir.resolve("none")),
                    "r.properties"))
        .hasMessageContaining("does not exist");
  }
}
