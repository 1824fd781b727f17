package io.zoolander.server.repeater;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/**
 * Configuration is validated where it is given, and a repeater that cannot read a duplicate does
 * not start.
 */
class RepeaterBuilderTest {

  @Test
  void rejectsInvalidSettingsNamingThem() {
    Repeater.Builder b = Repeater.builder();
    assertThatThrownBy(() -> b.clientListen("127.0.0.1", 65536)).hasMessageContaining("port");
    assertThatThrownBy(() -> b.clientListen(" ", 0)).hasMessageContaining("host");
    assertThatThrownBy(() -> b.duplicate(-1, "127.0.0.1:2181")).hasMessageContaining("duplicateId");
    assertThatThrownBy(() -> b.duplicate(1, "")).hasMessageContaining("connectString");
    b.duplicate(1, "127.0.0.1:2181");
    assertThatThrownBy(() -> b.duplicate(1, "127.0.0.1:2182"))
        .hasMessageContaining("already configured");
    assertThatThrownBy(() -> b.basePath("zoolander")).hasMessageContaining("basePath");
    assertThatThrownBy(() -> b.basePath("/a/")).hasMessageContaining("basePath");
    assertThatThrownBy(() -> b.logCapacity(0)).hasMessageContaining("logCapacity");
    assertThatThrownBy(() -> b.logCapacity(RepeaterSettings.MAX_LOG_CAPACITY_MESSAGES + 1))
        .hasMessageContaining("logCapacity");
    assertThatThrownBy(() -> b.sessionTimeout(Duration.ZERO))
        .hasMessageContaining("sessionTimeout");
    assertThatThrownBy(() -> b.startTimeout(Duration.ofMillis(-1)))
        .hasMessageContaining("startTimeout");
    assertThatThrownBy(() -> b.epoch(0)).hasMessageContaining("epoch");
    assertThatThrownBy(() -> b.clientIoThreads(-1)).hasMessageContaining("clientIoThreads");
    assertThatThrownBy(() -> b.clientIoThreads(65)).hasMessageContaining("clientIoThreads");
    assertThatThrownBy(() -> b.missingDuplicateGrace(Duration.ofMillis(-1)))
        .hasMessageContaining("missingDuplicateGrace");
    assertThatThrownBy(() -> b.missingDuplicateGrace(Duration.ofHours(2)))
        .hasMessageContaining("missingDuplicateGrace");
    assertThatThrownBy(() -> b.missingDuplicateGrace(null))
        .isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> b.nameWriteRates(Duration.ZERO, 1))
        .hasMessageContaining("nameWriteRates window");
    assertThatThrownBy(() -> b.nameWriteRates(Duration.ofSeconds(1), 0))
        .hasMessageContaining("nameWriteRates sampleEvery");
    assertThatThrownBy(() -> b.nameWriteRates(null, 1)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> b.listener(null)).isInstanceOf(NullPointerException.class);
  }

  @Test
  void needsADuplicate() {
    assertThatThrownBy(() -> Repeater.builder().build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("duplicate");
  }

  @Test
  void aBuiltRepeaterIsNotStartedYet() {
    try (Repeater repeater = Repeater.builder().duplicate(1, "127.0.0.1:2181").build()) {
      assertThatThrownBy(repeater::epoch).isInstanceOf(IllegalStateException.class);
      assertThatThrownBy(repeater::nextSeq).isInstanceOf(IllegalStateException.class);
      assertThatThrownBy(repeater::boundAddress).isInstanceOf(IllegalStateException.class);
      assertThat(repeater.duplicates())
          .singleElement()
          .satisfies(
              d -> {
                assertThat(d.id()).isEqualTo(1);
                assertThat(d.connectString()).isEqualTo("127.0.0.1:2181");
                assertThat(d.linkState()).isEqualTo(LinkState.WAITING_FOR_ENDPOINT);
                assertThat(d.fenced()).isFalse();
              });
      assertThatThrownBy(() -> repeater.duplicate(2)).isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void doesNotStartWithoutEveryDuplicatesState() {
    // Nothing listens on port 1: the state of duplicate 1 cannot be read, so the epoch cannot be
    // chosen safely.
    Repeater repeater =
        Repeater.builder().duplicate(1, "127.0.0.1:1").startTimeout(Duration.ofMillis(300)).build();
    try (repeater) {
      assertThatThrownBy(repeater::start)
          .isInstanceOf(TimeoutException.class)
          .hasMessageContaining("duplicate 1");
      assertThatThrownBy(repeater::start).isInstanceOf(IllegalStateException.class);
    }
  }
}
