package io.zoolander.client;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ZoolanderClientBuilderTest {

  @Test
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
    assertThatThrownBy(() -> b.requestTimeoutMs(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("requestTimeoutMs");
    assertThatThrownBy(() -> b.connectTimeoutMs(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("connectTimeoutMs");
    assertThatThrownBy(() -> b.sessionTimeoutMs(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("sessionTimeoutMs");
    assertThatThrownBy(() -> b.writeRetryMs(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("writeRetryMs");
    assertThatThrownBy(() -> b.readAttemptTimeoutMs(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("readAttemptTimeoutMs");
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
    assertThatThrownBy(() -> b.slaTauMs(Double.NaN))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("slaTauMs");
  }

  @Test
  void buildNeedsARepeaterAndDuplicates() {
    assertThatThrownBy(() -> ZoolanderClient.builder().duplicate("127.0.0.1:1").build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("repeater");
    assertThatThrownBy(() -> ZoolanderClient.builder().repeater("127.0.0.1", 1).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("duplicates");
  }

  @Test
  void readPolicyValidation() {
    assertThatThrownBy(() -> ReadPolicy.fixed(0)).hasMessageContaining("concurrency");
    assertThatThrownBy(() -> ReadPolicy.hedged(1.0)).hasMessageContaining("percentile");
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
  void anUnreachableRepeaterFailsTheBuildWithConnectionLoss() {
    assertThatThrownBy(
            () ->
                ZoolanderClient.builder()
                    .repeater("127.0.0.1", 1)
                    .duplicateAt("127.0.0.1", 1)
                    .connectTimeoutMs(300)
                    .build())
        .isInstanceOf(ZoolanderException.class)
        .hasMessageContaining("repeater not reachable")
        .matches(
            e ->
                ((ZoolanderException) e).code()
                    == org.apache.zookeeper.KeeperException.Code.CONNECTIONLOSS);
  }
}
