package io.zoolander.server.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.HdrHistogram.Histogram;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * The benchmark's PNG charts: read latency by percentile per system (one chart per condition, tau
 * marked), and the fraction of reads missing tau per system, without and with the injector.
 */
public final class BenchCharts {
  /** The files written, in {@link BenchResult#out()}. */
  public static final List<String> FILES =
      List.of("latency-off.png", "latency-on.png", "miss-rate.png");

  /** Smallest fraction drawn on the logarithmic miss axis; a run without misses is drawn there. */
  static final double MISS_FLOOR = 1e-5;

  private static final Color[] PALETTE = {
    new Color(0x000000),
    new Color(0x8C564B),
    new Color(0xFF7F0E),
    new Color(0x1F77B4),
    new Color(0x2CA02C),
    new Color(0xD62728),
    new Color(0x9467BD),
    new Color(0x17BECF),
    new Color(0xBCBD22)
  };

  private BenchCharts() {}

  /** Writes the charts the result has data for; returns their paths. */
  public static List<Path> write(BenchResult result) throws IOException {
    System.setProperty("java.awt.headless", "true");
    List<Path> written = new ArrayList<>();
    written.add(latency(result, false, result.out().resolve(FILES.get(0))));
    if (!Double.isNaN(result.tauOnMs())) {
      written.add(latency(result, true, result.out().resolve(FILES.get(1))));
    }
    written.add(missRate(result, result.out().resolve(FILES.get(2))));
    return written;
  }

  /**
   * Read latency against 1 / (1 - percentile) on log axes: 10 is p90, 100 is p99, 1000 is p99.9.
   */
  private static Path latency(BenchResult r, boolean anomalies, Path file) throws IOException {
    double tau = anomalies ? r.tauOnMs() : r.tauOffMs();
    XYChart chart =
        new XYChartBuilder()
            .width(900)
            .height(600)
            .title(
                String.format(
                    "Read latency by percentile, anomaly injector %s (tau = plain p99 = %.2f ms)",
                    anomalies ? "on" : "off", tau))
            .xAxisTitle("1 / (1 - percentile): 10 = p90, 100 = p99, 1000 = p99.9")
            .yAxisTitle("read latency (ms)")
            .build();
    chart.getStyler().setXAxisLogarithmic(true);
    chart.getStyler().setYAxisLogarithmic(true);
    chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW);
    double xMax = 2;
    int i = 0;
    for (BenchResult.SystemResult s : r.systems()) {
      if (s.anomalies() != anomalies) {
        continue;
      }
      Histogram h = s.reads().histogram();
      Color color = PALETTE[i++ % PALETTE.length];
      if (h.getTotalCount() == 0) {
        continue;
      }
      List<Double> x = new ArrayList<>();
      List<Double> y = new ArrayList<>();
      double last = 1 - 1.0 / h.getTotalCount(); // beyond it, the percentile is the maximum
      for (double p = 0.5; p <= last; p = 1 - (1 - p) / 1.25) {
        x.add(1 / (1 - p));
        y.add(Math.max(0.001, h.getValueAtPercentile(p * 100) / 1e3));
      }
      x.add(1 / (1 - last));
      y.add(Math.max(0.001, h.getMaxValue() / 1e3));
      xMax = Math.max(xMax, x.get(x.size() - 1));
      XYSeries series = chart.addSeries(s.system(), x, y);
      series.setMarker(SeriesMarkers.NONE);
      series.setLineColor(color);
      series.setLineStyle(new BasicStroke(s.system().startsWith("rp-") ? 2.5f : 1.5f));
    }
    XYSeries tauLine = chart.addSeries("tau", List.of(2.0, xMax), List.of(tau, tau));
    tauLine.setMarker(SeriesMarkers.NONE);
    tauLine.setLineColor(Color.GRAY);
    tauLine.setLineStyle(
        new BasicStroke(
            1f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {6f, 4f}, 0f));
    BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
    return file;
  }

  /**
   * The fraction of reads slower than tau (or failed), per system, injector off and on, on a log
   * axis.
   */
  private static Path missRate(BenchResult r, Path file) throws IOException {
    CategoryChart chart =
        new CategoryChartBuilder()
            .width(900)
            .height(500)
            .title("Reads missing tau (tau = plain ZooKeeper's read p99 in the same condition)")
            .xAxisTitle("system")
            .yAxisTitle("fraction of reads slower than tau (no bar: no miss)")
            .build();
    chart.getStyler().setYAxisLogarithmic(true);
    chart.getStyler().setYAxisMin(MISS_FLOOR);
    chart.getStyler().setYAxisMax(1.0);
    chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNE);
    for (boolean anomalies : new boolean[] {false, true}) {
      List<String> names = new ArrayList<>();
      List<Double> misses = new ArrayList<>();
      for (BenchResult.SystemResult s : r.systems()) {
        if (s.anomalies() == anomalies) {
          names.add(s.system());
          double miss = s.reads().missFraction();
          misses.add(Double.isNaN(miss) ? MISS_FLOOR : Math.max(MISS_FLOOR, miss));
        }
      }
      if (!names.isEmpty()) {
        chart
            .addSeries(anomalies ? "injector on" : "injector off", names, misses)
            .setFillColor(anomalies ? new Color(0xD62728) : new Color(0x1F77B4));
      }
    }
    BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
    return file;
  }
}
