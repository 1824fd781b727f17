package io.zoolander.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class ZoolanderClientBuilderTest {

  @Test
  // NullAway: passes null on purpose, to check that it is rejected.
  @SuppressWarnings("NullAway")
  void everySetterValidatesAndNamesTheSetting() {
    ZoolanderClientBuilder b = ZoolanderClient.builder();
    assertThatThrownBy(() -> b.repeater(null, 1))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("repeater host");
    assertThatThrownBy(() -> b.repeater("h", 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("repeater port");
    assertThatThrownBy(() -> b.duplicate(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("connectString");
    assertThatThrownBy(() -> b.duplicate(" "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("connectString");
    assertThatThrownBy(() -> b.duplicateAt("h", 70_000))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("duplicate port");
    assertThatThrownBy(() -> b.basePath("rel"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("basePath");
    assertThatThrownBy(() -> b.requestTimeout(Duration.ofMillis(0)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("requestTimeout");
    assertThatThrownBy(() -> b.connectTimeout(Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("connectTimeout");
    assertThatThrownBy(() -> b.sessionTimeout(Duration.ofMillis(0)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("sessionTimeout");
    assertThatThrownBy(() -> b.writeRetryDelay(Duration.ofMillis(0)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("writeRetryDelay");
    assertThatThrownBy(() -> b.readAttemptTimeout(Duration.ofMillis(0)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("readAttemptTimeout");
    assertThatThrownBy(() -> b.clientId(-5))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("clientId");
    assertThatThrownBy(() -> b.readPolicy(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("readPolicy");
    assertThatThrownBy(() -> b.ticker(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("ticker");
    assertThatThrownBy(() -> b.meterRegistry(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("meterRegistry");
    assertThatThrownBy(() -> b.slaTau(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("slaTau");
  }

  @Test
  void everyTimeSettingIsADurationThatMustBeGivenAndPositive() {
    ZoolanderClientBuilder b = ZoolanderClient.builder();
    Map<String, Function<Duration, ZoolanderClientBuilder>> settings =
        Map.of(
            "requestTimeout", b::requestTimeout,
            "connectTimeout", b::connectTimeout,
            "sessionTimeout", b::sessionTimeout,
            "writeRetryDelay", b::writeRetryDelay,
            "readAttemptTimeout", b::readAttemptTimeout,
            "slaTau", b::slaTau);
    settings.forEach(
        (name, setter) -> {
          assertThatThrownBy(() -> setter.apply(null))
              .isInstanceOf(NullPointerException.class)
              .hasMessageContaining(name);
          assertThatThrownBy(() -> setter.apply(Duration.ofSeconds(-1)))
              .isInstanceOf(IllegalArgumentException.class)
              .hasMessageContaining(name);
          assertThatThrownBy(() -> setter.apply(Duration.ZERO))
              .isInstanceOf(IllegalArgumentException.class)
              .hasMessageContaining(name);
          assertThat(setter.apply(Duration.ofSeconds(3))).isSameAs(b);
        });
    assertThatThrownBy(() -> b.sessionTimeout(Duration.ofDays(30)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("sessionTimeout");
    assertThatThrownBy(() -> b.requestTimeout(Duration.ofNanos(500_000)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("requestTimeout");
    assertThat(b.slaTau(Duration.ofNanos(500_000))).isSameAs(b);
  }

  @Test
  void buildNeedsARepeaterAndDuplicates() {
    // Without a repeater address, only a duplicate known by connect string can say where the
    // active repeater is (discovery); a fixed plugin endpoint cannot.
    assertThatThrownBy(() -> ZoolanderClient.builder().duplicateAt("127.0.0.1", 1).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("repeater must be set");
    assertThatThrownBy(() -> ZoolanderClient.builder().repeater("127.0.0.1", 1).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("duplicates");
  }

  @Test
  void readPolicyValidation() {
    assertThatThrownBy(() -> ReadPolicy.fixed(0)).hasMessageContaining("concurrency");
    assertThatThrownBy(() -> ReadPolicy.hedged(1.0)).hasMessageContaining("percentile");
    assertThatThrownBy(() -> ReadPolicy.advised(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("concurrencyWithoutAdvice must be >= 1, was 0");
    assertThatThrownBy(() -> ReadPolicy.adaptiveBuilder().bounds(2, 1))
        .hasMessageContaining("bounds");
    assertThatThrownBy(() -> ReadPolicy.adaptiveBuilder().windowReads(5))
        .hasMessageContaining("windowReads");
    assertThatThrownBy(() -> ReadPolicy.adaptiveBuilder().raiseAt(1.5, 3))
        .hasMessageContaining("failureRatio");
    assertThatThrownBy(() -> ReadPolicy.adaptiveBuilder().raiseAt(0.1, 0.5))
        .hasMessageContaining("variation");
    assertThatThrownBy(() -> ReadPolicy.adaptiveBuilder().raiseAt(0.005, 1.2).build())
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  // NullAway: passes null on purpose, to check that it is rejected.
  @SuppressWarnings("NullAway")
  void everyReadPolicyRecordValidatesAtConstruction() {
    assertThatThrownBy(() -> new ReadPolicy.Fixed(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("concurrency");
    assertThatThrownBy(() -> new ReadPolicy.Hedged(0, Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("percentile");
    assertThatThrownBy(() -> new ReadPolicy.Hedged(0.9, null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("minDelay");
    assertThatThrownBy(() -> new ReadPolicy.Hedged(0.9, Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("minDelay");
    assertThatThrownBy(() -> new ReadPolicy.Adaptive(2, 1, 1, 200, 0.05, 4, 0.01, 2))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("bounds");
    assertThatThrownBy(() -> new ReadPolicy.Adaptive(1, 3, 4, 200, 0.05, 4, 0.01, 2))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("initialConcurrency");
    assertThatThrownBy(() -> new ReadPolicy.Adaptive(1, 3, 1, 5, 0.05, 4, 0.01, 2))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("windowReads");
    assertThatThrownBy(() -> new ReadPolicy.Adaptive(1, 3, 1, 200, 1.5, 4, 0.01, 2))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("failureRatio");
    assertThatThrownBy(() -> new ReadPolicy.Adaptive(1, 3, 1, 200, 0.05, 0.5, 0.01, 2))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("variation");
    assertThatThrownBy(() -> new ReadPolicy.Adaptive(1, 3, 1, 200, 0.005, 1.2, 0.01, 2))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("lowering thresholds");
    assertThatThrownBy(() -> new ReadPolicy.Advised(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("concurrencyWithoutAdvice");
  }

  @Test
  void theFactoriesBuildTheRecordsWithTodaysDefaults() {
    assertThat(ReadPolicy.fixed(2)).isEqualTo(new ReadPolicy.Fixed(2)).hasToString("fixed(C=2)");
    assertThat(ReadPolicy.all()).isEqualTo(new ReadPolicy.Fixed(Integer.MAX_VALUE));
    assertThat(ReadPolicy.all()).hasToString("fixed(C=all)");
    assertThat(ReadPolicy.hedged(0.95))
        .isEqualTo(new ReadPolicy.Hedged(0.95, Duration.ofNanos(100_000)))
        .hasToString("hedged(p95)");
    assertThat(ReadPolicy.adaptive())
        .isEqualTo(new ReadPolicy.Adaptive(1, Integer.MAX_VALUE, 1, 200, 0.05, 4.0, 0.01, 2.0));
    assertThat(ReadPolicy.adaptiveBuilder().bounds(2, 3).initial(9).build().initialConcurrency())
        .as("the initial C is clamped to the bounds")
        .isEqualTo(3);
    assertThat(ReadPolicy.advised(1))
        .isEqualTo(new ReadPolicy.Advised(1))
        .hasToString("advised(C without advice=1)");
    assertThat(ReadPolicy.advised(Integer.MAX_VALUE)).hasToString("advised(C without advice=all)");
  }

  @Test
  void anUnreachableRepeaterFailsTheBuildWithConnectionLoss() {
    assertThatThrownBy(
            () ->
                ZoolanderClient.builder()
                    .repeater("127.0.0.1", 1)
                    .duplicateAt("127.0.0.1", 1)
                    .connectTimeout(Duration.ofMillis(300))
                    .build())
        .isInstanceOf(ZoolanderException.class)
        .hasMessageContaining("repeater not reachable")
        .matches(
            e ->
                ((ZoolanderException) e).code()
                    == org.apache.zookeeper.KeeperException.Code.CONNECTIONLOSS);
  }
}
