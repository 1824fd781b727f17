package io.zoolander.server.internal.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import io.zoolander.server.plugin.AnomalySettings;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The injector's decisions, without ZooKeeper (following the znode: ZoolanderPluginRetryTest). */
class AnomalyInjectorTest {

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void twoDuplicatesMakeTheSameCommonModeDecisions() {
    AnomalyInjector one = new AnomalyInjector(1, "/zl/anomaly");
    AnomalyInjector two = new AnomalyInjector(2, "/zl/anomaly");
    byte[] record = utf8("commonProbability=0.3;commonDelayMs=20;distribution=pareto;seed=7");
    one.load(record);
    two.load(record);
    int hits = 0;
    for (long i = 1; i <= 10_000; i++) {
      long write = one.writeDelayMs(i);
      assertThat(two.writeDelayMs(i)).isEqualTo(write);
      assertThat(two.readDelayMs(3, i)).isEqualTo(one.readDelayMs(3, i));
      hits += write > 0 ? 1 : 0;
    }
    assertThat(hits).isBetween(2_800, 3_200);
  }

  @Test
  void independentAnomaliesHitTheConfiguredFractionAndOnlyTheChosenAccesses() {
    AnomalyInjector injector = new AnomalyInjector(1, "/zl/anomaly");
    injector.load(utf8("probability=0.2;delayMs=5;applies=writes"));
    int hits = 0;
    for (long i = 1; i <= 10_000; i++) {
      long delay = injector.writeDelayMs(i);
      assertThat(delay).isIn(0L, 5L);
      hits += delay > 0 ? 1 : 0;
      assertThat(injector.readDelayMs(1, i)).isZero();
    }
    assertThat(hits).isBetween(1_800, 2_200);
  }

  @Test
  void plainClientRequestsDrawLikeZoolanderAccessesOfTheirKind() {
    AnomalyInjector injector = new AnomalyInjector(1, "/zl/anomaly");
    injector.load(utf8("probability=0.2;delayMs=5;applies=reads"));
    int hits = 0;
    for (int xid = 1; xid <= 10_000; xid++) {
      long delay = injector.clientRequestDelayMs(42, xid, false);
      assertThat(delay).isIn(0L, 5L);
      hits += delay > 0 ? 1 : 0;
      assertThat(injector.clientRequestDelayMs(42, xid, true)).isZero();
    }
    assertThat(hits).isBetween(1_800, 2_200);

    // Common-mode: a deterministic function of (seed, session, xid), the same on every duplicate.
    AnomalyInjector other = new AnomalyInjector(2, "/zl/anomaly");
    byte[] common = utf8("commonProbability=0.3;commonDelayMs=20;applies=writes;seed=3");
    injector.load(common);
    other.load(common);
    int commonHits = 0;
    for (int xid = 1; xid <= 10_000; xid++) {
      long delay = injector.clientRequestDelayMs(42, xid, true);
      assertThat(other.clientRequestDelayMs(42, xid, true)).isEqualTo(delay);
      commonHits += delay > 0 ? 1 : 0;
      assertThat(injector.clientRequestDelayMs(42, xid, false)).isZero();
    }
    assertThat(commonHits).isBetween(2_800, 3_200);
  }

  @Test
  void aMalformedRecordTurnsTheInjectorOff() {
    AnomalyInjector injector = new AnomalyInjector(1, "/zl/anomaly");
    assertThat(injector.settings()).isEqualTo(AnomalySettings.OFF);
    injector.load(utf8("probability=1;delayMs=100"));
    assertThat(injector.settings().enabled()).isTrue();
    assertThat(injector.writeDelayMs(1)).isEqualTo(100);
    injector.load(utf8("probability=1;delayMs=100;color=red"));
    assertThat(injector.settings()).isEqualTo(AnomalySettings.OFF);
    assertThat(injector.writeDelayMs(1)).isZero();
    assertThat(injector.readDelayMs(1, 1)).isZero();
    assertThat(injector.clientRequestDelayMs(1, 1, false)).isZero();
  }
}
