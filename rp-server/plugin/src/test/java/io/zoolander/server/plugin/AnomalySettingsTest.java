package io.zoolander.server.plugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class AnomalySettingsTest {

  @Test
  void parsesEveryKeyAndPrintsTheSameSyntax() {
    AnomalySettings s =
        AnomalySettings.parse(
            " probability=0.25; delayMs=40;distribution=Pareto;paretoShape=3;"
                + "commonProbability=0.5;commonDelayMs=7.5;seed=-9;applies=reads; ");
    assertThat(s)
        .isEqualTo(
            new AnomalySettings(
                0.25,
                40,
                AnomalySettings.Distribution.PARETO,
                3,
                0.5,
                7.5,
                -9,
                AnomalySettings.Applies.READS));
    assertThat(s.toString())
        .isEqualTo(
            "probability=0.25;delayMs=40;distribution=pareto;paretoShape=3;"
                + "commonProbability=0.5;commonDelayMs=7.5;seed=-9;applies=reads");
    assertThat(AnomalySettings.parse(s.toString())).isEqualTo(s);
    assertThat(s.appliesToReads()).isTrue();
    assertThat(s.appliesToWrites()).isFalse();
  }

  @Test
  void defaultsAreOff() {
    assertThat(AnomalySettings.parse("")).isEqualTo(AnomalySettings.OFF);
    assertThat(AnomalySettings.OFF.enabled()).isFalse();
    assertThat(AnomalySettings.parse("probability=1").enabled()).as("no delay").isFalse();
    AnomalySettings on =
        AnomalySettings.parse(
            "probability=1;delayMs=200;distribution=fixed".getBytes(StandardCharsets.UTF_8));
    assertThat(on.enabled()).isTrue();
    assertThat(on.applies()).isEqualTo(AnomalySettings.Applies.BOTH);
    assertThat(on.independentDelayMs(0.999, 0.3)).isEqualTo(200);
    assertThat(AnomalySettings.parse("probability=0.1;delayMs=200").independentDelayMs(0.2, 0.3))
        .isZero();
  }

  @Test
  void malformedRecordsAreRejectedWithAReason() {
    assertThatThrownBy(() -> AnomalySettings.parse("probability=2"))
        .hasMessageContaining("probability");
    assertThatThrownBy(() -> AnomalySettings.parse("probability=NaN"))
        .hasMessageContaining("probability");
    assertThatThrownBy(() -> AnomalySettings.parse("delayMs=-1")).hasMessageContaining("delayMs");
    assertThatThrownBy(() -> AnomalySettings.parse("delayMs=fast")).hasMessageContaining("delayMs");
    assertThatThrownBy(() -> AnomalySettings.parse("distribution=lognormal"))
        .hasMessageContaining("fixed");
    assertThatThrownBy(() -> AnomalySettings.parse("paretoShape=1"))
        .hasMessageContaining("paretoShape");
    assertThatThrownBy(() -> AnomalySettings.parse("seed=1.5")).hasMessageContaining("seed");
    assertThatThrownBy(() -> AnomalySettings.parse("applies=deletes"))
        .hasMessageContaining("applies");
    assertThatThrownBy(() -> AnomalySettings.parse("probabilty=0.1"))
        .hasMessageContaining("unknown");
    assertThatThrownBy(() -> AnomalySettings.parse("probability"))
        .hasMessageContaining("key=value");
    assertThatThrownBy(() -> AnomalySettings.parse("seed=1;seed=2")).hasMessageContaining("twice");
  }

  @Test
  void distributionsHaveTheConfiguredMean() {
    SplittableRandom random = new SplittableRandom(1);
    for (String distribution : new String[] {"fixed", "exponential", "pareto"}) {
      AnomalySettings s =
          AnomalySettings.parse("probability=1;delayMs=100;distribution=" + distribution);
      double sum = 0;
      int n = 200_000;
      for (int i = 0; i < n; i++) {
        sum += s.delay(100, random.nextDouble());
      }
      assertThat(sum / n)
          .as(distribution)
          .isCloseTo(100, within(distribution.equals("pareto") ? 6.0 : 2.0));
    }
    AnomalySettings pareto = AnomalySettings.parse("distribution=pareto;paretoShape=2.5");
    assertThat(pareto.delay(100, 0)).as("the Pareto scale is the minimum").isEqualTo(60);
    assertThat(pareto.delay(100, 1 - 1e-16)).isEqualTo(AnomalySettings.MAX_DELAY_MS);
  }

  @Test
  void commonModeDecisionsAreADeterministicHashHittingTheConfiguredFraction() {
    String record = "commonProbability=0.1;commonDelayMs=30;distribution=exponential;seed=42";
    AnomalySettings one = AnomalySettings.parse(record);
    AnomalySettings other = AnomalySettings.parse(record); // another duplicate, parsed separately
    int writesHit = 0;
    int readsHit = 0;
    int n = 100_000;
    for (long i = 1; i <= n; i++) {
      long write = one.commonWriteDelayMs(i);
      long read = one.commonReadDelayMs(7, i);
      assertThat(other.commonWriteDelayMs(i)).isEqualTo(write);
      assertThat(other.commonReadDelayMs(7, i)).isEqualTo(read);
      writesHit += write > 0 ? 1 : 0;
      readsHit += read > 0 ? 1 : 0;
    }
    assertThat(writesHit / (double) n).isCloseTo(0.1, within(0.005));
    assertThat(readsHit / (double) n).isCloseTo(0.1, within(0.005));

    AnomalySettings otherSeed = AnomalySettings.parse(record.replace("seed=42", "seed=43"));
    int same = 0;
    for (long i = 1; i <= n; i++) {
      same += (one.commonWriteDelayMs(i) > 0) == (otherSeed.commonWriteDelayMs(i) > 0) ? 1 : 0;
    }
    assertThat(same / (double) n)
        .as("another seed decides independently: agrees 0.9^2 + 0.1^2 of the time")
        .isCloseTo(0.82, within(0.01));
    assertThat(AnomalySettings.parse(record + ";applies=reads").commonWriteDelayMs(1)).isZero();
    assertThat(AnomalySettings.parse("commonProbability=1;commonDelayMs=30").commonWriteDelayMs(5))
        .isEqualTo(30);
  }
}
