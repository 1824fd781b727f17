package io.zoolander.model;

import io.zoolander.model.internal.Numeric;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.apache.commons.math3.random.RandomGenerator;

/**
 * A sample binned for the bootstrap: fine uniform bins over {@code [0, xMax]}, geometric ones above
 * up to the largest sample; uniform within a bin. {@link #replicate} gives a Poisson-bootstrap
 * replicate (every bin's count drawn from a Poisson law with that count as its mean: the sum of the
 * samples' Poisson(1) weights), in {@code O(bins)} instead of {@code O(samples)}.
 */
final class BinnedLaw extends EngineLaw {
  private static final int TAIL_BINS = 48;
  private final double[] edges; // bins + 1
  private final double[] weight; // per bin
  private final double[] binMean; // mean of the original samples in the bin
  private final double[] below; // weight below edge i, normalised
  private final double[] survivalIntegral; // int_0^{edge i} (1 - B)
  private final double mean;

  private BinnedLaw(double[] edges, double[] weight, double[] binMean) {
    this.edges = edges;
    this.weight = weight;
    this.binMean = binMean;
    int bins = weight.length;
    double total = 0;
    double sum = 0;
    for (int i = 0; i < bins; i++) {
      total += weight[i];
      sum += weight[i] * binMean[i];
    }
    this.mean = total > 0 ? sum / total : 0;
    below = new double[bins + 1];
    survivalIntegral = new double[bins + 1];
    for (int i = 0; i < bins; i++) {
      below[i + 1] = below[i] + (total > 0 ? weight[i] / total : 0);
      double width = edges[i + 1] - edges[i];
      survivalIntegral[i + 1] = survivalIntegral[i] + width * (1 - (below[i] + below[i + 1]) / 2);
    }
  }

  static BinnedLaw of(EngineLaw.Empirical law, double xMax, int fineBins) {
    double[] sorted = law.sorted;
    double max = sorted[sorted.length - 1];
    int tail = max > xMax ? TAIL_BINS : 0;
    double[] edges = new double[fineBins + tail + 1];
    for (int i = 0; i <= fineBins; i++) {
      edges[i] = xMax * i / fineBins;
    }
    for (int i = 1; i <= tail; i++) {
      edges[fineBins + i] = xMax * Math.pow(max / xMax, (double) i / tail);
    }
    edges[edges.length - 1] = Math.max(edges[edges.length - 1], max) * (1 + 1e-12) + 1e-12;
    int bins = edges.length - 1;
    double[] weight = new double[bins];
    double[] sums = new double[bins];
    int bin = 0;
    for (double s : sorted) {
      while (bin < bins - 1 && s >= edges[bin + 1]) {
        bin++;
      }
      weight[bin]++;
      sums[bin] += s;
    }
    double[] means = new double[bins];
    for (int i = 0; i < bins; i++) {
      means[i] = weight[i] > 0 ? sums[i] / weight[i] : (edges[i] + edges[i + 1]) / 2;
    }
    // Scale the weights to the true sample count (a histogram may hold more than its expansion).
    double scale = (double) law.sampleCount() / sorted.length;
    for (int i = 0; i < bins; i++) {
      weight[i] *= scale;
    }
    return new BinnedLaw(edges, weight, means);
  }

  /** A Poisson-bootstrap replicate. */
  BinnedLaw replicate(SplittableRandom rng) {
    double[] w = new double[weight.length];
    for (int i = 0; i < w.length; i++) {
      w[i] = Numeric.poisson(weight[i], rng);
    }
    return new BinnedLaw(edges, w, binMean);
  }

  private int bin(double x) {
    int i = Arrays.binarySearch(edges, x);
    return i >= 0 ? i : -i - 2;
  }

  @Override
  double cdf(double x) {
    if (x <= 0) {
      return x < 0 ? 0 : below[0];
    }
    if (x >= edges[edges.length - 1]) {
      return 1;
    }
    int i = bin(x);
    double f = (x - edges[i]) / (edges[i + 1] - edges[i]);
    return below[i] + f * (below[i + 1] - below[i]);
  }

  @Override
  double truncatedMean(double x) {
    if (x <= 0) {
      return 0;
    }
    if (x >= edges[edges.length - 1]) {
      return survivalIntegral[edges.length - 1];
    }
    int i = bin(x);
    double dx = x - edges[i];
    double slope = (below[i + 1] - below[i]) / (edges[i + 1] - edges[i]);
    return survivalIntegral[i] + dx * (1 - below[i]) - slope * dx * dx / 2;
  }

  @Override
  double mean() {
    return mean;
  }

  @Override
  double sample(double u, RandomGenerator rng) {
    throw new UnsupportedOperationException("a binned law is not simulated");
  }

  @Override
  boolean samplesByUniform() {
    return false;
  }
}
