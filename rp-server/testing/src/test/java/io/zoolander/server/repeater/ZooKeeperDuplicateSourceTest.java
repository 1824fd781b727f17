package io.zoolander.server.repeater;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zoolander.server.internal.repeater.ZooKeeperDuplicateSource;
import io.zoolander.server.testing.ServerMode;
import io.zoolander.server.testing.ZooKeeperEnsemble;
import io.zoolander.wire.BookkeepingState;
import io.zoolander.wire.Znodes;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A duplicate's source once closed (a duplicate retired online) opens no ZooKeeper session any
 * more: the periodic epoch check may still hold it in its list for one period, and a session it
 * opened then would be kept by no one, reconnecting to the stopped ensemble for ever.
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class ZooKeeperDuplicateSourceTest {
  @TempDir Path dir;

  @Test
  void aClosedSourceOpensNoSession() throws Exception {
    try (ZooKeeperEnsemble ensemble =
        ZooKeeperEnsemble.builder()
            .servers(1)
            .serverMode(ServerMode.IN_PROCESS)
            .baseDir(dir)
            .start()) {
      ZooKeeperDuplicateSource source =
          new ZooKeeperDuplicateSource(
              4, ensemble.connectString(), new Znodes("/zoolander"), 10_000);
      assertThat(source.readState(10_000))
          .as("no state znode yet, read in a session the source keeps")
          .isEqualTo(BookkeepingState.INITIAL);
      source.close();
      assertThatThrownBy(() -> source.readState(10_000))
          .isInstanceOf(IllegalStateException.class)
          .hasMessage("the source of duplicate 4 at " + ensemble.connectString() + " is closed");
      assertThatThrownBy(() -> source.claim(1, 10_000)).isInstanceOf(IllegalStateException.class);
    }
  }
}
