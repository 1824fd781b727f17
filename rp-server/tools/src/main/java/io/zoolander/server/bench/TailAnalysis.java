package io.zoolander.server.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.HdrHistogram.Histogram;

/**
 * What the benchmark derives from its histograms, without timing anything: the fraction of reads
 * missing a tau, the miss rate as a function of tau for every system (tau from plain ZooKeeper's
 * read p50 to its p99.9, log-spaced), and the cost/benefit frontier (messages per read against miss
 * rate) at tau = plain's read p90, p99 and p99.9.
 */
public final class TailAnalysis {
  /** Points of a miss-rate curve. */
  public static final int CURVE_POINTS = 20;

  /** Percentiles of plain ZooKeeper's reads that the curve runs between. */
  public static final double CURVE_FROM_PERCENTILE = 50;

  public static final double CURVE_TO_PERCENTILE = 99.9;

  /** Percentiles of plain ZooKeeper's reads the tables give the miss rate at. */
  public static final List<Double> TABLE_PERCENTILES = List.of(50.0, 90.0, 99.0, 99.9);

  /** Percentiles of plain ZooKeeper's reads the frontier is drawn at. */
  public static final List<Double> FRONTIER_PERCENTILES = List.of(90.0, 99.0, 99.9);

  /** The system every tau is taken from. */
  public static final String PLAIN = "plain";

  private TailAnalysis() {}

  /**
   * The fraction of accesses slower than {@code tauMs} or failed: {@code histogram} holds the
   * latencies of those that completed, in microseconds. NaN if there were none or tau is NaN.
   */
  public static double missFraction(Histogram histogram, long failed, double tauMs) {
    long total = histogram.getTotalCount() + failed;
    if (total == 0 || Double.isNaN(tauMs)) {
      return Double.NaN;
    }
    return (double) misses(histogram, failed, tauMs) / total;
  }

  /** The accesses slower than {@code tauMs} or failed, as {@link #missFraction} counts them. */
  public static long misses(Histogram histogram, long failed, double tauMs) {
    long within = histogram.getCountBetweenValues(0, (long) Math.floor(tauMs * 1000));
    return histogram.getTotalCount() + failed - within;
  }

  /** Messages sent per read, counted where they are sent; NaN if no read was started. */
  public static double messagesPerRead(long messages, long reads) {
    return reads <= 0 ? Double.NaN : (double) messages / reads;
  }

  /**
   * {@code points} values from {@code from} to {@code to} (both included), evenly spaced on a log
   * scale; a non-positive {@code from} is raised to 1 us.
   */
  public static List<Double> logSpaced(double from, double to, int points) {
    if (points < 1) {
      throw new IllegalArgumentException("points must be >= 1, was " + points);
    }
    double lo = Math.max(from, 0.001);
    double hi = Math.max(to, lo);
    List<Double> values = new ArrayList<>(points);
    if (points == 1) {
      values.add(lo);
      return values;
    }
    double ratio = Math.log(hi / lo);
    for (int i = 0; i < points; i++) {
      values.add(i == points - 1 ? hi : lo * Math.exp(ratio * i / (points - 1)));
    }
    return values;
  }

  /** Plain ZooKeeper's read latency at {@code percentile} in one condition, in ms. */
  public static Optional<Double> plainReadMs(
      List<BenchResult.SystemResult> results, boolean anomalies, double percentile) {
    return results.stream()
        .filter(r -> r.system().equals(PLAIN) && r.anomalies() == anomalies)
        .map(r -> r.reads().histogram())
        .filter(h -> h.getTotalCount() > 0)
        .findFirst()
        .map(h -> h.getValueAtPercentile(percentile) / 1e3);
  }

  /**
   * One system's miss rate at each tau of a {@link Curves}.
   *
   * @param system the system's short name
   * @param messagesPerRead its messages per read, for the reader's comparison
   * @param missFractions the fraction of its reads missing each tau, in the order of the taus
   */
  public record MissCurve(String system, double messagesPerRead, List<Double> missFractions) {
    public MissCurve {
      missFractions = List.copyOf(missFractions);
    }
  }

  /**
   * The miss rate as a function of tau for every system in one condition.
   *
   * @param anomalies whether the injector was on
   * @param tausMs the taus, ascending: plain ZooKeeper's read p50 to its p99.9, log-spaced
   * @param systems one curve per system, in the order they ran
   */
  public record Curves(boolean anomalies, List<Double> tausMs, List<MissCurve> systems) {
    public Curves {
      tausMs = List.copyOf(tausMs);
      systems = List.copyOf(systems);
    }
  }

