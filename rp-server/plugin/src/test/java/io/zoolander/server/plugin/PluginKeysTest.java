package io.zoolander.server.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import io.zoolander.server.ZoolanderPeerMain;
import io.zoolander.server.security.PluginSecurity;
import io.zoolander.server.settings.Setting;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The plugin's descriptors against the keys and defaults {@link ZoolanderPluginConfig} reads. */
class PluginKeysTest {

  @Test
  void everyKeyThePluginReadsIsDescribedOnce() throws Exception {
    List<String> keys = new ArrayList<>();
    for (Class<?> type : List.of(ZoolanderPluginConfig.class, PluginSecurity.class)) {
      for (Field f : type.getFields()) {
        if (Modifier.isStatic(f.getModifiers())
            && f.getType() == String.class
            && f.getName().endsWith("_KEY")) {
          keys.add((String) f.get(null));
        }
      }
    }
    assertThat(keys).hasSizeGreaterThan(10);
    assertThat(PluginKeys.ALL.settings()).extracting(Setting::key).doesNotHaveDuplicates();
    assertThat(keys).allSatisfy(k -> assertThat(PluginKeys.ALL.isKnown(k)).as(k).isTrue());
    assertThat(PluginKeys.ALL.settings())
        .extracting(Setting::key)
        .contains(ZoolanderPeerMain.PLUGIN_FACTORY_KEY, "zoolander.tls.enabled")
        .allSatisfy(k -> assertThat(k).startsWith(ZoolanderPeerMain.PROPERTY_PREFIX));
    assertThat(new ZoolanderPluginFactory().settings()).isEqualTo(PluginKeys.ALL.settings());
  }

  @Test
  void theDescriptorsDefaultsAreTheConfigsDefaults() {
    ZoolanderPluginConfig c = ZoolanderPluginConfig.from(Map.of("zoolander.duplicateId", "3"));
    assertThat(c.znodes().basePath()).isEqualTo(PluginKeys.BASE_PATH.defaultValue().orElseThrow());
    assertThat(c.host()).isEqualTo(PluginKeys.HOST.defaultValue().orElseThrow());
    assertThat((long) c.port()).isEqualTo(PluginKeys.PORT.defaultValue().orElseThrow());
    assertThat((long) c.sessionTimeoutMs())
        .isEqualTo(PluginKeys.SESSION_TIMEOUT_MS.defaultValue().orElseThrow());
    assertThat(c.connectTimeoutMs())
        .isEqualTo(PluginKeys.CONNECT_TIMEOUT_MS.defaultValue().orElseThrow());
    assertThat((long) c.gapBufferMessages())
        .isEqualTo(PluginKeys.GAP_BUFFER_MESSAGES.defaultValue().orElseThrow());
    assertThat(c.retransmitTimeoutMs())
        .isEqualTo(PluginKeys.RETRANSMIT_TIMEOUT_MS.defaultValue().orElseThrow());
    assertThat(c.readWaitMs()).isEqualTo(PluginKeys.READ_WAIT_MS.defaultValue().orElseThrow());
    assertThat((long) c.maxWaitingReads())
        .isEqualTo(PluginKeys.MAX_WAITING_READS.defaultValue().orElseThrow());
    assertThat((long) c.maxQueuedMessages())
        .isEqualTo(PluginKeys.MAX_QUEUED_MESSAGES.defaultValue().orElseThrow());
    assertThat((long) c.advertisedPort())
        .isEqualTo(PluginKeys.ADVERTISED_PORT.defaultValue().orElseThrow());
    assertThat((long) c.recentWritesMessages())
        .isEqualTo(PluginKeys.RECENT_WRITES_MESSAGES.defaultValue().orElseThrow());
    assertThat((long) c.maxBatchBytes())
        .isEqualTo(PluginKeys.MAX_BATCH_BYTES.defaultValue().orElseThrow());
  }
}
