package io.zoolander.server.cli;

import io.zoolander.model.Deployment;
import io.zoolander.model.LatencyDistribution;
import io.zoolander.model.LatencyDistributions;
import io.zoolander.model.ThesisModel;
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
 * The {@code predict --chart} PNG: predicted fraction of accesses slower than a bound, per
 * duplicate count.
 */
final class PredictionChart {
  private PredictionChart() {}

  static Path write(
      LatencyDistribution service,
      double ratePerSec,
      double networkMs,
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
                    "Predicted misses vs bound (thesis model, %.0f accesses/s)", ratePerSec))
            .xAxisTitle("bound (ms)")
            .yAxisTitle("fraction of accesses slower than the bound")
            .build();
    chart.getStyler().setYAxisLogarithmic(true);
    chart.getStyler().setYAxisMin(1e-6);
    chart.getStyler().setYAxisMax(1.0);
    double hi = Math.max(2 * tauMs, service.quantile(0.999));
    for (int n : duplicates) {
      Deployment d =
          Deployment.builder()
              .networkDelay(LatencyDistributions.constant(networkMs))
              .duplicates(n, service)
              .arrivalRatePerSec(ratePerSec)
              .build();
      List<Double> x = new ArrayList<>();
      List<Double> y = new ArrayList<>();
      for (int i = 1; i <= 80; i++) {
        double bound = hi * i / 80;
        x.add(bound);
        y.add(Math.max(1e-6, 1 - ThesisModel.create().predict(d, bound).sla()));
      }
      XYSeries series = chart.addSeries(n + " duplicate" + (n == 1 ? "" : "s"), x, y);
      series.setMarker(SeriesMarkers.NONE);
    }
    XYSeries tau = chart.addSeries("tau", List.of(tauMs, tauMs), List.of(1e-6, 1.0));
    tau.setMarker(SeriesMarkers.NONE);
    try {
      BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
    } catch (IOException e) {
      throw new CliException("cannot write chart " + file + ": " + e.getMessage());
    }
    String name = file.toString();
    return Path.of(name.endsWith(".png") ? name : name + ".png");
  }
}
