package io.zoolander.server.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.HdrHistogram.Histogram;
import org.knowm.xchart.AnnotationText;
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
 * marked); the fraction of reads missing tau per system, without and with the injector; the miss
 * rate as a function of tau for every system (one chart per condition); and the cost/benefit
 * frontier, messages per read against miss rate at tau = plain's read p90, p99 and p99.9 (one chart
 * per condition).
 */
public final class BenchCharts {
  /** The files written, in {@link BenchResult#out()}. */
  public static final List<String> FILES =
      List.of(
          "latency-off.png",
          "latency-on.png",
          "miss-rate.png",
          "miss-vs-tau-off.png",
          "miss-vs-tau-on.png",
          "frontier-off.png",
          "frontier-on.png");

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
    for (boolean anomalies : new boolean[] {false, true}) {
      Optional<TailAnalysis.Curves> curves =
          TailAnalysis.missCurves(result.systems(), anomalies, TailAnalysis.CURVE_POINTS);
      if (curves.isPresent()) {
        written.add(missVsTau(curves.get(), result.out().resolve(FILES.get(anomalies ? 4 : 3))));
      }
      List<TailAnalysis.Frontier> frontiers = TailAnalysis.frontiers(result.systems(), anomalies);
      if (!frontiers.isEmpty()) {
        written.add(
            frontier(frontiers, anomalies, result.out().resolve(FILES.get(anomalies ? 6 : 5))));
      }
    }
    return written;
  }

  /** Every system's miss rate against tau, both on log axes. */
  private static Path missVsTau(TailAnalysis.Curves curves, Path file) throws IOException {
    XYChart chart =
        new XYChartBuilder()
            .width(900)
            .height(600)
            .title(
                String.format(
                    "Reads missing tau, anomaly injector %s (tau from plain's read p50 to its p99.9)",
                    curves.anomalies() ? "on" : "off"))
            .xAxisTitle("tau (ms)")
            .yAxisTitle("fraction of reads slower than tau (floor: none)")
            .build();
    chart.getStyler().setXAxisLogarithmic(true);
    chart.getStyler().setYAxisLogarithmic(true);
    chart.getStyler().setYAxisMin(MISS_FLOOR);
    chart.getStyler().setYAxisMax(1.0);
    chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNE);
    int i = 0;
    for (TailAnalysis.MissCurve c : curves.systems()) {
      Color color = PALETTE[i++ % PALETTE.length];
      List<Double> y = c.missFractions().stream().map(BenchCharts::floored).toList();
      XYSeries series =
          chart.addSeries(
              String.format("%s (%.2f msgs/read)", c.system(), c.messagesPerRead()),
              curves.tausMs(),
              y);
      series.setMarker(SeriesMarkers.NONE);
      series.setLineColor(color);
      series.setLineStyle(new BasicStroke(c.system().startsWith("rp-") ? 2.5f : 1.5f));
    }
    BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
    return file;
  }

  /**
   * Messages per read against miss rate, one series per tau: every system a labelled point, the
   * frontier (systems no other beats on both) joined by a line.
   */
  private static Path frontier(List<TailAnalysis.Frontier> frontiers, boolean anomalies, Path file)
      throws IOException {
    XYChart chart =
        new XYChartBuilder()
            .width(900)
            .height(600)
            .title(
                String.format(
                    "Cost/benefit frontier, injector %s: messages per read against miss rate (names at plain p99)",
                    anomalies ? "on" : "off"))
            .xAxisTitle("messages per read (counted where sent)")
            .yAxisTitle("fraction of reads slower than tau (floor: none)")
            .build();
    chart.getStyler().setYAxisLogarithmic(true);
    chart.getStyler().setYAxisMin(MISS_FLOOR);
    chart.getStyler().setYAxisMax(1.0);
    chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNE);
    int i = 0;
    for (TailAnalysis.Frontier f : frontiers) {
      Color color = PALETTE[(3 + i++) % PALETTE.length];
      List<TailAnalysis.Point> on =
          f.points().stream()
              .filter(TailAnalysis.Point::onFrontier)
              .sorted(java.util.Comparator.comparingDouble(TailAnalysis.Point::messagesPerRead))
              .toList();
      List<TailAnalysis.Point> all =
          f.points().stream().filter(p -> !Double.isNaN(p.messagesPerRead())).toList();
      if (all.isEmpty()) {
        continue;
      }
      String tau =
          String.format("tau = plain p%s (%.2f ms)", PlainSystems.trim(f.percentile()), f.tauMs());
      XYSeries points =
          chart.addSeries(
              tau,
              all.stream().map(TailAnalysis.Point::messagesPerRead).toList(),
              all.stream().map(p -> floored(p.missFraction())).toList());
      points.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Scatter);
      points.setMarkerColor(color);
      if (!on.isEmpty()) {
        XYSeries line =
            chart.addSeries(
                tau + ", frontier",
                on.stream().map(TailAnalysis.Point::messagesPerRead).toList(),
                on.stream().map(p -> floored(p.missFraction())).toList());
        line.setMarker(SeriesMarkers.NONE);
        line.setLineColor(color);
      }
      // one label per system, at the target's tau (plain p99): the same names at three taus would
      // hide the points
      if (f.percentile() != 99.0) {
        continue;
      }
      for (TailAnalysis.Point p : all) {
        chart.addAnnotation(
            new AnnotationText(
                p.system(), p.messagesPerRead(), floored(p.missFraction()) * 1.25, false));
      }
    }
    BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
    return file;
  }

  /** A miss fraction drawn on a log axis: NaN and 0 at the floor. */
  private static double floored(double miss) {
    return Double.isNaN(miss) ? MISS_FLOOR : Math.max(MISS_FLOOR, miss);
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
