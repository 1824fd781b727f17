package io.zoolander.server.internal.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

class BackPressureTest {

  @Test
  void pausesTheConnectionThatFloodsAndResumesAtHalf() {
    BackPressure pressure = new BackPressure(1, 10);
    EmbeddedChannel calm = new EmbeddedChannel();
    EmbeddedChannel flood = new EmbeddedChannel();
    pressure.queued(calm, 4);
    pressure.queued(flood, 5);
    assertThat(calm.config().isAutoRead()).isTrue();
    assertThat(flood.config().isAutoRead()).isTrue();
    pressure.queued(flood, 100); // one read's worth counts as its messages
    assertThat(flood.config().isAutoRead()).isFalse();
    assertThat(calm.config().isAutoRead()).isTrue();
    pressure.handled(100);
    assertThat(flood.config().isAutoRead()).isFalse(); // 9 queued: over half
    pressure.handled(4);
    assertThat(flood.config().isAutoRead()).isTrue();
  }

  @Test
  void rejectedMessagesNoLongerCount() {
    BackPressure pressure = new BackPressure(1, 10);
    EmbeddedChannel flood = new EmbeddedChannel();
    pressure.queued(flood, 9);
    pressure.rejected(9);
    pressure.queued(flood, 9);
    assertThat(flood.config().isAutoRead()).isTrue();
  }
}
