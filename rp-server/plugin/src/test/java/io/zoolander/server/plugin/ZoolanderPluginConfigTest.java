package io.zoolander.server.plugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zoolander.wire.Znodes;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Reading and validating the plugin's zoo.cfg entries. */
class ZoolanderPluginConfigTest {

  @Test
  void onlyTheDuplicateIdIsRequired() {
    ZoolanderPluginConfig config =
        ZoolanderPluginConfig.from(Map.of(ZoolanderPluginConfig.DUPLICATE_ID_KEY, " 4 "));
    assertThat(config)
        .isEqualTo(
            new ZoolanderPluginConfig(
                4,
                Znodes.defaults(),
                "127.0.0.1",
                0,
                "127.0.0.1",
                ZoolanderPluginConfig.SESSION_TIMEOUT_MS_DEFAULT,
                ZoolanderPluginConfig.CONNECT_TIMEOUT_MS_DEFAULT,
                ZoolanderPluginConfig.GAP_BUFFER_MESSAGES_DEFAULT,
                ZoolanderPluginConfig.RETRANSMIT_TIMEOUT_MS_DEFAULT,
                ZoolanderPluginConfig.READ_WAIT_MS_DEFAULT,
                ZoolanderPluginConfig.MAX_WAITING_READS_DEFAULT,
                ZoolanderPluginConfig.MAX_QUEUED_MESSAGES_DEFAULT,
                ZoolanderPluginConfig.ADVERTISED_PORT_DEFAULT,
                ZoolanderPluginConfig.RECENT_WRITES_MESSAGES_DEFAULT,
                ZoolanderPluginConfig.MAX_BATCH_BYTES_DEFAULT,
                ZoolanderPluginConfig.MAX_WATCHES_PER_CONNECTION_DEFAULT));
    assertThatThrownBy(() -> ZoolanderPluginConfig.from(Map.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(ZoolanderPluginConfig.DUPLICATE_ID_KEY + " is required");
  }

  @Test
  void readsEverySetting() {
    ZoolanderPluginConfig config =
        ZoolanderPluginConfig.from(
            Map.ofEntries(
                Map.entry(ZoolanderPluginConfig.DUPLICATE_ID_KEY, "2"),
                Map.entry(ZoolanderPluginConfig.BASE_PATH_KEY, "/apps/zl"),
                Map.entry(ZoolanderPluginConfig.HOST_KEY, "0.0.0.0"),
                Map.entry(ZoolanderPluginConfig.PORT_KEY, "7000"),
                Map.entry(ZoolanderPluginConfig.ADVERTISED_HOST_KEY, "dup2.example"),
                Map.entry(ZoolanderPluginConfig.SESSION_TIMEOUT_MS_KEY, "9000"),
                Map.entry(ZoolanderPluginConfig.CONNECT_TIMEOUT_MS_KEY, "5000"),
                Map.entry(ZoolanderPluginConfig.GAP_BUFFER_MESSAGES_KEY, "16"),
                Map.entry(ZoolanderPluginConfig.RETRANSMIT_TIMEOUT_MS_KEY, "250"),
                Map.entry(ZoolanderPluginConfig.READ_WAIT_MS_KEY, "0"),
                Map.entry(ZoolanderPluginConfig.MAX_WAITING_READS_KEY, "10"),
                Map.entry(ZoolanderPluginConfig.MAX_QUEUED_MESSAGES_KEY, "64"),
                Map.entry(ZoolanderPluginConfig.ADVERTISED_PORT_KEY, "7100"),
                Map.entry(ZoolanderPluginConfig.RECENT_WRITES_MESSAGES_KEY, "0"),
                Map.entry(ZoolanderPluginConfig.MAX_BATCH_BYTES_KEY, "65536"),
                Map.entry(ZoolanderPluginConfig.MAX_WATCHES_PER_CONNECTION_KEY, "12")));
    assertThat(config)
        .isEqualTo(
            new ZoolanderPluginConfig(
                2,
                new Znodes("/apps/zl"),
                "0.0.0.0",
                7000,
                "dup2.example",
                9000,
                5000,
                16,
                250,
                0,
                10,
                64,
                7100,
                0,
                65_536,
                12));
  }

  @Test
  void namesEveryInvalidEntryAtOnce() {
    assertThatThrownBy(
            () ->
                ZoolanderPluginConfig.from(
                    Map.of(
                        ZoolanderPluginConfig.DUPLICATE_ID_KEY, "-1",
                        ZoolanderPluginConfig.BASE_PATH_KEY, "relative",
                        ZoolanderPluginConfig.PORT_KEY, "70000",
                        ZoolanderPluginConfig.SESSION_TIMEOUT_MS_KEY, "soon",
                        ZoolanderPluginConfig.GAP_BUFFER_MESSAGES_KEY, "0",
                        ZoolanderPluginConfig.RECENT_WRITES_MESSAGES_KEY, "-1",
                        ZoolanderPluginConfig.MAX_BATCH_BYTES_KEY, "1023")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContainingAll(
            ZoolanderPluginConfig.DUPLICATE_ID_KEY,
            ZoolanderPluginConfig.BASE_PATH_KEY,
            ZoolanderPluginConfig.PORT_KEY,
            ZoolanderPluginConfig.SESSION_TIMEOUT_MS_KEY + " is not an integer",
            ZoolanderPluginConfig.GAP_BUFFER_MESSAGES_KEY,
            ZoolanderPluginConfig.RECENT_WRITES_MESSAGES_KEY,
            ZoolanderPluginConfig.MAX_BATCH_BYTES_KEY + " must be 1024..");
  }

  @Test
  void aWildcardBindAddressNeedsAnAdvertisedHost() {
    assertThatThrownBy(
            () ->
                ZoolanderPluginConfig.from(
                    Map.of(
                        ZoolanderPluginConfig.DUPLICATE_ID_KEY, "1",
                        ZoolanderPluginConfig.HOST_KEY, "0.0.0.0")))
        .hasMessageContaining(ZoolanderPluginConfig.ADVERTISED_HOST_KEY + " is required");
    assertThatThrownBy(
            () ->
                new ZoolanderPluginConfig(
                    1,
                    Znodes.defaults(),
                    "127.0.0.1",
                    0,
                    "a;b",
                    1,
                    1,
                    1,
                    1,
                    0,
                    0,
                    2,
                    0,
                    0,
                    ZoolanderPluginConfig.MIN_BATCH_BYTES,
                    0))
        .hasMessageContaining("advertisedHost");
  }

  @Test
  void aBatchBoundBelowTheMinimumIsRefused() {
    assertThatThrownBy(
            () ->
                new ZoolanderPluginConfig(
                    1,
                    Znodes.defaults(),
                    "127.0.0.1",
                    0,
                    "127.0.0.1",
                    1,
                    1,
                    1,
                    1,
                    0,
                    0,
                    2,
                    0,
                    0,
                    ZoolanderPluginConfig.MIN_BATCH_BYTES - 1,
                    0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxBatchBytes must be 1024..");
  }

  @Test
  void aNegativeWatchBoundIsRefused() {
    assertThatThrownBy(
            () ->
                ZoolanderPluginConfig.from(
                    Map.of(
                        ZoolanderPluginConfig.DUPLICATE_ID_KEY,
                        "1",
                        ZoolanderPluginConfig.MAX_WATCHES_PER_CONNECTION_KEY,
                        "-1")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(ZoolanderPluginConfig.MAX_WATCHES_PER_CONNECTION_KEY);
  }
}