  /** Every system's miss rate at each of {@code tausMs}, in one condition. */
  public static Curves missCurves(
      List<BenchResult.SystemResult> results, boolean anomalies, List<Double> tausMs) {
    List<MissCurve> curves = new ArrayList<>();
    for (BenchResult.SystemResult r : results) {
      if (r.anomalies() != anomalies) {
        continue;
      }
      List<Double> misses = new ArrayList<>(tausMs.size());
      for (double tau : tausMs) {
        misses.add(missFraction(r.reads().histogram(), r.reads().failed(), tau));
      }
      curves.add(new MissCurve(r.system(), r.messagesPerRead(), misses));
    }
    return new Curves(anomalies, tausMs, curves);
  }

  /**
   * The miss-rate curves of one condition, {@code points} taus from plain's read p50 to its p99.9;
   * empty if plain did not run (or read nothing) in that condition.
   */
  public static Optional<Curves> missCurves(
      List<BenchResult.SystemResult> results, boolean anomalies, int points) {
    Optional<Double> from = plainReadMs(results, anomalies, CURVE_FROM_PERCENTILE);
    Optional<Double> to = plainReadMs(results, anomalies, CURVE_TO_PERCENTILE);
    if (from.isEmpty() || to.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(missCurves(results, anomalies, logSpaced(from.get(), to.get(), points)));
  }

  /**
   * One system on the cost/benefit plane at one tau.
   *
   * @param system the system's short name
   * @param messagesPerRead what a read cost, counted
   * @param missFraction what it bought: the fraction of its reads slower than tau or failed
   * @param onFrontier no other system missed as rarely or more rarely with as few or fewer
   *     messages, better in one of them
   */
  public record Point(
      String system, double messagesPerRead, double missFraction, boolean onFrontier) {}

  /**
   * The cost/benefit plane at one tau.
   *
   * @param anomalies whether the injector was on
   * @param percentile the percentile of plain's reads tau is
   * @param tauMs tau
   * @param points every system, in the order they ran
   */
  public record Frontier(boolean anomalies, double percentile, double tauMs, List<Point> points) {
    public Frontier {
      points = List.copyOf(points);
    }
  }

  /** The frontiers of one condition, at {@link #FRONTIER_PERCENTILES} of plain's reads. */
  public static List<Frontier> frontiers(
      List<BenchResult.SystemResult> results, boolean anomalies) {
    List<Frontier> frontiers = new ArrayList<>();
    for (double percentile : FRONTIER_PERCENTILES) {
      Optional<Double> tau = plainReadMs(results, anomalies, percentile);
      if (tau.isEmpty()) {
        continue;
      }
      List<String> names = new ArrayList<>();
      List<double[]> costAndMiss = new ArrayList<>();
      for (BenchResult.SystemResult r : results) {
        if (r.anomalies() == anomalies) {
          names.add(r.system());
          costAndMiss.add(
              new double[] {
                r.messagesPerRead(),
                missFraction(r.reads().histogram(), r.reads().failed(), tau.get())
              });
        }
      }
      List<Boolean> on = paretoFront(costAndMiss);
      List<Point> points = new ArrayList<>();
      for (int i = 0; i < names.size(); i++) {
        points.add(
            new Point(names.get(i), costAndMiss.get(i)[0], costAndMiss.get(i)[1], on.get(i)));
      }
      frontiers.add(new Frontier(anomalies, percentile, tau.get(), points));
    }
    return frontiers;
  }

  /**
   * For each (cost, miss) pair, whether it is on the lower-left frontier: no other pair is at most
   * as costly and at most as missing, and strictly better in one. A pair with a NaN is never on it
   * and dominates nothing.
   */
  public static List<Boolean> paretoFront(List<double[]> costAndMiss) {
    List<Boolean> on = new ArrayList<>(costAndMiss.size());
    for (double[] a : costAndMiss) {
      boolean dominated = Double.isNaN(a[0]) || Double.isNaN(a[1]);
      for (int j = 0; j < costAndMiss.size() && !dominated; j++) {
        double[] b = costAndMiss.get(j);
        if (Double.isNaN(b[0]) || Double.isNaN(b[1])) {
          continue;
        }
        dominated = b[0] <= a[0] && b[1] <= a[1] && (b[0] < a[0] || b[1] < a[1]);
      }
      on.add(!dominated);
    }
    return on;
  }
}
