package io.zoolander.server.demo;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * Draws the demo as a PNG: for each duplicate count, the fraction of accesses that miss a bound, as
 * the bound varies, observed (solid) and predicted by the engine (dashed), with the prediction's
 * 95% band (thin dashed). RP works where the curves for more duplicates fall below those for fewer.
 */
public final class DemoChart {
  private static final double FLOOR = 1e-4;

  private DemoChart() {}

  /** Writes the chart to {@code file} (PNG) and returns the path written. */
  public static Path write(Demo.Outcome outcome, Path file) throws IOException {
    System.setProperty("java.awt.headless", "true");
    XYChart chart =
        new XYChartBuilder()
            .width(900)
            .height(600)
            .title(
                String.format(
                    "Zoolander demo: misses vs bound (tau = %.2f ms marked)", outcome.tauMs()))
            .xAxisTitle("bound (ms)")
            .yAxisTitle("fraction of accesses slower than the bound")
            .build();
    chart.getStyler().setYAxisLogarithmic(true);
    chart.getStyler().setYAxisMin(FLOOR);
    chart.getStyler().setYAxisMax(1.0);
    Color[] palette = {
      new Color(0xD62728),
      new Color(0x1F77B4),
      new Color(0x2CA02C),
      new Color(0x9467BD),
      new Color(0xFF7F0E),
      new Color(0x8C564B)
    };
    int series = 0;
    for (Demo.Row row : outcome.rows()) {
      Color color = palette[series++ % palette.length];
      List<Double> x = new ArrayList<>();
      List<Double> observed = new ArrayList<>();
      List<Double> predicted = new ArrayList<>();
      List<Double> low = new ArrayList<>();
      List<Double> high = new ArrayList<>();
      for (RunPrediction.Band b : row.curve()) {
        x.add(b.tauMs());
        observed.add(Math.max(FLOOR, 1 - row.firstReplies().cdf(b.tauMs())));
        predicted.add(Math.max(FLOOR, 1 - b.sla()));
        // The band of the SLA, as misses: its high end is the fewest misses.
        low.add(Math.max(FLOOR, 1 - b.high(RunPrediction.Z95)));
        high.add(Math.max(FLOOR, 1 - b.low(RunPrediction.Z95)));
      }
      XYSeries o = chart.addSeries(row.duplicates() + " dup observed", x, observed);
      o.setMarker(SeriesMarkers.NONE);
      o.setLineColor(color);
      XYSeries p = chart.addSeries(row.duplicates() + " dup predicted", x, predicted);
      p.setMarker(SeriesMarkers.NONE);
      p.setLineStyle(dashed(2f));
      p.setLineColor(color);
      for (List<Double> edge : List.of(low, high)) {
        XYSeries band =
            chart.addSeries(
                row.duplicates() + " dup predicted " + (edge == low ? "low" : "high"), x, edge);
        band.setMarker(SeriesMarkers.NONE);
        band.setLineStyle(dashed(0.8f));
        band.setLineColor(color);
        band.setShowInLegend(false);
      }
    }
    XYSeries tau =
        chart.addSeries("tau", List.of(outcome.tauMs(), outcome.tauMs()), List.of(FLOOR, 1.0));
    tau.setMarker(SeriesMarkers.NONE);
    tau.setLineColor(Color.GRAY);
    BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
    String name = file.toString();
    return Path.of(name.endsWith(".png") ? name : name + ".png");
  }

  private static BasicStroke dashed(float width) {
    return new BasicStroke(
        width, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {6f, 4f}, 0f);
  }
}
