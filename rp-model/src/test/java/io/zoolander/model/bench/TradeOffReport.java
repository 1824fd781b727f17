package io.zoolander.model.bench;

import io.zoolander.model.LatencyDistribution;
import io.zoolander.model.ThesisModel;
import io.zoolander.model.TradeOff;
import java.util.List;

/**
 * Prints the Figure 7 reproduction of {@code docs/model.md} as a Markdown table. Run:
 *
 * <pre>mvn -q -pl rp-model test-compile exec:java -Dexec.classpathScope=test \
 *     -Dexec.mainClass=io.zoolander.model.bench.TradeOffReport</pre>
 */
public final class TradeOffReport {
  private TradeOffReport() {}

  public static void main(String[] args) {
    LatencyDistribution writes = TradeOff.thesisLikeWrites();
    double tau = 2 * writes.meanMs();
    System.out.printf(
        "service: %s, mean %.3f ms, Cv %.2f, tau %.3f ms%n%n",
        writes, writes.meanMs(), Math.sqrt(writes.scv()), tau);
    double[] utilisations = {0.01, 0.05, 0.15};
    List<List<TradeOff.Row>> columns =
        List.of(
            TradeOff.compare(ThesisModel.create(), writes, tau, utilisations[0], 32),
            TradeOff.compare(ThesisModel.create(), writes, tau, utilisations[1], 32),
            TradeOff.compare(ThesisModel.create(), writes, tau, utilisations[2], 32));
    System.out.println(
        "| nodes | RP @1% | throughput @1% | RP @5% | throughput @5% | RP @15% | throughput @15% |");
    System.out.println("|---:|---:|---:|---:|---:|---:|---:|");
    for (int n : new int[] {1, 2, 3, 4, 5, 6, 8, 12, 16, 24, 32}) {
      StringBuilder line = new StringBuilder("| " + n + " ");
      for (List<TradeOff.Row> column : columns) {
        TradeOff.Row row = column.get(n - 1);
        line.append(
            String.format(
                "| %s%.6f%s | %.6f ",
                row.predictabilityWins() ? "**" : "",
                row.predictability().sla(),
                row.predictabilityWins() ? "**" : "",
                row.throughput().sla()));
      }
      System.out.println(line.append('|'));
    }
  }
}
