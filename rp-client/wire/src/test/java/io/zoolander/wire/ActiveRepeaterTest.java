package io.zoolander.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ActiveRepeaterTest {

  @Test
  void roundTripsAsOneReadableLine() {
    ActiveRepeater r = new ActiveRepeater(7, "10.0.0.5", 7000, "::1", 7001);
    assertThat(new String(r.encode(), StandardCharsets.UTF_8))
        .isEqualTo("7 10.0.0.5:7000 ::1:7001");
    assertThat(ActiveRepeater.decode(r.encode())).isEqualTo(r);
  }

  @Test
  void refusesWhatIsNotARecordNamingTheField() {
    assertThatThrownBy(() -> ActiveRepeater.decode("7 h:1".getBytes(StandardCharsets.UTF_8)))
        .hasMessageContaining("not an active repeater record");
    assertThatThrownBy(() -> ActiveRepeater.decode("x h:1 h:2".getBytes(StandardCharsets.UTF_8)))
        .hasMessageContaining("not an active repeater record");
    assertThatThrownBy(() -> new ActiveRepeater(0, "h", 1, "h", 2)).hasMessageContaining("epoch");
    assertThatThrownBy(() -> new ActiveRepeater(1, "", 1, "h", 2))
        .hasMessageContaining("clientHost");
    assertThatThrownBy(() -> new ActiveRepeater(1, "h", 1, "h", 0))
        .hasMessageContaining("heartbeatPort");
  }
}
