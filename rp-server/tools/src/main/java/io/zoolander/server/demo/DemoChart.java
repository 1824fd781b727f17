package io.zoolander.server.demo;

import io.zoolander.model.Deployment;
import io.zoolander.model.SlaModel;
import io.zoolander.model.ThesisModel;
import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.HdrHistogram.Histogram;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * Draws the demo as a PNG: for each duplicate count, the fraction of accesses that miss a bound, as
 * the bound varies, observed (solid) and predicted by the thesis model (dashed). RP works where the
 * curves for more duplicates fall below those for fewer.
 */
public final class DemoChart {
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
    chart.getStyler().setYAxisMin(1e-4);
    chart.getStyler().setYAxisMax(1.0);
    double lo = outcome.oneDuplicate().quantile(0.25);
    double hi = Math.max(outcome.tauMs() * 2, outcome.oneDuplicate().quantile(0.995));
    SlaModel thesis = ThesisModel.create();
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
      Deployment deployment = Deployment.homogeneous(row.duplicates(), outcome.oneDuplicate(), 0);
      for (int i = 0; i <= 60; i++) {
        double bound = lo + (hi - lo) * i / 60;
        x.add(bound);
        observed.add(Math.max(1e-4, missRatio(row.latency(), bound)));
        predicted.add(Math.max(1e-4, 1 - thesis.predict(deployment, bound).sla()));
      }
      XYSeries o = chart.addSeries(row.duplicates() + " dup observed", x, observed);
      o.setMarker(SeriesMarkers.NONE);
      o.setLineColor(color);
      XYSeries p = chart.addSeries(row.duplicates() + " dup predicted", x, predicted);
      p.setMarker(SeriesMarkers.NONE);
      p.setLineStyle(
          new BasicStroke(
              2f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {6f, 4f}, 0f));
      p.setLineColor(color);
    }
    XYSeries tau =
        chart.addSeries("tau", List.of(outcome.tauMs(), outcome.tauMs()), List.of(1e-4, 1.0));
    tau.setMarker(SeriesMarkers.NONE);
    tau.setLineColor(Color.GRAY);
    BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
    String name = file.toString();
    return Path.of(name.endsWith(".png") ? name : name + ".png");
  }

  private static double missRatio(Histogram h, double boundMs) {
    long total = h.getTotalCount();
    return total == 0
        ? 0
        : 1 - (double) h.getCountBetweenValues(0, (long) (boundMs * 1000)) / total;
  }
}
