package io.zoolander.server.cli;

import io.zoolander.model.MissCurve;
import io.zoolander.model.SlaEngine;
import io.zoolander.model.SlaEstimate;
import io.zoolander.model.Strategy;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.lines.SeriesLines;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * The {@code predict --chart} PNG: the engine's predicted fraction of accesses slower than a bound,
 * per duplicate count, with its 95% band (dashed).
 */
final class PredictionChart {
  private static final Color[] COLORS = {
    new Color(0x1f77b4),
    new Color(0xd62728),
    new Color(0x2ca02c),
    new Color(0x9467bd),
    new Color(0xff7f0e),
    new Color(0x8c564b)
  };
  private static final double FLOOR = 1e-6;
  private static final int POINTS = 80;

  private PredictionChart() {}

  /**
   * @param engine the engine's configuration but for the strategy (set per duplicate count)
   * @param serviceP999Ms the service time's p99.9: the bounds run to it or to twice tau
   * @param ratePerSec the arrival rate, for the title
   */
  static Path write(
      SlaEngine.Builder engine,
      double serviceP999Ms,
      double ratePerSec,
      List<Integer> duplicates,
      double tauMs,
      Path file) {
    System.setProperty("java.awt.headless", "true");
    XYChart chart =
        new XYChartBuilder()
            .width(900)
            .height(600)
            .title(
                String.format(
                    "Predicted misses vs bound (engine, 95%% band dashed, %.0f accesses/s)",
                    ratePerSec))
            .xAxisTitle("bound (ms)")
            .yAxisTitle("fraction of accesses slower than the bound")
            .build();
    chart.getStyler().setYAxisLogarithmic(true);
    chart.getStyler().setYAxisMin(FLOOR);
    chart.getStyler().setYAxisMax(1.0);
    double hi = Math.max(2 * tauMs, serviceP999Ms);
    int index = 0;
    for (int n : duplicates) {
      MissCurve curve =
          engine.strategy(Strategy.predictability(n)).build().missCurve(hi / POINTS, hi, POINTS);
      List<Double> x = new ArrayList<>();
      List<Double> y = new ArrayList<>();
      List<Double> low = new ArrayList<>();
      List<Double> high = new ArrayList<>();
      for (SlaEstimate e : curve.all()) {
        x.add(e.tauMs());
        y.add(Math.max(FLOOR, e.missRatio()));
        low.add(Math.max(FLOOR, e.missLow()));
        high.add(Math.max(FLOOR, e.missHigh()));
      }
      Color color = COLORS[index++ % COLORS.length];
      String name = n + " duplicate" + (n == 1 ? "" : "s");
      XYSeries series = chart.addSeries(name, x, y);
      series.setMarker(SeriesMarkers.NONE);
      series.setLineColor(color);
      for (List<Double> band : List.of(low, high)) {
        XYSeries edge = chart.addSeries(name + (band == low ? " low" : " high"), x, band);
        edge.setMarker(SeriesMarkers.NONE);
        edge.setLineColor(color);
        edge.setLineStyle(SeriesLines.DASH_DASH);
        edge.setShowInLegend(false);
      }
    }
    XYSeries tau = chart.addSeries("tau", List.of(tauMs, tauMs), List.of(FLOOR, 1.0));
    tau.setMarker(SeriesMarkers.NONE);
    tau.setLineColor(Color.GRAY);
    try {
      BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
    } catch (IOException e) {
      throw new CliException("cannot write chart " + file + ": " + e.getMessage());
    }
    String name = file.toString();
    return Path.of(name.endsWith(".png") ? name : name + ".png");
  }
}
