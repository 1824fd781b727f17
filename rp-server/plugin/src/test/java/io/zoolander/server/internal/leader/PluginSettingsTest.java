package io.zoolander.server.internal.leader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zoolander.server.LeaderPlugin;
import io.zoolander.server.LeaderPluginFactory;
import io.zoolander.server.ZoolanderPeerMain;
import io.zoolander.server.settings.Setting;
import io.zoolander.server.settings.SettingException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.zookeeper.server.quorum.QuorumPeerConfig.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Reading the Zoolander entries of zoo.cfg. */
class PluginSettingsTest {

  @TempDir Path dir;

  /** A factory the tests name by class. */
  public static final class NoopFactory implements LeaderPluginFactory {
    @Override
    public LeaderPlugin newPlugin() {
      return null;
    }
  }

  /** A factory that declares the one key its plugin reads. */
  public static final class DeclaringFactory implements LeaderPluginFactory {
    static final Setting<Long> LIMIT =
        Setting.integer("zoolander.custom.limit").defaultValue(1L).doc("A limit.").build();

    @Override
    public LeaderPlugin newPlugin() {
      return null;
    }

    @Override
    public List<Setting<?>> settings() {
      return List.of(LIMIT);
    }
  }

  @Test
  void aFactoryThatDeclaresItsSettingsHasEveryOtherKeyRefused() throws Exception {
    String factory = DeclaringFactory.class.getName();
    PluginSettings accepted =
        PluginSettings.of(
            Map.of(
                ZoolanderPeerMain.PLUGIN_FACTORY_KEY,
                factory,
                ZoolanderPeerMain.STOP_TIMEOUT_KEY,
                "1500",
                "zoolander.custom.limit",
                "3"),
            dir);
    assertThat(accepted.factory()).isInstanceOf(DeclaringFactory.class);
    assertThatThrownBy(
            () ->
                PluginSettings.of(
                    Map.of(
                        ZoolanderPeerMain.PLUGIN_FACTORY_KEY,
                        factory,
                        "zoolander.custom.limt",
                        "3"),
                    dir))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            "unknown Zoolander setting zoolander.custom.limt (did you mean zoolander.custom.limit?)"
                + " in zoo.cfg: neither the server nor "
                + factory
                + " reads it")
        .cause()
        .isInstanceOf(SettingException.class);
    assertThat(ZoolanderPeerMain.settings())
        .extracting(Setting::key)
        .containsExactly(ZoolanderPeerMain.PLUGIN_FACTORY_KEY, ZoolanderPeerMain.STOP_TIMEOUT_KEY);
    assertThat(PluginSettings.STOP_TIMEOUT.defaultValue())
        .contains(PluginSettings.DEFAULT_STOP_TIMEOUT.toMillis());
  }

  @Test
  void readsPrefixedEntriesAndTheFactory() throws Exception {
    PluginSettings settings =
        PluginSettings.of(
            Map.of(
                ZoolanderPeerMain.PLUGIN_FACTORY_KEY,
                NoopFactory.class.getName(),
                ZoolanderPeerMain.STOP_TIMEOUT_KEY,
                "1500",
                "zoolander.repeater",
                "127.0.0.1:9000"),
            dir);
    assertThat(settings.factory()).isInstanceOf(NoopFactory.class);
    assertThat(settings.stopTimeout()).isEqualTo(Duration.ofMillis(1500));
    assertThat(settings.properties()).containsEntry("zoolander.repeater", "127.0.0.1:9000");
  }

  @Test
  void noFactoryMeansNoPlugin() throws Exception {
    PluginSettings settings = PluginSettings.of(Map.of(), dir);
    assertThat(settings.factory()).isNull();
    assertThat(settings.stopTimeout()).isEqualTo(PluginSettings.DEFAULT_STOP_TIMEOUT);
  }

  @Test
  void rejectsBadEntries() {
    assertThatThrownBy(
            () ->
                PluginSettings.of(
                    Map.of(ZoolanderPeerMain.PLUGIN_FACTORY_KEY, "no.such.Factory"), dir))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("no.such.Factory");
    assertThatThrownBy(
            () ->
                PluginSettings.of(
                    Map.of(ZoolanderPeerMain.PLUGIN_FACTORY_KEY, String.class.getName()), dir))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("does not implement");
    assertThatThrownBy(
            () -> PluginSettings.of(Map.of(ZoolanderPeerMain.STOP_TIMEOUT_KEY, "soon"), dir))
        .isInstanceOf(ConfigException.class);
    assertThatThrownBy(
            () -> PluginSettings.of(Map.of(ZoolanderPeerMain.STOP_TIMEOUT_KEY, "0"), dir))
        .isInstanceOf(ConfigException.class);
  }

  @Test
  void parsedConfigKeepsZoolanderEntries() throws Exception {
    Path cfg = dir.resolve("zoo.cfg");
    Files.writeString(
        cfg,
        String.join(
            "\n",
            "tickTime=500",
            "initLimit=10",
            "syncLimit=5",
            "dataDir=" + dir.resolve("data"),
            "clientPort=2181",
            "standaloneEnabled=false",
            "server.1=127.0.0.1:2888:3888",
            "zoolander.pluginFactory=" + NoopFactory.class.getName(),
            "zoolander.custom=value",
            ""));
    Files.createDirectories(dir.resolve("data"));
    Files.writeString(dir.resolve("data").resolve("myid"), "1\n");
    ZoolanderPeerConfig config = new ZoolanderPeerConfig();
    config.parse(cfg.toString());
    assertThat(config.isDistributed()).isTrue();
    PluginSettings settings = PluginSettings.of(config);
    assertThat(settings.properties())
        .containsOnlyKeys("zoolander.pluginFactory", "zoolander.custom");
    assertThat(settings.dataDir()).isEqualTo(dir.resolve("data"));
    assertThat(settings.factory()).isInstanceOf(NoopFactory.class);
  }
}
