package io.zoolander.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ZnodeRecordsTest {

  @Test
  void znodesLayout() {
    Znodes z = Znodes.defaults();
    assertThat(z.dataRoot()).isEqualTo("/zoolander/data");
    assertThat(z.state()).isEqualTo("/zoolander/state");
    assertThat(z.endpoint()).isEqualTo("/zoolander/endpoint");
    assertThat(z.clients()).isEqualTo("/zoolander/clients");
    assertThat(z.client(42)).isEqualTo("/zoolander/clients/42");
    assertThat(z.anomaly()).isEqualTo("/zoolander/anomaly");
    assertThatThrownBy(() -> z.client(-1)).hasMessageContaining("clientId");
    assertThat(z.toZnode("/a/b")).isEqualTo("/zoolander/data/a/b");
    assertThat(z.toZnode("/")).isEqualTo("/zoolander/data");
    assertThat(z.toApplicationPath("/zoolander/data/a/b0000000001")).isEqualTo("/a/b0000000001");
    assertThat(z.toApplicationPath("/zoolander/data")).isEqualTo("/");
    assertThatThrownBy(() -> z.toApplicationPath("/zoolander/state"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new Znodes("zoolander")).hasMessageContaining("basePath");
    assertThatThrownBy(() -> new Znodes("/x/")).hasMessageContaining("basePath");
  }

  @Test
  void bookkeepingStateRoundTripsAndRejectsGarbage() {
    BookkeepingState s = new BookkeepingState(3, 123_456_789_012L);
    assertThat(BookkeepingState.decode(s.encode())).isEqualTo(s);
    assertThat(BookkeepingState.decode(BookkeepingState.INITIAL.encode()))
        .isEqualTo(BookkeepingState.INITIAL);
    assertThatThrownBy(() -> BookkeepingState.decode(new byte[3]))
        .isInstanceOf(IllegalArgumentException.class);
    byte[] wrongFormat = s.encode();
    wrongFormat[0] = 9;
    assertThatThrownBy(() -> BookkeepingState.decode(wrongFormat))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new BookkeepingState(-1, 0)).hasMessageContaining("epoch");
    assertThatThrownBy(() -> new BookkeepingState(0, -1)).hasMessageContaining("appliedSeq");
  }

  @Test
  void endpointRoundTripsAndRejectsGarbage() {
    PluginEndpoint e = new PluginEndpoint(2, 3, "127.0.0.1", 40123);
    assertThat(new String(e.encode(), StandardCharsets.UTF_8))
        .isEqualTo("duplicateId=2;serverId=3;address=127.0.0.1:40123");
    assertThat(PluginEndpoint.decode(e.encode())).isEqualTo(e);
    assertThat(e.address()).isEqualTo("127.0.0.1:40123");
    assertThatThrownBy(
            () ->
                PluginEndpoint.decode(
                    "duplicateId=x;serverId=1;address=h:1".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> PluginEndpoint.decode("hello".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new PluginEndpoint(1, 1, "h", 0)).hasMessageContaining("port");
  }
}
