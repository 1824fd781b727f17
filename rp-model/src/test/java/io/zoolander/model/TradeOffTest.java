package io.zoolander.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Reproduces the shape of the thesis's Figure 7 with the thesis model. */
class TradeOffTest {
  private static final LatencyDistribution WRITES = TradeOff.thesisLikeWrites();
  private static final double TAU_MS = 2 * WRITES.meanMs();

  private static List<TradeOff.Row> rows(double utilisation) {
    return TradeOff.compare(ThesisModel.create(), WRITES, TAU_MS, utilisation, 32);
  }

  @Test
  void distributionIsLikeTheThesisWrites() {
    double cv = Math.sqrt(WRITES.scv());
    assertThat(cv).isBetween(1.5, 8.0);
  }

  @Test
  void atFifteenPercentRpIsPoorAndFlatWhileThroughputClimbs() {
    List<TradeOff.Row> rows = rows(0.15);
    double rpMin = rows.stream().mapToDouble(r -> r.predictability().sla()).min().orElseThrow();
    double rpMax = rows.stream().mapToDouble(r -> r.predictability().sla()).max().orElseThrow();
    assertThat(rpMax - rpMin).as("RP flat: %.4f..%.4f", rpMin, rpMax).isLessThan(0.05);
    assertThat(rpMax).as("RP poor").isLessThan(0.5);
    double throughput32 = rows.get(31).throughput().sla();
    assertThat(throughput32 - rows.get(0).throughput().sla())
        .as("throughput climbs")
        .isGreaterThan(0.5);
    for (int i = 1; i < rows.size(); i++) {
      assertThat(rows.get(i).throughput().sla())
          .isGreaterThanOrEqualTo(rows.get(i - 1).throughput().sla());
    }
  }

  @Test
  void atFivePercentRpOvertakesFromAboutFourNodes() {
    List<TradeOff.Row> rows = rows(0.05);
    int firstWin =
        rows.stream().filter(TradeOff.Row::predictabilityWins).findFirst().orElseThrow().nodes();
    assertThat(firstWin).isBetween(3, 5);
    assertThat(rows.subList(firstWin - 1, rows.size())).allMatch(TradeOff.Row::predictabilityWins);
  }

  @Test
  void atOnePercentRpWinsFromTheStart() {
    List<TradeOff.Row> rows = rows(0.01);
    assertThat(rows.get(0).predictability().sla()).isEqualTo(rows.get(0).throughput().sla());
    assertThat(rows.subList(1, rows.size())).allMatch(TradeOff.Row::predictabilityWins);
  }
}
