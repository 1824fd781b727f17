package io.zoolander.server.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zoolander.testsupport.TestCertificates;
import io.zoolander.wire.Role;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.apache.zookeeper.ZooDefs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The plugin's security entries in zoo.cfg. */
class PluginSecurityTest {
  @TempDir Path dir;

  @Test
  void withoutEntriesEverythingIsOffAsBefore() {
    PluginSecurity s = PluginSecurity.from(Map.of("zoolander.duplicateId", "1"));
    assertThat(s.tls()).isNull();
    assertThat(s.access().isEnabled()).isFalse();
    assertThat(s.protectsZnodes()).isFalse();
    assertThat(s.acl()).isEqualTo(ZooDefs.Ids.OPEN_ACL_UNSAFE);
  }

  @Test
  void everyEntryIsRead() throws Exception {
    TestCertificates ca = TestCertificates.newCa(dir, "cfg");
    TestCertificates.Issued node = ca.issue("node");
    Map<String, String> cfg = new HashMap<>();
    cfg.put("zoolander.tls.enabled", "true");
    cfg.put("zoolander.tls.keyStore", node.jks().toString());
    cfg.put("zoolander.tls.keyStorePassword", new String(TestCertificates.PASSWORD));
    cfg.put("zoolander.tls.trustCertificates", ca.caPem().toString());
    cfg.put("zoolander.tls.requireClientCertificate", "true");
    cfg.put(
        "zoolander.auth.secretsFile",
        TestCertificates.write(dir, "s", "repeater=0123456789abcdef\n").toString());
    cfg.put("zoolander.auth.allow.repeater", "repeater, repeater-standby");
    cfg.put(PluginSecurity.ZOOKEEPER_USER_KEY, "plugin");
    cfg.put(
        PluginSecurity.ZOOKEEPER_PASSWORD_FILE_KEY,
        TestCertificates.write(dir, "p", "pw\n").toString());
    PluginSecurity s = PluginSecurity.from(cfg);
    assertThat(s.tls().hasKey()).isTrue();
    assertThat(s.tls().requireClientCertificate()).isTrue();
    assertThat(s.access().allowed(Role.REPEATER)).containsExactly("repeater", "repeater-standby");
    assertThat(s.access().requires(Role.CLIENT))
        .as("reads stay open unless allow.client is set")
        .isFalse();
    assertThat(s.protectsZnodes()).isTrue();
    assertThat(new String(s.zooKeeperAuth(), StandardCharsets.UTF_8)).isEqualTo("plugin:pw");
    assertThat(s.acl()).isEqualTo(PluginSecurity.aclFor("plugin:pw"));
    assertThat(s.acl())
        .hasSize(2)
        .anySatisfy(a -> assertThat(a.getId()).isEqualTo(ZooDefs.Ids.ANYONE_ID_UNSAFE));
  }

  @Test
  void everyProblemIsNamed() {
    Map<String, String> cfg = new HashMap<>();
    cfg.put("zoolander.tls.enabled", "yes");
    cfg.put("zoolander.tls.keyStore", "/x.p12");
    cfg.put(PluginSecurity.ZOOKEEPER_USER_KEY, "plugin");
    cfg.put("zoolander.auth.allow.repeater", "a=b");
    assertThatThrownBy(() -> PluginSecurity.from(cfg))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("zoolander.tls.enabled must be true or false")
        .hasMessageContaining("zoolander.tls.keyStore is set but zoolander.tls.enabled is not true")
        .hasMessageContaining(PluginSecurity.ZOOKEEPER_PASSWORD_FILE_KEY)
        .hasMessageContaining("zoolander.auth");
    Map<String, String> noTrust = Map.of("zoolander.tls.enabled", "true");
    assertThatThrownBy(() -> PluginSecurity.from(noTrust))
        .hasMessageContaining("zoolander.tls.trustCertificates");
    Map<String, String> missingPassword =
        Map.of(
            PluginSecurity.ZOOKEEPER_USER_KEY,
            "u",
            PluginSecurity.ZOOKEEPER_PASSWORD_FILE_KEY,
            dir.resolve("none").toString());
    assertThatThrownBy(() -> PluginSecurity.from(missingPassword))
        .hasMessageContaining("does not exist");
  }
}
